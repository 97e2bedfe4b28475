//===- Compiler.cpp - graph to Executable ----------------------*- C++ -*-===//
//
// validate -> import (dhlo, with the run-time shape checks validation
// found; Lowering.h) -> the CPU pipeline (or the CUDA one, emulated), whose
// first passes turn the checks into code and set the entry ABI -> object code
// (ObjectCode.h) -> linked into this process (jit/Executable.h: load).
// Diagnostics from any stage are collected into the returned Status; a graph
// that validated but fails later is an anyshape bug (INTERNAL).
//
//===----------------------------------------------------------------------===//
#include "compiler/Compiler.h"

#include "codegen/CPU/CpuPipeline.h"
#include "codegen/CUDA/CudaPipeline.h"
#include "codegen/CUDA/Passes.h"

#include "compiler/CudaKernels.h"
#include "compiler/Lowering.h"
#include "compiler/ObjectCode.h"
#include "ir/graph/Specialize.h"
#include "ir/graph/Validate.h"

#include "mlir/Pass/PassManager.h"

#include <chrono>
#include <optional>

namespace anyshape::compiler {

std::atomic<int64_t> Compiler::compiles_{0};

int64_t Compiler::compileCount() { return compiles_.load(); }

namespace {

using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

/// Ends stages: records each in the report (if any) and tells the
/// caller's progress callback (if any).
class StageTimer {
public:
  StageTimer(const CompileOptions &options, CompileReport *report,
             Clock::time_point start)
      : options_(options), report_(report), start_(start), last_(start) {}

  void done(std::string name, std::string detail = "") {
    auto now = Clock::now();
    CompileStage stage{std::move(name), std::move(detail),
                       Seconds(now - last_).count(),
                       Seconds(now - start_).count()};
    last_ = now;
    if (options_.progress)
      options_.progress(stage);
    if (report_)
      report_->stages.push_back(std::move(stage));
  }
  double elapsed() const { return Seconds(Clock::now() - start_).count(); }

private:
  const CompileOptions &options_;
  CompileReport *report_;
  Clock::time_point start_, last_;
};

/// Import, pipeline and object code for a validated graph. The MLIR
/// context, and the constants it holds, are gone when this returns.
/// kCuda: the kernels linked into cubins, and what the host flow's
/// runtime needs to know of them.
StatusOr<jit::DeviceCode> takeDeviceCode(mlir::ModuleOp module,
                                         const CompileOptions &options) {
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::vector<CudaKernel> kernels,
      linkCudaKernels(module, options.cuda.target.chip(), options.dumpIrDir));
  module->removeAttr(codegen::kCudaKernelsAttr);
  jit::DeviceCode device{kernelImagesOf(std::move(kernels)), 0};
  if (auto constants =
          module->getAttrOfType<mlir::IntegerAttr>(codegen::kCudaConstantsAttr))
    device.constants = constants.getInt();
  module->removeAttr(codegen::kCudaConstantsAttr);
  return device;
}

/// The outlined kernels (CUDA: their launchers) left after the pipeline:
/// functions keep their `dhlo.kernel` attribute through the LLVM lowering.
int64_t countKernelFunctions(mlir::ModuleOp module) {
  return llvm::count_if(
      module.getBody()->getOperations(),
      [](mlir::Operation &op) { return op.hasAttr(codegen::kKernelAttr); });
}

StatusOr<std::string>
compileValidated(const v1::Graph &graph, const GraphInfo &info,
                 const CompileOptions &options, CompileReport *report,
                 StageTimer &stages, std::optional<jit::DeviceCode> *device) {
  bool cuda = options.backend == KernelBackend::kCuda;
  bool emulated = options.backend == KernelBackend::kCudaEmulated;
  LoweringRequest request;
  request.graph = &graph;
  request.info = &info;
  request.tensors = options.tensors;
  request.dumpIrDir = options.dumpIrDir;
  request.cudaDialects = emulated || cuda;
  // The plan the pipeline forms, as it forms it.
  dhlo::FormedFusionPlan formed;
  request.warnings = report ? &report->warnings : nullptr;
  request.imported = [&] { stages.done("import"); };
  std::string object;
  ANYSHAPE_RETURN_IF_ERROR(lowerGraph(
      request,
      cuda       ? "CUDA pipeline"
      : emulated ? "CUDA pipeline (emulated)"
                 : "CPU pipeline",
      [&](mlir::OpPassManager &pm) {
        if (emulated || cuda) {
          codegen::CudaPipelineOptions pipeline = options.cuda;
          pipeline.emulate = emulated;
          codegen::buildCudaPipeline(pm, pipeline, &formed);
        } else {
          codegen::buildCpuPipeline(pm, options.pipeline, &formed);
        }
      },
      [&](mlir::ModuleOp module) -> Status {
        int64_t functions = countKernelFunctions(module);
        if (report) {
          report->pipelineSeconds = stages.elapsed();
          report->kernelFunctions = functions;
          report->fusionPlan = std::move(formed.text);
          report->kernelCount = formed.fusions;
        }
        stages.done("MLIR pipeline",
                    std::to_string(formed.fusions) + " fusions, " +
                        std::to_string(functions) + " kernel functions");
        if (cuda) {
          ANYSHAPE_ASSIGN_OR_RETURN(*device, takeDeviceCode(module, options));
          stages.done("CUDA kernels",
                      std::to_string((*device)->kernels.size()) + " cubins");
        }
        ANYSHAPE_ASSIGN_OR_RETURN(
            object, emitObjectCode(
                        module, options.optLevel, options.pipeline.target,
                        options.dumpIrDir,
                        [&](const char *stage) { stages.done(stage); },
                        options.codegenParts));
        return Status::ok();
      }));
  return object;
}

} // namespace

namespace {

/// compileToObject's work, its stages ended on `stages` (compile goes on
/// with the link on the same timer).
StatusOr<CompiledObject> compileWithStages(const v1::Graph &original,
                                           const CompileOptions &options,
                                           CompileReport *report,
                                           StageTimer &stages) {
  // Validated before specialising, so errors name the graph as written;
  // a specialised graph is validated again for its own types. The import
  // and the caller (CompiledObject::info) reuse the validation.
  ANYSHAPE_ASSIGN_OR_RETURN(GraphInfo info,
                            validateGraph(original, options.limits));
  // No copy of an unspecialised graph until the compile is done: its
  // constants may be most of this process's memory.
  std::optional<v1::Graph> specialized;
  if (!options.staticSymbols.empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(specialized,
                              specializeGraph(original, options.staticSymbols));
    ANYSHAPE_ASSIGN_OR_RETURN(info,
                              validateGraph(*specialized, options.limits));
  }
  const v1::Graph &graph = specialized ? *specialized : original;
  stages.done("validate", std::to_string(graph.nodes_size()) + " nodes");
  std::optional<jit::DeviceCode> device;
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::string object,
      compileValidated(graph, info, options, report, stages, &device));
  if (report) {
    report->seconds = stages.elapsed();
    report->codegenSeconds = report->seconds - report->pipelineSeconds;
    report->linkSeconds = 0;
  }
  return CompiledObject{specialized ? std::move(*specialized) : original,
                        std::move(info), std::move(object), std::move(device)};
}

} // namespace

StatusOr<CompiledObject>
Compiler::compileToObject(const v1::Graph &graph, const CompileOptions &options,
                          CompileReport *report) {
  StageTimer stages(options, report, Clock::now());
  ANYSHAPE_ASSIGN_OR_RETURN(CompiledObject compiled,
                            compileWithStages(graph, options, report, stages));
  ++compiles_;
  return compiled;
}

StatusOr<std::shared_ptr<jit::Executable>>
Compiler::compile(const v1::Graph &graph, const CompileOptions &options,
                  CompileReport *report) {
  StageTimer stages(options, report, Clock::now());
  ANYSHAPE_ASSIGN_OR_RETURN(CompiledObject compiled,
                            compileWithStages(graph, options, report, stages));
  ++compiles_;
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::shared_ptr<jit::Executable> executable,
      jit::Executable::load(std::move(compiled.compiledGraph),
                            std::move(compiled.info),
                            std::move(compiled.objectCode), options.limits,
                            std::move(compiled.device)));
  stages.done("link");
  if (report) {
    report->seconds = report->stages.back().elapsed;
    report->linkSeconds = report->stages.back().seconds;
  }
  return executable;
}

} // namespace anyshape::compiler

//===- Compiler.cpp - graph to Executable -----------------------*- C++ -*-===//
//
// The whole compile, in compileStages, one stage (Stage.h) after another:
// validate (and specialise) -> import as dhlo, with the run-time shape
// checks validation found -> the backend's MLIR pipeline (Backend.h),
// whose first passes turn the checks into code and set the entry ABI ->
// what is not host code taken off (CUDA's cubins) -> LLVM optimise and
// emit (ObjectCode.h) -> and, for Compiler::compile, linked into this
// process (jit/Executable.h: load). Diagnostics from any stage are
// collected into the returned Status; a graph that validated but fails
// later is an anyshape bug (INTERNAL).
//
//===----------------------------------------------------------------------===//
#include "compiler/Compiler.h"

#include "codegen/Common/Passes.h"
#include "compiler/Lowering.h"
#include "compiler/ObjectCode.h"
#include "ir/graph/Specialize.h"
#include "ir/graph/Validate.h"

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
  StageTimer(const CompileOptions &options, CompileReport *report)
      : options_(options), report_(report), start_(Clock::now()),
        last_(start_) {}

  void done(Stage done, std::string detail = "") {
    auto now = Clock::now();
    CompileStage stage{done, stageName(done), std::move(detail),
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

std::unique_ptr<Backend> backendFor(const CompileOptions &options) {
  switch (options.backend) {
  case KernelBackend::kCpu:
    return cpuBackend(options.pipeline);
  case KernelBackend::kCudaEmulated:
  case KernelBackend::kCuda:
    return cudaBackend(options.cuda,
                       options.backend == KernelBackend::kCudaEmulated,
                       options.pipeline.target);
  }
  return cpuBackend(options.pipeline);
}

/// `--dump-ir`'s folder for `stage` ("" without --dump-ir).
std::string dumpFolder(const CompileOptions &options, Stage stage) {
  return options.dumpIrDir.empty()
             ? ""
             : options.dumpIrDir + "/" + stageFolder(stage);
}

/// The outlined kernels (CUDA: their launchers) left after the pipeline:
/// functions keep their `dhlo.kernel` attribute through the LLVM lowering.
int64_t countKernelFunctions(mlir::ModuleOp module) {
  return llvm::count_if(
      module.getBody()->getOperations(),
      [](mlir::Operation &op) { return op.hasAttr(codegen::kKernelAttr); });
}

/// The whole compile up to the object code, each stage ended on `stages`
/// (Compiler::compile goes on with the link on the same timer).
StatusOr<CompiledObject> compileStages(const v1::Graph &original,
                                       const CompileOptions &options,
                                       CompileReport *report,
                                       StageTimer &stages) {
  std::unique_ptr<Backend> backend = backendFor(options);

  // Validate before specialising, so errors name the graph as written; a
  // specialised graph is validated again for its own types. The import
  // and the caller (CompiledObject::info) reuse the validation. No copy
  // of an unspecialised graph until the compile is done: its constants
  // may be most of this process's memory.
  ANYSHAPE_ASSIGN_OR_RETURN(GraphInfo info,
                            validateGraph(original, options.limits));
  std::optional<v1::Graph> specialized;
  if (!options.staticSymbols.empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(specialized,
                              specializeGraph(original, options.staticSymbols));
    ANYSHAPE_ASSIGN_OR_RETURN(info,
                              validateGraph(*specialized, options.limits));
  }
  const v1::Graph &graph = specialized ? *specialized : original;
  stages.done(Stage::kValidate, std::to_string(graph.nodes_size()) + " nodes");

  ANYSHAPE_ASSIGN_OR_RETURN(
      std::unique_ptr<LoweredGraph> lowered,
      LoweredGraph::import(*backend, graph, info, options.tensors,
                           dumpFolder(options, Stage::kImport)));
  stages.done(Stage::kImport);

  dhlo::FormedFusionPlan formed;
  PipelineRun run;
  run.dumpDir = dumpFolder(options, Stage::kMlirPipeline);
  run.formed = &formed;
  run.warnings = report ? &report->warnings : nullptr;
  ANYSHAPE_RETURN_IF_ERROR(lowered->runPipeline(*backend, run));
  int64_t functions = countKernelFunctions(lowered->module());
  if (report) {
    report->pipelineSeconds = stages.elapsed();
    report->kernelFunctions = functions;
    report->fusionPlan = std::move(formed.text);
    report->kernelCount = formed.fusions;
  }
  stages.done(Stage::kMlirPipeline,
              std::to_string(formed.fusions) + " fusions, " +
                  std::to_string(functions) + " kernel functions");

  ANYSHAPE_ASSIGN_OR_RETURN(
      std::optional<jit::DeviceCode> device,
      backend->takeDeviceCode(lowered->module(),
                              dumpFolder(options, Stage::kCudaKernels)));
  if (device)
    stages.done(Stage::kCudaKernels,
                std::to_string(device->kernels.size()) + " cubins");

  // kLlvmOptimise and kLlvmEmit end inside.
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::string object,
      emitObjectCode(
          lowered->module(), options.optLevel, backend->host(),
          dumpFolder(options, Stage::kLlvmOptimise),
          [&](Stage stage) { stages.done(stage); }, options.codegenParts));
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
  StageTimer stages(options, report);
  ANYSHAPE_ASSIGN_OR_RETURN(CompiledObject compiled,
                            compileStages(graph, options, report, stages));
  ++compiles_;
  return compiled;
}

StatusOr<std::shared_ptr<jit::Executable>>
Compiler::compile(const v1::Graph &graph, const CompileOptions &options,
                  CompileReport *report) {
  StageTimer stages(options, report);
  ANYSHAPE_ASSIGN_OR_RETURN(CompiledObject compiled,
                            compileStages(graph, options, report, stages));
  ++compiles_;
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::shared_ptr<jit::Executable> executable,
      jit::Executable::load(std::move(compiled.compiledGraph),
                            std::move(compiled.info),
                            std::move(compiled.objectCode), options.limits,
                            std::move(compiled.device)));
  stages.done(Stage::kLink);
  if (report) {
    report->seconds = report->stages.back().elapsed;
    report->linkSeconds = report->stages.back().seconds;
  }
  return executable;
}

} // namespace anyshape::compiler

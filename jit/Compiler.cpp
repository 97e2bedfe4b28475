//===- Compiler.cpp - graph to Executable ----------------------*- C++ -*-===//
//
// validate -> import (dhlo, with the run-time shape checks validation
// found; Lowering.h) -> the CPU pipeline (or the CUDA one, emulated), whose
// first passes turn the checks into code and set the entry ABI -> object code
// (ObjectCode.h) -> linked into this process (Executable::load). Diagnostics
// from any stage are collected into the returned Status; a graph that validated
// but fails later is an anyshape bug (INTERNAL).
//
//===----------------------------------------------------------------------===//
#include "jit/Compiler.h"

#include "codegen/CPU/CpuPipeline.h"
#include "codegen/CUDA/CudaPipeline.h"
#include "codegen/CUDA/Passes.h"

#include "ir/graph/Specialize.h"
#include "ir/graph/Validate.h"
#include "jit/CudaKernels.h"
#include "jit/Lowering.h"
#include "jit/ObjectCode.h"

#include "mlir/Pass/PassManager.h"

#include <chrono>
#include <optional>

namespace anyshape::jit {

std::atomic<int64_t> Compiler::compiles_{0};

int64_t Compiler::compileCount() { return compiles_.load(); }

namespace {

/// Import, pipeline and object code for a validated graph. The MLIR
/// context, and the constants it holds, are gone when this returns.
/// kCuda: the kernels linked into cubins, and what the host flow's
/// runtime needs to know of them.
StatusOr<DeviceCode> takeDeviceCode(mlir::ModuleOp module,
                                    const CompileOptions &options) {
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::vector<CudaKernel> kernels,
      linkCudaKernels(module, options.cuda.target.chip(), options.dumpIrDir));
  module->removeAttr(codegen::kCudaKernelsAttr);
  DeviceCode device{kernelImagesOf(std::move(kernels)), 0};
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
      [](mlir::Operation &op) { return op.hasAttr("dhlo.kernel"); });
}

StatusOr<std::string>
compileValidated(const v1::Graph &graph, const GraphInfo &info,
                 const CompileOptions &options, CompileReport *report,
                 std::chrono::steady_clock::time_point start,
                 std::optional<DeviceCode> *device) {
  bool cuda = options.backend == KernelBackend::kCuda;
  bool emulated = options.backend == KernelBackend::kCudaEmulated;
  LoweringRequest request;
  request.graph = &graph;
  request.info = &info;
  request.tensors = options.tensors;
  request.dumpIrDir = options.dumpIrDir;
  request.cudaDialects = emulated || cuda;
  if (report) {
    request.fusionPlan = &report->fusionPlan;
    request.kernelCount = &report->kernelCount;
  }
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
          codegen::buildCudaPipeline(pm, pipeline);
        } else {
          codegen::buildCpuPipeline(pm, options.pipeline);
        }
      },
      [&](mlir::ModuleOp module) -> Status {
        if (report) {
          using Seconds = std::chrono::duration<double>;
          report->pipelineSeconds =
              Seconds(std::chrono::steady_clock::now() - start).count();
          report->kernelFunctions = countKernelFunctions(module);
        }
        if (cuda) {
          ANYSHAPE_ASSIGN_OR_RETURN(*device, takeDeviceCode(module, options));
        }
        ANYSHAPE_ASSIGN_OR_RETURN(
            object, emitObjectCode(module, options.optLevel,
                                   options.pipeline.target, options.dumpIrDir));
        return Status::ok();
      }));
  return object;
}

} // namespace

StatusOr<CompiledObject>
Compiler::compileToObject(const v1::Graph &original,
                          const CompileOptions &options,
                          CompileReport *report) {
  auto start = std::chrono::steady_clock::now();
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
  std::optional<DeviceCode> device;
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::string object,
      compileValidated(graph, info, options, report, start, &device));
  ++compiles_;
  if (report) {
    using Seconds = std::chrono::duration<double>;
    auto done = std::chrono::steady_clock::now();
    report->seconds = Seconds(done - start).count();
    report->codegenSeconds = report->seconds - report->pipelineSeconds;
    report->linkSeconds = 0;
  }
  return CompiledObject{specialized ? std::move(*specialized) : original,
                        std::move(info), std::move(object), std::move(device)};
}

StatusOr<std::shared_ptr<Executable>>
Compiler::compile(const v1::Graph &graph, const CompileOptions &options,
                  CompileReport *report) {
  auto start = std::chrono::steady_clock::now();
  ANYSHAPE_ASSIGN_OR_RETURN(CompiledObject compiled,
                            compileToObject(graph, options, report));
  auto linkStart = std::chrono::steady_clock::now();
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::shared_ptr<Executable> executable,
      Executable::load(std::move(compiled.compiledGraph),
                       std::move(compiled.info), std::move(compiled.objectCode),
                       options.limits, std::move(compiled.device)));
  if (report) {
    using Seconds = std::chrono::duration<double>;
    auto done = std::chrono::steady_clock::now();
    report->seconds = Seconds(done - start).count();
    report->linkSeconds = Seconds(done - linkStart).count();
  }
  return executable;
}

} // namespace anyshape::jit

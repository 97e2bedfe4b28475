//===- CudaBackend.cpp - kernels for a CUDA device --------------*- C++ -*-===//
//
// The CUDA backend (Backend.h): codegen/CUDA's pipeline, whose host flow
// launches each fusion's kernels through runtime/cuda. The kernels leave
// the module as PTX (codegen::kCudaKernelsAttr), linked here into the
// chip's cubins (CudaKernels.h); emulated, the kernels stay host code
// that the host flow runs on this CPU.
//
//===----------------------------------------------------------------------===//
#include "compiler/Backend.h"
#include "compiler/CudaKernels.h"

#include "codegen/CUDA/Dialects.h"
#include "codegen/CUDA/Passes.h"

namespace anyshape::compiler {

namespace {

class CudaBackend final : public Backend {
public:
  CudaBackend(const codegen::CudaPipelineOptions &options, bool emulated,
              const codegen::CpuTarget &host)
      : options_(options), host_(host) {
    options_.emulate = emulated;
  }

  const char *pipelineName() const override {
    return options_.emulate ? "CUDA pipeline (emulated)" : "CUDA pipeline";
  }

  void registerDialects(mlir::DialectRegistry &registry) const override {
    codegen::registerCudaPipelineDialects(registry);
  }

  void buildPipeline(mlir::OpPassManager &pm,
                     dhlo::FormedFusionPlan *formed) const override {
    codegen::buildCudaPipeline(pm, options_, formed);
  }

  StatusOr<std::optional<jit::DeviceCode>>
  takeDeviceCode(mlir::ModuleOp module,
                 const std::string &dumpDir) const override {
    if (options_.emulate)
      return std::optional<jit::DeviceCode>();
    ANYSHAPE_ASSIGN_OR_RETURN(
        std::vector<CudaKernel> kernels,
        linkCudaKernels(module, options_.target.chip(), dumpDir));
    module->removeAttr(codegen::kCudaKernelsAttr);
    jit::DeviceCode device{kernelImagesOf(std::move(kernels)), 0};
    if (auto constants = module->getAttrOfType<mlir::IntegerAttr>(
            codegen::kCudaConstantsAttr))
      device.constants = constants.getInt();
    module->removeAttr(codegen::kCudaConstantsAttr);
    return std::optional<jit::DeviceCode>(std::move(device));
  }

  const codegen::CpuTarget &host() const override { return host_; }

private:
  codegen::CudaPipelineOptions options_;
  codegen::CpuTarget host_;
};

} // namespace

std::unique_ptr<Backend>
cudaBackend(const codegen::CudaPipelineOptions &options, bool emulated,
            const codegen::CpuTarget &host) {
  return std::make_unique<CudaBackend>(options, emulated, host);
}

} // namespace anyshape::compiler

//===- CpuBackend.cpp - kernels for this CPU --------------------*- C++ -*-===//
//
// The CPU backend (Backend.h): codegen/CPU's pipeline; every kernel is
// host code, so the object is the whole executable.
//
//===----------------------------------------------------------------------===//
#include "compiler/Backend.h"

#include "codegen/Common/Dialects.h"

namespace anyshape::compiler {

namespace {

class CpuBackend final : public Backend {
public:
  explicit CpuBackend(const codegen::CpuPipelineOptions &options)
      : options_(options) {}

  const char *pipelineName() const override { return "CPU pipeline"; }

  void registerDialects(mlir::DialectRegistry &registry) const override {
    codegen::registerHostPipelineDialects(registry);
  }

  void buildPipeline(mlir::OpPassManager &pm,
                     dhlo::FormedFusionPlan *formed) const override {
    codegen::buildCpuPipeline(pm, options_, formed);
  }

  const codegen::CpuTarget &host() const override { return options_.target; }

private:
  codegen::CpuPipelineOptions options_;
};

} // namespace

std::unique_ptr<Backend>
cpuBackend(const codegen::CpuPipelineOptions &options) {
  return std::make_unique<CpuBackend>(options);
}

} // namespace anyshape::compiler

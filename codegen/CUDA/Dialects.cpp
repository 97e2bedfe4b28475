//===- Dialects.cpp - what the CUDA pipeline needs registered ---*- C++ -*-===//
#include "codegen/CUDA/Dialects.h"

#include "codegen/Common/Dialects.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

namespace anyshape::codegen {

void registerCudaPipelineDialects(mlir::DialectRegistry &registry) {
  registerHostPipelineDialects(registry);
  registry.insert<mlir::gpu::GPUDialect, mlir::NVVM::NVVMDialect>();
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::registerGPUDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
}

} // namespace anyshape::codegen

//===- Dialects.h - what the CUDA pipeline needs registered -----*- C++ -*-===//
#pragma once

#include "mlir/IR/DialectRegistry.h"

namespace anyshape::codegen {

/// The CPU pipeline's dialects (its host lowering emulates the kernels)
/// plus gpu, NVVM, the NVVM target that serialises kernels to PTX, and
/// their LLVM translations.
void registerCudaPipelineDialects(mlir::DialectRegistry &registry);

} // namespace anyshape::codegen

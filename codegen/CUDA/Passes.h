//===- Passes.h - CUDA codegen passes ---------------------------*- C++ -*-===//
//
// Declarations of the CUDA target's own codegen passes (Passes.td).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/Common/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace anyshape::codegen {

#define GEN_PASS_DECL
#include "codegen/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/CUDA/Passes.h.inc"

} // namespace anyshape::codegen

//===- Passes.h - CPU codegen passes ----------------------------*- C++ -*-===//
//
// Declarations of the CPU's own codegen passes (Passes.td).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/Common/Passes.h"
#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"

namespace anyshape::codegen {

#define GEN_PASS_DECL
#include "codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/CPU/Passes.h.inc"

} // namespace anyshape::codegen

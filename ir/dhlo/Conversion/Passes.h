//===- Passes.h - dhlo conversions -------------------------------*- C++
//-*-===//
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace anyshape::dhlo {

#define GEN_PASS_DECL
#include "ir/dhlo/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ir/dhlo/Conversion/Passes.h.inc"

} // namespace anyshape::dhlo

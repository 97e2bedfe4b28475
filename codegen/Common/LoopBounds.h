//===- LoopBounds.h - trip counts of scf loops -------------------*- C++
//-*-===//
//
// The one owner of how many iterations a loop runs, which every target's
// schedules size their work by (codegen/CPU's chunked loops, codegen/CUDA's
// grids).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace anyshape::codegen {

/// max(ceil((upper - lower) / step), 0), as three ops that the
/// canonicalizer folds where the bounds are constants.
mlir::Value tripCount(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lower,
                      mlir::Value upper, mlir::Value step);
mlir::Value tripCount(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::scf::ForOp loop);

} // namespace anyshape::codegen

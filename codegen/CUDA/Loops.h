//===- Loops.h - what the GPU schedules read off scf loops --------*- C++
//-*-===//
//
// Shared by the schedules (MapKernelsToGpu.cpp, RowSchedule.cpp,
// ColumnSchedule.cpp): a nest's trip counts (each LoopBounds.h's), a flat
// index spread back over its dims, and the combine of a reduction loop.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/Common/LoopBounds.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace anyshape::codegen {

/// `loop`'s trip counts, one per dim, at `b`.
llvm::SmallVector<mlir::Value> tripCounts(mlir::OpBuilder &b,
                                          mlir::scf::ParallelOp loop);

/// The product of `trips` (null for none).
mlir::Value product(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::ValueRange trips);

/// Maps `loop`'s induction variables to the iteration `flat` numbers, last
/// dim fastest (`trips` from tripCounts); bounds looked up in `map`.
void mapFlatIteration(mlir::OpBuilder &b, mlir::scf::ParallelOp loop,
                      mlir::ValueRange trips, mlir::Value flat,
                      mlir::IRMapping &map);

/// The combining op of a reduction loop: the one use of its one iter_arg,
/// an associative combine (Reductions.h) whose result the loop yields;
/// null if `loop` is no such reduction.
mlir::Operation *reductionCombiner(mlir::scf::ForOp loop);

} // namespace anyshape::codegen

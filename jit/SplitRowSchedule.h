//===- SplitRowSchedule.h - rows shared among threads -----------*- C++ -*-===//
//
// The split-row version of a row-reduction kernel (anyshape-speculate-
// kernels). A kernel's parallel version gives each thread whole rows, so a
// kernel with fewer rows than threads leaves threads idle: a `[1, N]`
// softmax runs on one. The split-row version runs the rows one after
// another and shares each row among the threads instead: every loop over
// the row runs in parallel chunks, and a reduction folds each chunk into a
// partial result, then the partials into the accumulator, in chunk order.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseSet.h"

namespace anyshape::jit {

/// Whether `loop` is a reduction whose iterations may be split among
/// threads: its one accumulator is folded by one associative and
/// commutative op (floats: marked `reassoc`), and every store in it writes
/// an element indexed by the current iteration.
bool isSplittableReduction(mlir::scf::ForOp loop);

/// Builds `loop` (isSplittableReduction, its bounds and initial value
/// defined before `b`'s insertion point) at that point as a parallel loop
/// over chunks and a fold of their partials; returns the folded result.
mlir::Value buildSplitReduction(mlir::OpBuilder &b, mlir::scf::ForOp loop);

/// Whether `kernel` (an outermost scf.parallel without results) has a
/// split-row version: every loop directly in its body runs over bounds
/// defined before the kernel and is either an elementwise row loop (an
/// scf.for in `elementwiseRowLoops`, each iteration independent) or a
/// splittable reduction, with at least one reduction; no other op in the
/// body has regions.
bool canSplitRows(mlir::scf::ParallelOp kernel,
                  const llvm::DenseSet<mlir::Operation *> &elementwiseRowLoops);

/// Builds the split-row version of `kernel` (canSplitRows holds) at `b`'s
/// insertion point: an scf.for nest over its rows whose row loops are
/// scf.parallel loops over chunks of the row.
void buildSplitRowNest(
    mlir::OpBuilder &b, mlir::scf::ParallelOp kernel,
    const llvm::DenseSet<mlir::Operation *> &elementwiseRowLoops);

} // namespace anyshape::jit

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

namespace anyshape::codegen {

/// Whether `op` folds two values associatively and commutatively (floats:
/// only when marked `reassoc`), so partial folds may be combined in any
/// grouping and order.
bool isAssociativeFold(mlir::Operation *op);

/// Whether `loop` is a reduction whose iterations may be split among
/// threads: its one accumulator is folded by one associative and
/// commutative op (floats: marked `reassoc`), and every store in it writes
/// an element indexed by the current iteration.
bool isSplittableReduction(mlir::scf::ForOp loop);

/// Builds `loop` (isSplittableReduction, its bounds and initial value
/// defined before `b`'s insertion point) at that point as a parallel loop
/// over chunks and a fold of their partials; returns the folded result.
mlir::Value buildSplitReduction(mlir::OpBuilder &b, mlir::scf::ForOp loop);

/// What the loops directly in a kernel's body do, as known before the
/// parallel loops nested in it became scf.for nests.
struct RowLoops {
  /// Elementwise over the row (were scf.parallel): iterations independent.
  llvm::DenseSet<mlir::Operation *> elementwise;
  /// Reductions over a middle dim: a loop over the reduced dim whose body
  /// was a parallel loop over columns sharing no element (ColumnSchedule.h).
  llvm::DenseSet<mlir::Operation *> columns;
};

/// Whether `kernel` (an outermost scf.parallel without results) has a
/// split-row version: every loop directly in its body runs over bounds
/// defined before the kernel and is an elementwise or column loop of
/// `rowLoops` or a splittable reduction, with at least one reduction; no
/// other op in the body has regions.
bool canSplitRows(mlir::scf::ParallelOp kernel, const RowLoops &rowLoops);

/// Builds the split-row version of `kernel` (canSplitRows holds) at `b`'s
/// insertion point: an scf.for nest over its rows whose row loops are
/// scf.parallel loops over chunks of the row. A column loop that
/// accumulates with one fold gives each of the `threads` a block of its
/// reduced indices, folded into private partials (ColumnSchedule.h), when
/// those have at most `maxColumnPartials` elements; otherwise the threads
/// share chunks of its columns, each running every reduced index.
void buildSplitRowNest(mlir::OpBuilder &b, mlir::scf::ParallelOp kernel,
                       const RowLoops &rowLoops, mlir::Value threads,
                       int64_t maxColumnPartials);

} // namespace anyshape::codegen

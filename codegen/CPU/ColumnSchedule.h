//===- ColumnSchedule.h - column reductions over threads --------*- C++ -*-===//
//
// The parallel version of a kernel whose reduced dims come before its
// parallel ones (a column reduction: `for i { parallel j { acc[j] +=
// x[i, j] } }`, as linalg lowers it). Versioned like the others, only its
// inner loop would be a kernel: an OpenMP region per row, or, below the
// work threshold, a serial whole. Instead, the columns are cut into chunks
// that the threads share, and each chunk runs every row: `parallel jj {
// for i { for j in chunk(jj) } }`, the chunk's accumulators staying in
// cache while rows stream through (anyshape-speculate-kernels). When the
// columns accumulate with one fold, the rows can be shared instead: each
// thread folds a block of rows into private partials, reading its rows
// sequentially, and the partials are folded into the result after.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <optional>

namespace anyshape::codegen {

/// The scf.parallel that `outer` (an scf.for without results) consists of,
/// when its iterations may run in the other order: the loop body's only
/// op is that parallel loop, and every buffer the parallel loop writes is
/// accessed at one list of indices, holding each of its induction
/// variables, so no two columns share an element. Null otherwise.
mlir::scf::ParallelOp columnsOf(mlir::scf::ForOp outer);

/// Columns per chunk when `columns` columns are shared among threads: a
/// quarter of them rounded up to whole vector iterations (64), from 64 to
/// 1024 (4 KiB of f32 accumulators, which stay in L1).
mlir::Value columnChunkLength(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value columns);

/// Builds at `b`'s insertion point the parallel version of `outer` (whose
/// columnsOf is `columns`): a parallel loop over the outer dims of
/// `columns` and chunks (columnChunkLength) of its innermost dim, each
/// running `outer`'s iterations over the chunk.
void buildColumnChunkNest(mlir::OpBuilder &b, mlir::scf::ForOp outer,
                          mlir::scf::ParallelOp columns);

/// The loops over the columns of a column reduction: a parallel loop, or
/// (a kernel's member, once its nested loops became serial) one scf.for;
/// their body, induction variables and upper bounds. Only for lower
/// bounds 0 and steps 1 (columnNestOf is nullopt otherwise).
struct ColumnNest {
  mlir::Block *body;
  llvm::SmallVector<mlir::Value> ivs, uppers;
};
std::optional<ColumnNest> columnNestOf(mlir::scf::ParallelOp columns);
std::optional<ColumnNest> columnNestOf(mlir::scf::ForOp columns);

/// A column reduction that accumulates in memory: the one buffer its
/// columns write is loaded once and stored once per iteration, at the
/// same indices (each induction variable, and constants), with
/// `fold(load, element)` of an associative fold (SplitRowSchedule.h).
struct ColumnFold {
  mlir::memref::LoadOp load;
  mlir::Operation *fold;
  mlir::memref::StoreOp store;
  mlir::Value element;
};
std::optional<ColumnFold> columnFoldOf(const ColumnNest &columns);

/// Opens `scf.if (blocks * columns <= maxPartials)` at `b`, blocks being
/// min(threads, rows): leaves `b` in its then-branch, where the row-block
/// version goes, and returns the block count and the else-branch's
/// terminator, before which the other version goes.
struct RowBlockChoice {
  mlir::Value blocks;
  mlir::Operation *otherwise;
};
RowBlockChoice beginRowBlocks(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value rows, const ColumnNest &columns,
                              mlir::Value threads, int64_t maxPartials,
                              const mlir::IRMapping &outside);

/// Builds at `b`'s insertion point the row-block version of `outer` (a
/// loop over rows around `columns`, with `fold`): the rows are cut into
/// `blocks` contiguous blocks (1 <= blocks <= rows), one per thread, each
/// folding its rows into a private row of partials (its first row
/// copied), read sequentially; then each column folds the blocks'
/// partials into the buffer, in block order. `outside` maps values from
/// around `outer` to those at `b` (identity for a kernel of its own).
void buildRowBlockNest(mlir::OpBuilder &b, mlir::scf::ForOp outer,
                       const ColumnNest &columns, ColumnFold fold,
                       mlir::Value blocks, const mlir::IRMapping &outside);

} // namespace anyshape::codegen

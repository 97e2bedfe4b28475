//===- RowSchedule.h - rows shared by a warp or a block ----------*- C++
//-*-===//
//
// DISC's two schedules for row reductions and the stitched kernels built
// on them (softmax, layer norm): one warp per row for short rows, one
// block per row for long rows. The threads of the warp or block stride
// over the row: each reduction loop becomes a partial per thread and a
// gpu.subgroup_reduce or gpu.all_reduce, each elementwise loop over the
// row a strided loop; what the row body stores once (its reduced
// scalars) lane 0 stores. The third version, one row per thread, is the
// grid-stride schedule every parallel loop has (MapKernelsToGpu.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace anyshape::codegen {

/// Forwards, in a loop body, each scalar load from the last store to the
/// same memref at the same indices when nothing in between may write that
/// buffer (loads in nested loops that do not write it included): the
/// reduced values a stitched row stores and reads back. The column
/// schedule uses it too.
void forwardScalars(mlir::Block &body);

/// Whether the rows of `rows` (a fusion's top-level parallel loop) can be
/// shared by the threads of a warp or a block. First forwards the row
/// body's scalars from their stores to their loads (the reduced values a
/// stitched row stores and reads back), which changes `rows` but not what
/// it computes. No when the body holds no contiguous reduction loop, an
/// op the schedules do not know, or a buffer two threads would share.
bool prepareSharedRows(mlir::scf::ParallelOp rows);

/// How many elements a reduction of `loop`'s body folds (a row's length,
/// or a column's): the trip count of its first reduction loop, computed
/// at `b`'s insertion point (host code).
mlir::Value reductionLength(mlir::OpBuilder &b, mlir::scf::ParallelOp loop);

/// The number of rows (the product of `rows`' trip counts), at `b`.
mlir::Value rowCount(mlir::OpBuilder &b, mlir::scf::ParallelOp rows);

/// A launch, at `b`, running `rows` (prepared) one row per warp of 32
/// lanes (`warpsPerBlock` warps a block) or one row per block of
/// `blockSize` threads. `rows` is left in place. Launched only for at
/// least one row.
void buildSharedRowLaunch(mlir::OpBuilder &b, mlir::scf::ParallelOp rows,
                          bool perWarp, int64_t blockSize,
                          int64_t warpsPerBlock);

} // namespace anyshape::codegen

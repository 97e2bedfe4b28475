//===- ColumnSchedule.h - column reductions in shared-memory tiles -*- C++
//-*-===//
//
// A column reduction (a reduction over a dim that is not the last, as
// x.sum(0) of a row-major [rows, cols]) in tiles of 32 columns by 8 row
// slices: a block's thread (x, y) folds rows y, y + 8, ... of column
// tile * 32 + x, reading 32 neighbouring columns of a row per warp
// (coalesced), puts its partial in the block's shared memory, and after a
// barrier every thread folds its column's 8 partials. Eight times the
// threads of one column per thread, for the same coalesced reads. The
// grid-stride version (a column per thread) stays for what the tiles do
// not cover (MapKernelsToGpu.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace anyshape::codegen {

/// Tile shape: columns a block covers (a warp's width, so its loads are
/// one row's neighbouring elements) and the row slices that share them.
inline constexpr int64_t kTileColumns = 32;
inline constexpr int64_t kTileRows = 8;

/// Whether `columns` (a fusion's top-level parallel loop) is a column
/// kernel the tiles run: after its scalars are forwarded, its body holds
/// only views and arithmetic, scalar loads of buffers it does not write,
/// scalar stores, and reduction loops that write nothing and read along
/// another dim than the last while `columns`' last dim indexes the last.
bool prepareColumnTiles(mlir::scf::ParallelOp columns);

/// The number of tiles, a block each, at `b`.
mlir::Value columnTileCount(mlir::OpBuilder &b, mlir::scf::ParallelOp columns);

/// A launch, at `b`, running `columns` (prepared) in tiles; `columns` is
/// left in place.
void buildColumnTileLaunch(mlir::OpBuilder &b, mlir::scf::ParallelOp columns);

} // namespace anyshape::codegen

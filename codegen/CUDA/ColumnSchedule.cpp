//===- ColumnSchedule.cpp - column reductions in shared-memory tiles -*- C++
//-*-===//
//
// See ColumnSchedule.h. Threads past the last column (the last tile's
// spare columns) run empty loops and store nothing, but still reach every
// barrier: a barrier is at the top level of the launch body, where every
// thread of the block reaches it.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/ColumnSchedule.h"

#include "codegen/CUDA/Loops.h"
#include "codegen/CUDA/Reductions.h"
#include "codegen/CUDA/RowSchedule.h"
#include "codegen/Common/BufferRoots.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace anyshape::codegen {

namespace {

/// Whether some load in `loop` indexes its last dim with `column` and
/// none with the loop's own induction variable there.
bool readsAcrossRows(scf::ForOp loop, Value column) {
  bool coalesced = false, alongRow = false;
  loop.getBody()->walk([&](memref::LoadOp load) {
    ValueRange indices = load.getIndices();
    if (indices.empty())
      return;
    coalesced |= indices.back() == column;
    alongRow |= indices.back() == loop.getInductionVar();
  });
  return coalesced && !alongRow;
}

} // namespace

bool prepareColumnTiles(scf::ParallelOp columns) {
  if (columns.getNumResults() != 0)
    return false;
  Block &body = *columns.getBody();
  forwardScalars(body);
  Value column = columns.getInductionVars().back();
  // Buffers the body stores (at its top level: lane 0's scalars) and
  // where it reads them: only at the top level before the first
  // reduction loop, whose barrier orders those reads before the stores
  // (the column's accumulator, filled by an earlier launch, is read as
  // the init and stored as the result).
  SmallVector<Value> stored, readEarly, readLate;
  bool reduces = false;
  for (Operation &op : body.without_terminator()) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      if (!reduces)
        return false; // stored before the barrier orders it
      stored.push_back(rootBuffer(store.getMemref()));
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      (reduces ? readLate : readEarly).push_back(rootBuffer(load.getMemref()));
      continue;
    }
    if (isMemoryEffectFree(&op))
      continue;
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop || !reductionCombiner(loop) || !readsAcrossRows(loop, column))
      return false;
    bool writes = false;
    loop.getBody()->walk([&](Operation *nested) {
      if (auto load = dyn_cast<memref::LoadOp>(nested))
        readLate.push_back(rootBuffer(load.getMemref()));
      else if (!isMemoryEffectFree(nested) &&
               !isa<scf::ForOp, scf::YieldOp>(nested))
        writes = true;
    });
    if (writes)
      return false;
    reduces = true;
  }
  for (Value root : stored)
    if (llvm::is_contained(readLate, root))
      return false;
  return reduces;
}

Value columnTileCount(OpBuilder &b, scf::ParallelOp columns) {
  Location loc = columns.getLoc();
  SmallVector<Value> trips = tripCounts(b, columns);
  trips.back() = b.createOrFold<arith::CeilDivSIOp>(
      loc, trips.back(), b.create<arith::ConstantIndexOp>(loc, kTileColumns));
  return product(b, loc, trips);
}

void buildColumnTileLaunch(OpBuilder &b, scf::ParallelOp columns) {
  Location loc = columns.getLoc();
  auto constant = [&](int64_t v) {
    return b.create<arith::ConstantIndexOp>(loc, v).getResult();
  };
  Block &body = *columns.getBody();
  // One tile of partials in shared memory per reduction loop.
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  SmallVector<Type> tiles;
  for (Operation &op : body.without_terminator())
    if (auto loop = dyn_cast<scf::ForOp>(op))
      tiles.push_back(MemRefType::get({kTileColumns * kTileRows},
                                      loop.getResult(0).getType(),
                                      MemRefLayoutAttrInterface(), workgroup));
  SmallVector<Value> trips = tripCounts(b, columns);
  Value columnCount = trips.back();
  Value tilesPerRow = b.createOrFold<arith::CeilDivSIOp>(
      loc, columnCount, constant(kTileColumns));
  SmallVector<Value> outer(trips.begin(), trips.end() - 1);
  Value blocks = outer.empty() ? tilesPerRow
                               : b.createOrFold<arith::MulIOp>(
                                     loc, product(b, loc, outer), tilesPerRow);
  Value one = constant(1);
  auto launch = b.create<gpu::LaunchOp>(
      loc, blocks, one, one, constant(kTileColumns), constant(kTileRows), one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      ValueRange{}, tiles);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value bid = launch.getBlockIds().x;
  Value x = launch.getThreadIds().x, y = launch.getThreadIds().y;
  Value tile = b.create<arith::RemUIOp>(loc, bid, tilesPerRow);
  Value column = b.create<arith::AddIOp>(
      loc, b.create<arith::MulIOp>(loc, tile, constant(kTileColumns)), x);
  Value valid = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, column,
                                        columnCount);
  column = b.create<arith::SelectOp>(loc, valid, column, constant(0));
  // The outer dims (all but the last) number the rows of tiles; the last
  // dim is the column.
  IRMapping map;
  Value rest = b.create<arith::DivUIOp>(loc, bid, tilesPerRow);
  int64_t dims = columns.getNumLoops();
  auto ivOf = [&](int64_t d, Value index) {
    Value iv = b.create<arith::AddIOp>(
        loc, columns.getLowerBound()[d],
        b.create<arith::MulIOp>(loc, index, columns.getStep()[d]));
    map.map(columns.getInductionVars()[d], iv);
  };
  ivOf(dims - 1, column);
  for (int64_t d = dims - 2; d >= 0; --d) {
    Value index = d == 0 ? rest : b.create<arith::RemUIOp>(loc, rest, trips[d]);
    if (d > 0)
      rest = b.create<arith::DivUIOp>(loc, rest, trips[d]);
    ivOf(d, index);
  }
  Value slot = b.create<arith::AddIOp>(
      loc, b.create<arith::MulIOp>(loc, y, constant(kTileColumns)), x);
  Value first =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, y, constant(0));
  Value owner = b.create<arith::AndIOp>(loc, first, valid);
  unsigned nextTile = 0;
  for (Operation &op : body.without_terminator()) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      auto guard = b.create<scf::IfOp>(loc, owner, /*withElse=*/false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(guard.thenBlock());
      b.clone(op, map);
      continue;
    }
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop) {
      b.clone(op, map);
      continue;
    }
    // Rows y, y + 8, ... of the column; the partial into the tile; after
    // the barrier, the column's 8 partials folded, then the loop's init.
    gpu::AllReduceOperation kind = *reductionKindOf(reductionCombiner(loop));
    Value init = map.lookupOrDefault(loop.getInitArgs()[0]);
    Type type = init.getType();
    Value partial =
        buildStridedPartial(b, loop, map, y, constant(kTileRows), valid);
    Value tileBuffer = launch.getWorkgroupAttributions()[nextTile++];
    b.create<memref::StoreOp>(loc, partial, tileBuffer, slot);
    b.create<gpu::BarrierOp>(loc);
    auto fold = b.create<scf::ForOp>(loc, constant(0), constant(kTileRows), one,
                                     reductionIdentity(b, loc, kind, type));
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(fold.getBody());
      Value at = b.create<arith::AddIOp>(
          loc,
          b.create<arith::MulIOp>(loc, fold.getInductionVar(),
                                  constant(kTileColumns)),
          x);
      Value v = b.create<memref::LoadOp>(loc, tileBuffer, at);
      b.create<scf::YieldOp>(
          loc, combineValues(b, loc, kind, fold.getRegionIterArgs()[0], v));
    }
    map.map(loop.getResult(0),
            combineValues(b, loc, kind, init, fold.getResult(0)));
  }
  b.create<gpu::TerminatorOp>(loc);
}

} // namespace anyshape::codegen

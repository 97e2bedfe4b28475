//===- RowSchedule.cpp - rows shared by a warp or a block --------*- C++
//-*-===//
//
// See RowSchedule.h. A row body, after linalg's loops and promoted
// accumulators, is a straight sequence of
//   - ops without memory effects (views of the row, index arithmetic),
//   - scalar stores and loads (an accumulator's init, a reduced value
//     stored and read back by the next loop), forwarded here first,
//   - reduction loops over the row: `scf.for` with one iter_arg that one
//     associative combine (Reductions.h) folds in,
//   - elementwise loops over the row: nested `scf.parallel`.
// Shared, each loop runs its iterations j = lane, lane + width, ... in
// every thread of the group; a buffer written by one loop and read by
// another (the stitched row's intermediate) stays private to a thread as
// long as every access uses the same index at the loop's dim, which
// prepareSharedRows checks.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/RowSchedule.h"

#include "codegen/CUDA/Loops.h"
#include "codegen/CUDA/Reductions.h"
#include "codegen/Common/BufferRoots.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace anyshape::codegen {

namespace {

/// Whether `loop` reads the row contiguously: some load indexes its last
/// dim with the loop's induction variable (a column reduction does not,
/// and keeps one column per thread, which reads coalesced).
bool readsContiguously(scf::ForOp loop) {
  bool contiguous = false;
  loop.getBody()->walk([&](memref::LoadOp load) {
    ValueRange indices = load.getIndices();
    contiguous |= !indices.empty() && indices.back() == loop.getInductionVar();
  });
  return contiguous;
}

/// One load or store of the row body, and the loop of the row it is in.
struct Access {
  Operation *op;
  Value memref;
  ValueRange indices;
  Operation *pieceLoop; ///< null at the row body's top level
};

Operation *pieceLoopOf(Operation *op, Block &rowBody) {
  while (op->getBlock() != &rowBody)
    op = op->getParentOp();
  return isa<scf::ForOp, scf::ParallelOp>(op) ? op : nullptr;
}

/// The piece loop's induction variable along which it is shared (a
/// reduction loop's, or a 1-D nested parallel loop's); null otherwise.
Value sharedInductionVar(Operation *loop) {
  if (auto forOp = dyn_cast<scf::ForOp>(loop))
    return forOp.getInductionVar();
  auto parallel = cast<scf::ParallelOp>(loop);
  return parallel.getNumLoops() == 1 ? parallel.getInductionVars()[0] : Value();
}

} // namespace

/// Forwards, in the row body, each scalar load from the last store to the
/// same memref at the same indices, when nothing in between may write
/// that buffer; loads in nested loops that do not write it included.
void forwardScalars(Block &rowBody) {
  struct Stored {
    Value memref;
    SmallVector<Value> indices;
    Value value;
  };
  SmallVector<Stored> stored;
  auto invalidate = [&](Value root) {
    llvm::erase_if(
        stored, [&](const Stored &s) { return rootBuffer(s.memref) == root; });
  };
  auto match = [&](memref::LoadOp load) -> Value {
    for (const Stored &s : stored)
      if (s.memref == load.getMemref() &&
          llvm::equal(s.indices, load.getIndices()))
        return s.value;
    return {};
  };
  for (Operation &op : llvm::make_early_inc_range(rowBody)) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      invalidate(rootBuffer(store.getMemref()));
      stored.push_back({store.getMemref(),
                        SmallVector<Value>(store.getIndices()),
                        store.getValueToStore()});
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (Value value = match(load)) {
        load.getResult().replaceAllUsesWith(value);
        load.erase();
      }
      continue;
    }
    if (op.getNumRegions() == 0)
      continue;
    // A nested loop: what it writes is no longer known; what it only
    // reads is forwarded into it.
    op.walk([&](memref::StoreOp store) {
      invalidate(rootBuffer(store.getMemref()));
    });
    op.walk([&](memref::LoadOp load) {
      if (Value value = match(load)) {
        load.getResult().replaceAllUsesWith(value);
        load.erase();
      }
    });
  }
}

bool prepareSharedRows(scf::ParallelOp rows) {
  if (rows.getNumResults() != 0)
    return false;
  Block &body = *rows.getBody();
  forwardScalars(body);
  bool reduces = false;
  for (Operation &op : body.without_terminator()) {
    if (isa<memref::StoreOp, memref::LoadOp, scf::ParallelOp>(op) ||
        isMemoryEffectFree(&op))
      continue;
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop || !reductionCombiner(loop) || !readsContiguously(loop))
      return false;
    reduces = true;
  }
  if (!reduces)
    return false;
  // Every buffer the row body writes: who else touches it.
  SmallVector<Access> accesses;
  body.walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      accesses.push_back(
          {op, load.getMemref(), load.getIndices(), pieceLoopOf(op, body)});
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      accesses.push_back(
          {op, store.getMemref(), store.getIndices(), pieceLoopOf(op, body)});
    else if (op->getBlock() != &body && !isMemoryEffectFree(op) &&
             !isa<scf::ForOp, scf::ParallelOp, scf::YieldOp, scf::ReduceOp>(op))
      accesses.push_back({op, Value(), {}, nullptr}); // unknown effects
  });
  for (const Access &a : accesses)
    if (!a.memref)
      return false;
  for (const Access &write : accesses) {
    if (!isa<memref::StoreOp>(write.op))
      continue;
    Value root = rootBuffer(write.memref);
    for (const Access &other : accesses) {
      if (other.op == write.op || rootBuffer(other.memref) != root)
        continue;
      // A top-level store: lane 0 writes it, and after forwarding nothing
      // may read it back in the row.
      if (!write.pieceLoop || !other.pieceLoop) {
        if (isa<memref::LoadOp>(other.op))
          return false;
        continue;
      }
      // Inside loops: the same view, the same indices but for each loop's
      // shared dim, which must be at the same position, with the same
      // bounds' start and step.
      Value writeIv = sharedInductionVar(write.pieceLoop);
      Value otherIv = sharedInductionVar(other.pieceLoop);
      if (!writeIv || !otherIv || write.memref != other.memref ||
          write.indices.size() != other.indices.size())
        return false;
      for (auto [w, o] : llvm::zip(write.indices, other.indices))
        if ((w == writeIv) != (o == otherIv) || (w != writeIv && w != o))
          return false;
      auto startAndStep = [](Operation *loop) {
        if (auto f = dyn_cast<scf::ForOp>(loop))
          return std::pair{f.getLowerBound(), f.getStep()};
        auto p = cast<scf::ParallelOp>(loop);
        return std::pair{p.getLowerBound()[0], p.getStep()[0]};
      };
      auto [wl, ws] = startAndStep(write.pieceLoop);
      auto [ol, os] = startAndStep(other.pieceLoop);
      if (!isEqualConstantIntOrValue(wl, ol) ||
          !isEqualConstantIntOrValue(ws, os))
        return false;
    }
  }
  return true;
}

namespace {

scf::ForOp firstReduction(scf::ParallelOp rows) {
  for (Operation &op : rows.getBody()->without_terminator())
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return loop;
  return {};
}

} // namespace

Value reductionLength(OpBuilder &b, scf::ParallelOp rows) {
  scf::ForOp loop = firstReduction(rows);
  Location loc = loop.getLoc();
  // The bounds are defined outside the row (linalg's loops are over the
  // row's full extent), so they are available in the host flow.
  return tripCount(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                   loop.getStep());
}

Value rowCount(OpBuilder &b, scf::ParallelOp rows) {
  return product(b, rows.getLoc(), tripCounts(b, rows));
}

namespace {

/// Builds one thread's part of a row: the row body with its loops strided
/// by `width` from `lane`, run only where `valid`.
class SharedRowBuilder {
public:
  SharedRowBuilder(OpBuilder &b, Location loc, Value lane, Value width,
                   Value valid, bool perWarp)
      : b(b), loc(loc), lane(lane), width(width), valid(valid),
        perWarp(perWarp) {}

  void build(Block &rowBody, IRMapping &map) {
    for (Operation &op : rowBody.without_terminator()) {
      if (auto store = dyn_cast<memref::StoreOp>(op))
        storeOnce(store, map);
      else if (auto loop = dyn_cast<scf::ForOp>(op))
        reduce(loop, map);
      else if (auto loop = dyn_cast<scf::ParallelOp>(op))
        elementwise(loop, map);
      else
        b.clone(op, map);
    }
  }

private:
  Value zero() { return b.create<arith::ConstantIndexOp>(loc, 0); }

  /// The row body's scalar stores: by lane 0 of a valid row.
  void storeOnce(memref::StoreOp store, IRMapping &map) {
    Value first =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, lane, zero());
    Value owner = b.create<arith::AndIOp>(loc, first, valid);
    auto guard = b.create<scf::IfOp>(loc, owner, /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(guard.thenBlock());
    b.clone(*store, map);
  }

  /// j = lb + lane * step, stepping step * width, up to ub (lb if not
  /// valid: an idle thread runs nothing and reduces the identity).
  std::tuple<Value, Value, Value> strided(Value lb, Value ub, Value step) {
    Value start = b.create<arith::AddIOp>(
        loc, lb, b.create<arith::MulIOp>(loc, lane, step));
    Value stride = b.create<arith::MulIOp>(loc, step, width);
    Value end = b.create<arith::SelectOp>(loc, valid, ub, lb);
    return {start, end, stride};
  }

  /// A partial per thread, then the collective, then the loop's init.
  void reduce(scf::ForOp loop, IRMapping &map) {
    gpu::AllReduceOperation kind = *reductionKindOf(reductionCombiner(loop));
    Value init = map.lookupOrDefault(loop.getInitArgs()[0]);
    Value partial = buildStridedPartial(b, loop, map, lane, width, valid);
    Value shared =
        perWarp ? b.create<gpu::SubgroupReduceOp>(loc, partial, kind,
                                                  /*uniform=*/true)
                      .getResult()
                : b.create<gpu::AllReduceOp>(
                       loc, partial,
                       gpu::AllReduceOperationAttr::get(b.getContext(), kind),
                       /*uniform=*/true)
                      .getResult();
    map.map(loop.getResult(0), combineValues(b, loc, kind, init, shared));
  }

  /// The flattened iterations, strided (a 1-D loop keeps its own dim, so a
  /// buffer its thread wrote in a reduction loop is the one it reads).
  void elementwise(scf::ParallelOp loop, IRMapping &map) {
    SmallVector<Value> trips;
    for (auto [lb, ub, step] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
      trips.push_back(tripCount(b, loc, map.lookupOrDefault(lb),
                                map.lookupOrDefault(ub),
                                map.lookupOrDefault(step)));
    Value one = b.create<arith::ConstantIndexOp>(loc, 1);
    auto [start, end, stride] = strided(zero(), product(b, loc, trips), one);
    auto flat = b.create<scf::ForOp>(loc, start, end, stride);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(flat.getBody()->getTerminator());
    mapFlatIteration(b, loop, trips, flat.getInductionVar(), map);
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, map);
  }

  OpBuilder &b;
  Location loc;
  Value lane, width, valid;
  bool perWarp;
};

} // namespace

void buildSharedRowLaunch(OpBuilder &b, scf::ParallelOp rows, bool perWarp,
                          int64_t blockSize, int64_t warpsPerBlock) {
  Location loc = rows.getLoc();
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  Value count = rowCount(b, rows);
  int64_t rowsPerBlock = perWarp ? warpsPerBlock : 1;
  Value threads = b.create<arith::ConstantIndexOp>(
      loc, perWarp ? 32 * warpsPerBlock : blockSize);
  Value blocks = b.createOrFold<arith::CeilDivSIOp>(
      loc, count, b.create<arith::ConstantIndexOp>(loc, rowsPerBlock));
  auto launch =
      b.create<gpu::LaunchOp>(loc, blocks, one, one, threads, one, one);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value bid = launch.getBlockIds().x, tid = launch.getThreadIds().x;
  Value row = bid, lane = tid, width = launch.getBlockSize().x;
  if (perWarp) {
    Value warpSize = b.create<arith::ConstantIndexOp>(loc, 32);
    row = b.create<arith::AddIOp>(
        loc,
        b.create<arith::MulIOp>(
            loc, bid, b.create<arith::ConstantIndexOp>(loc, rowsPerBlock)),
        b.create<arith::DivUIOp>(loc, tid, warpSize));
    lane = b.create<arith::RemUIOp>(loc, tid, warpSize);
    width = warpSize;
  }
  // Past the last row a warp idles (the last block's spare warps): it
  // reads row 0, which exists, runs no loop and stores nothing.
  Value valid =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, row, count);
  row = b.create<arith::SelectOp>(loc, valid, row,
                                  b.create<arith::ConstantIndexOp>(loc, 0));
  IRMapping map;
  mapFlatIteration(b, rows, tripCounts(b, rows), row, map);
  SharedRowBuilder(b, loc, lane, width, valid, perWarp)
      .build(*rows.getBody(), map);
  b.create<gpu::TerminatorOp>(loc);
}

} // namespace anyshape::codegen

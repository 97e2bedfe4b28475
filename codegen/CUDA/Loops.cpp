//===- Loops.cpp - what the GPU schedules read off scf loops ----*- C++ -*-===//
#include "codegen/CUDA/Loops.h"

#include "codegen/CUDA/Reductions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace anyshape::codegen {

SmallVector<Value> tripCounts(OpBuilder &b, scf::ParallelOp loop) {
  SmallVector<Value> trips;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
    trips.push_back(tripCount(b, loop.getLoc(), lb, ub, step));
  return trips;
}

Value product(OpBuilder &b, Location loc, ValueRange trips) {
  Value total;
  for (Value trip : trips)
    total = total ? b.createOrFold<arith::MulIOp>(loc, total, trip) : trip;
  return total;
}

void mapFlatIteration(OpBuilder &b, scf::ParallelOp loop, ValueRange trips,
                      Value flat, IRMapping &map) {
  Location loc = loop.getLoc();
  Value rest = flat;
  for (int d = static_cast<int>(trips.size()) - 1; d >= 0; --d) {
    Value index = d == 0 ? rest : b.create<arith::RemUIOp>(loc, rest, trips[d]);
    if (d > 0)
      rest = b.create<arith::DivUIOp>(loc, rest, trips[d]);
    Value lb = map.lookupOrDefault(loop.getLowerBound()[d]);
    Value step = map.lookupOrDefault(loop.getStep()[d]);
    Value iv = getConstantIntValue(step) == 1
                   ? index
                   : b.create<arith::MulIOp>(loc, index, step).getResult();
    if (getConstantIntValue(lb) != 0)
      iv = b.create<arith::AddIOp>(loc, lb, iv);
    map.map(loop.getInductionVars()[d], iv);
  }
}

GridStrideLaunch buildGridStrideLaunch(OpBuilder &b, Location loc, Value count,
                                       int64_t blockSize, int64_t maxBlocks) {
  auto constant = [&](int64_t v) {
    return b.create<arith::ConstantIndexOp>(loc, v).getResult();
  };
  Value threads = constant(blockSize), one = constant(1);
  Value blocks = b.createOrFold<arith::CeilDivSIOp>(loc, count, threads);
  blocks = b.createOrFold<arith::MinSIOp>(loc, blocks, constant(maxBlocks));
  blocks = b.createOrFold<arith::MaxSIOp>(loc, blocks, one);
  auto launch =
      b.create<gpu::LaunchOp>(loc, blocks, one, one, threads, one, one);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value first = b.create<arith::AddIOp>(
      loc,
      b.create<arith::MulIOp>(loc, launch.getBlockIds().x,
                              launch.getBlockSize().x),
      launch.getThreadIds().x);
  Value stride = b.create<arith::MulIOp>(loc, launch.getGridSize().x,
                                         launch.getBlockSize().x);
  auto loop = b.create<scf::ForOp>(loc, first, count, stride);
  b.create<gpu::TerminatorOp>(loc);
  return {launch, loop};
}

Value buildStridedPartial(OpBuilder &b, scf::ForOp loop, IRMapping &map,
                          Value lane, Value width, Value valid) {
  Location loc = loop.getLoc();
  gpu::AllReduceOperation kind = *reductionKindOf(reductionCombiner(loop));
  Value lb = map.lookupOrDefault(loop.getLowerBound());
  Value ub = map.lookupOrDefault(loop.getUpperBound());
  Value step = map.lookupOrDefault(loop.getStep());
  Value start = b.create<arith::AddIOp>(
      loc, lb, b.create<arith::MulIOp>(loc, lane, step));
  Value stride = b.create<arith::MulIOp>(loc, step, width);
  Value end = b.create<arith::SelectOp>(loc, valid, ub, lb);
  Value identity =
      reductionIdentity(b, loc, kind, loop.getRegionIterArgs()[0].getType());
  auto partial = b.create<scf::ForOp>(loc, start, end, stride, identity);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(partial.getBody());
  map.map(loop.getInductionVar(), partial.getInductionVar());
  map.map(loop.getRegionIterArgs()[0], partial.getRegionIterArgs()[0]);
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
  b.create<scf::YieldOp>(
      loc, map.lookup(loop.getBody()->getTerminator()->getOperand(0)));
  return partial.getResult(0);
}

Operation *reductionCombiner(scf::ForOp loop) {
  if (loop.getNumRegionIterArgs() != 1 || loop.getNumResults() != 1)
    return nullptr;
  Value acc = loop.getRegionIterArgs()[0];
  if (!acc.hasOneUse())
    return nullptr;
  Operation *combiner = *acc.getUsers().begin();
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  if (combiner->getNumResults() != 1 || combiner->getNumOperands() != 2 ||
      yield.getOperand(0) != combiner->getResult(0) ||
      combiner->getBlock() != loop.getBody() || !reductionKindOf(combiner))
    return nullptr;
  return combiner;
}

} // namespace anyshape::codegen

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

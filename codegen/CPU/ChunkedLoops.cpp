//===- ChunkedLoops.cpp - loops over chunks of a dim ---------------------===//
//
// See ChunkedLoops.h.
//
//===----------------------------------------------------------------------===//
#include "codegen/CPU/ChunkedLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace anyshape::codegen {

bool isDefinedOutside(Value v, Operation *op) {
  return !op->isAncestor(v.getParentRegion()->getParentOp());
}

bool boundsDefinedOutside(scf::ForOp loop, Operation *op) {
  return isDefinedOutside(loop.getLowerBound(), op) &&
         isDefinedOutside(loop.getUpperBound(), op) &&
         isDefinedOutside(loop.getStep(), op);
}

ChunkLoop buildChunkLoop(OpBuilder &b, Location loc, ValueRange lowers,
                         ValueRange uppers, ValueRange steps,
                         Value chunkStride) {
  SmallVector<Value> strides(steps);
  strides.back() = chunkStride;
  auto loop = b.create<scf::ParallelOp>(loc, lowers, uppers, strides);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value start = loop.getInductionVars().back();
  Value end = b.create<arith::MinSIOp>(
      loc, b.create<arith::AddIOp>(loc, start, chunkStride), uppers.back());
  return {loop, start, end};
}

} // namespace anyshape::codegen

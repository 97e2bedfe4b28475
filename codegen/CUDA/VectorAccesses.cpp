//===- VectorAccesses.cpp - 128-bit loads and stores of kLoop kernels -*- C++
//-*-===//
//
// See VectorAccesses.h. The 4-wide version runs the loop body four times
// per thread, for iterations j, j + 1, j + 2, j + 3 of the last dim (j a
// multiple of 4): iterations of a parallel loop are independent, so
// interleaving the four copies op by op keeps the meaning. A load or
// store whose last index is the last dim's induction variable (and whose
// other indices do not depend on it) becomes one vector access of four
// elements, whose address the host check makes a multiple of the
// vector's size; anything else runs once per copy, as scalar code. The
// arithmetic stays scalar: a GPU thread has no vector ALU, what the
// version buys is one memory transaction instead of four.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/VectorAccesses.h"

#include "codegen/CUDA/Loops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace anyshape::codegen {

namespace {

/// The memref and indices of a load or store; null memref for other ops.
std::pair<Value, ValueRange> accessOf(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return {load.getMemref(), load.getIndices()};
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return {store.getMemref(), store.getIndices()};
  return {Value(), ValueRange()};
}

/// Whether `op` (directly in `loop`'s body) accesses four neighbouring
/// elements across the four copies: its last index is the last dim's
/// induction variable, its other indices the same in every copy, its
/// elements whole bytes.
bool isVectorAccess(Operation *op, scf::ParallelOp loop) {
  auto [memref, indices] = accessOf(op);
  if (!memref || indices.empty() || op->getBlock() != loop.getBody())
    return false;
  Value last = loop.getInductionVars().back();
  if (indices.back() != last)
    return false;
  for (Value index : indices.drop_back())
    if (index == last || (!loop.isDefinedOutsideOfLoop(index) &&
                          !llvm::is_contained(loop.getInductionVars(), index)))
      return false;
  // A vector access needs a last stride of 1 in the buffer's type (a
  // column of a transposed view, strided<[2]>, is read element by element).
  auto type = cast<MemRefType>(memref.getType());
  Type element = type.getElementType();
  return element.isIntOrFloat() && element.getIntOrFloatBitWidth() % 8 == 0 &&
         isLastMemrefDimUnitStride(type) && loop.isDefinedOutsideOfLoop(memref);
}

} // namespace

bool hasVectorAccesses(scf::ParallelOp loop) {
  if (loop.getNumResults() != 0 ||
      getConstantIntValue(loop.getLowerBound().back()) != 0 ||
      getConstantIntValue(loop.getStep().back()) != 1)
    return false;
  return llvm::any_of(loop.getBody()->without_terminator(),
                      [&](Operation &op) { return isVectorAccess(&op, loop); });
}

Value vectorAccessCondition(OpBuilder &b, scf::ParallelOp loop) {
  Location loc = loop.getLoc();
  auto constant = [&](int64_t v) {
    return b.create<arith::ConstantIndexOp>(loc, v).getResult();
  };
  auto multipleOf = [&](Value v, int64_t n) {
    return b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::eq,
        b.create<arith::RemUIOp>(loc, v, constant(n)), constant(0));
  };
  SmallVector<Value> trips = tripCounts(b, loop);
  Value ok = multipleOf(trips.back(), kVectorLanes);
  llvm::SetVector<Value> memrefs;
  for (Operation &op : loop.getBody()->without_terminator())
    if (isVectorAccess(&op, loop))
      memrefs.insert(accessOf(&op).first);
  for (Value memref : memrefs) {
    auto type = cast<MemRefType>(memref.getType());
    int64_t bytes = type.getElementTypeBitWidth() / 8;
    Value pointer =
        b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, memref);
    ok = b.create<arith::AndIOp>(loc, ok,
                                 multipleOf(pointer, kVectorLanes * bytes));
    auto metadata = b.create<memref::ExtractStridedMetadataOp>(loc, memref);
    ok = b.create<arith::AndIOp>(
        loc, ok, multipleOf(metadata.getOffset(), kVectorLanes));
    auto strides = metadata.getStrides();
    for (Value stride : strides.drop_back())
      ok = b.create<arith::AndIOp>(loc, ok, multipleOf(stride, kVectorLanes));
    ok = b.create<arith::AndIOp>(
        loc, ok,
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, strides.back(),
                                constant(1)));
  }
  return ok;
}

void buildVectorAccessLaunch(OpBuilder &b, scf::ParallelOp loop,
                             int64_t blockSize, int64_t maxBlocks) {
  Location loc = loop.getLoc();
  auto constant = [&](int64_t v) {
    return b.create<arith::ConstantIndexOp>(loc, v).getResult();
  };
  SmallVector<Value> trips = tripCounts(b, loop);
  Value groups = b.create<arith::DivUIOp>(loc, product(b, loc, trips),
                                          constant(kVectorLanes));
  GridStrideLaunch grid =
      buildGridStrideLaunch(b, loc, groups, blockSize, maxBlocks);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(grid.loop.getBody()->getTerminator());
  scf::ForOp strided = grid.loop;
  // Copy 0 runs iteration 4g of the flattened space; copy u the next u.
  SmallVector<IRMapping> copies(kVectorLanes);
  Value base = b.create<arith::MulIOp>(loc, strided.getInductionVar(),
                                       constant(kVectorLanes));
  mapFlatIteration(b, loop, trips, base, copies[0]);
  Value last = loop.getInductionVars().back();
  for (int64_t u = 1; u < kVectorLanes; ++u) {
    copies[u] = copies[0];
    copies[u].map(last, b.create<arith::AddIOp>(loc, copies[0].lookup(last),
                                                constant(u)));
  }
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (!isVectorAccess(&op, loop)) {
      for (IRMapping &copy : copies)
        b.clone(op, copy);
      continue;
    }
    auto [memref, indices] = accessOf(&op);
    SmallVector<Value> at;
    for (Value index : indices)
      at.push_back(copies[0].lookupOrDefault(index));
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    auto vectorType = VectorType::get({kVectorLanes}, element);
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      Value vector = b.create<vector::LoadOp>(loc, vectorType, memref, at);
      for (int64_t u = 0; u < kVectorLanes; ++u)
        copies[u].map(load.getResult(),
                      b.create<vector::ExtractOp>(loc, vector, u));
      continue;
    }
    auto store = cast<memref::StoreOp>(op);
    Value vector = b.create<vector::BroadcastOp>(
        loc, vectorType, copies[0].lookupOrDefault(store.getValueToStore()));
    for (int64_t u = 1; u < kVectorLanes; ++u)
      vector = b.create<vector::InsertOp>(
          loc, copies[u].lookupOrDefault(store.getValueToStore()), vector, u);
    b.create<vector::StoreOp>(loc, vector, memref, at);
  }
}

} // namespace anyshape::codegen

//===- PromoteAccumulators.cpp - reduction accumulators in registers -===//
//
// anyshape-promote-accumulators (see Passes.td). Runs on scf loops over
// buffers, after linalg became loops.
//
// linalg's loops accumulate a reduction through memory: every iteration
// loads acc[i], combines and stores acc[i]. LLVM keeps acc in a register
// only if it proves that no other store in the loop writes acc[i]; inside
// an OpenMP-outlined kernel every buffer is a pointer loaded from a struct,
// so it cannot, and a loop that also writes another buffer (a stitched
// row that stores exp(x - max) while summing it) is not vectorised at all.
// Here the proof is easy: buffers are fresh allocations, so two different
// allocations never alias.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "codegen/Common/BufferRoots.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_PROMOTEACCUMULATORS
#include "codegen/Common/Passes.h.inc"

namespace {

struct Accumulator {
  memref::LoadOp load;
  memref::StoreOp store;
};

/// A load and a later store of the same element of a fresh allocation,
/// at indices fixed for the whole loop, when nothing else in the loop
/// touches that allocation.
std::optional<Accumulator> findAccumulator(scf::ForOp loop) {
  Block *body = loop.getBody();
  for (auto store : body->getOps<memref::StoreOp>()) {
    Value memref = store.getMemref();
    Value root = rootBuffer(memref);
    auto definedInLoop = [&](Value value) {
      return loop->isAncestor(value.getParentRegion()->getParentOp());
    };
    if (!root.getDefiningOp<memref::AllocOp>() || definedInLoop(memref) ||
        llvm::any_of(store.getIndices(), definedInLoop))
      continue;
    memref::LoadOp load;
    bool alone = true;
    loop.getBody()->walk([&](Operation *op) {
      if (op == store)
        return;
      for (Value operand : op->getOperands()) {
        if (!llvm::isa<MemRefType>(operand.getType()) ||
            rootBuffer(operand) != root)
          continue;
        auto candidate = llvm::dyn_cast<memref::LoadOp>(op);
        if (!load && candidate && candidate->getBlock() == body &&
            candidate.getMemref() == memref &&
            candidate.getIndices() == store.getIndices() &&
            candidate->isBeforeInBlock(store))
          load = candidate;
        else
          alone = false;
      }
    });
    if (load && alone)
      return Accumulator{load, store};
  }
  return std::nullopt;
}

/// acc = load before the loop; the loop carries it; store after the loop.
/// Returns the loop that replaces `loop`.
scf::ForOp promote(scf::ForOp loop, Accumulator acc) {
  IRRewriter rewriter(loop->getContext());
  rewriter.setInsertionPoint(loop);
  Value initial = rewriter.create<memref::LoadOp>(
      acc.load.getLoc(), acc.load.getMemref(), acc.load.getIndices());
  Value stored = acc.store.getValue();
  auto promoted = llvm::cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
      rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument> carried) {
        acc.load.getResult().replaceAllUsesWith(carried.front());
        return SmallVector<Value>{stored};
      }));
  rewriter.setInsertionPointAfter(promoted);
  rewriter.create<memref::StoreOp>(
      acc.store.getLoc(), promoted.getResults().back(), acc.store.getMemref(),
      acc.store.getIndices());
  rewriter.eraseOp(acc.store);
  rewriter.eraseOp(acc.load);
  return promoted;
}

struct PromoteAccumulatorsPass
    : impl::PromoteAccumulatorsBase<PromoteAccumulatorsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      while (std::optional<Accumulator> acc = findAccumulator(loop))
        loop = promote(loop, *acc);
  }
};

} // namespace
} // namespace anyshape::codegen

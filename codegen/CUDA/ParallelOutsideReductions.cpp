//===- ParallelOutsideReductions.cpp - column loops outermost ----*- C++
//-*-===//
//
// anyshape-parallel-outside-reductions (see Passes.td). linalg's loops
// follow its iteration order, so a column reduction ([rows, cols] ->
// [cols]) arrives as
//   scf.for %r { scf.parallel (%c) { acc[c] = acc[c] + f(x[r, c]) } }
// which, mapped as it is, would run in one GPU thread. Interchanged,
//   scf.parallel (%c) { scf.for %r { acc[c] = acc[c] + f(x[r, c]) } }
// each column is a reduction loop of its own (anyshape-promote-accumulators
// then keeps acc[c] in a register), which the column schedule runs in
// tiles. Legal when the parallel loop's iterations own what they write:
// every store's indices are invariant in %r, and every load of a written
// buffer reads exactly an element that iteration stores.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/Passes.h"

#include "codegen/Common/BufferRoots.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_PARALLELOUTSIDEREDUCTIONS
#include "codegen/CUDA/Passes.h.inc"

namespace {

/// The parallel loop that is `outer`'s whole body, if the two may swap.
scf::ParallelOp interchangeable(scf::ForOp outer) {
  if (outer.getNumResults() != 0 ||
      outer.getBody()->getOperations().size() != 2)
    return {};
  auto inner = dyn_cast<scf::ParallelOp>(outer.getBody()->front());
  if (!inner || inner.getNumResults() != 0)
    return {};
  for (ValueRange bounds :
       {ValueRange(inner.getLowerBound()), ValueRange(inner.getUpperBound()),
        ValueRange(inner.getStep())})
    for (Value bound : bounds)
      if (!outer.isDefinedOutsideOfLoop(bound))
        return {};
  // What an iteration of the parallel loop writes is its own element.
  auto owned = [&](ValueRange indices) {
    return llvm::all_of(indices, [&](Value index) {
      return outer.isDefinedOutsideOfLoop(index) ||
             llvm::is_contained(inner.getInductionVars(), index);
    });
  };
  SmallVector<memref::StoreOp> stores;
  bool other = false;
  inner.getBody()->walk([&](Operation *op) {
    if (auto store = dyn_cast<memref::StoreOp>(op))
      stores.push_back(store);
    else if (!isa<memref::LoadOp>(op) && !isMemoryEffectFree(op) &&
             !isa<scf::ReduceOp, scf::YieldOp, scf::ForOp>(op))
      other = true;
  });
  if (other)
    return {};
  for (memref::StoreOp store : stores)
    if (!owned(store.getIndices()))
      return {};
  bool private_ = true;
  inner.getBody()->walk([&](memref::LoadOp load) {
    Value root = rootBuffer(load.getMemref());
    bool written = llvm::any_of(stores, [&](memref::StoreOp store) {
      return rootBuffer(store.getMemref()) == root;
    });
    if (!written)
      return;
    private_ &= llvm::any_of(stores, [&](memref::StoreOp store) {
      return store.getMemref() == load.getMemref() &&
             llvm::equal(store.getIndices(), load.getIndices());
    });
  });
  return private_ ? inner : scf::ParallelOp();
}

void interchange(scf::ForOp outer, scf::ParallelOp inner) {
  OpBuilder b(outer);
  auto parallel =
      b.create<scf::ParallelOp>(inner.getLoc(), inner.getLowerBound(),
                                inner.getUpperBound(), inner.getStep());
  b.setInsertionPoint(parallel.getBody()->getTerminator());
  auto serial = b.create<scf::ForOp>(outer.getLoc(), outer.getLowerBound(),
                                     outer.getUpperBound(), outer.getStep());
  b.setInsertionPoint(serial.getBody()->getTerminator());
  IRMapping map;
  map.map(inner.getInductionVars(), parallel.getInductionVars());
  map.map(outer.getInductionVar(), serial.getInductionVar());
  for (Operation &op : inner.getBody()->without_terminator())
    b.clone(op, map);
  outer.erase();
}

struct ParallelOutsideReductionsPass
    : impl::ParallelOutsideReductionsBase<ParallelOutsideReductionsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](dhlo::FusionOp fusion) {
      for (Operation &op : fusion.getBody().front())
        if (auto loop = dyn_cast<scf::ForOp>(op))
          loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (scf::ParallelOp inner = interchangeable(loop))
        interchange(loop, inner);
  }
};

} // namespace
} // namespace anyshape::codegen

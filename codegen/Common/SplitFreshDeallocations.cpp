//===- SplitFreshDeallocations.cpp - lone buffers freed alone ---*- C++ -*-===//
//
// anyshape-split-fresh-deallocations (see Passes.td). Runs between MLIR's
// ownership-based deallocation and its simplification, which would
// otherwise compare every pair of buffers a block owns.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_SPLITFRESHDEALLOCATIONS
#include "codegen/Common/Passes.h.inc"

namespace {

/// The buffer `memref` is a view of (through subviews, reshapes, casts and
/// strided metadata), or `memref` itself.
Value rootOf(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

bool isFreshAllocation(Value root) {
  return root.getDefiningOp<memref::AllocOp>() ||
         root.getDefiningOp<memref::AllocaOp>();
}

/// Whether `root` is known not to alias a fresh allocation other than
/// itself: a fresh allocation, or an argument of the function (whose
/// buffers exist before anything the function allocates).
bool isKnownRoot(Value root, func::FuncOp function) {
  if (isFreshAllocation(root))
    return true;
  auto argument = llvm::dyn_cast<BlockArgument>(root);
  return argument && argument.getOwner() == &function.getBody().front();
}

/// Gives each buffer of `dealloc` that aliases nothing else in it a dealloc
/// of its own.
void splitFreshBuffers(bufferization::DeallocOp dealloc,
                       func::FuncOp function) {
  llvm::SmallDenseMap<Value, int, 16> ownersOfRoot;
  llvm::SmallDenseSet<Value, 4> retainedRoots;
  for (Value memref : dealloc.getMemrefs()) {
    Value root = rootOf(memref);
    if (!isKnownRoot(root, function))
      return;
    ++ownersOfRoot[root];
  }
  for (Value retained : dealloc.getRetained()) {
    Value root = rootOf(retained);
    if (!isKnownRoot(root, function))
      return;
    retainedRoots.insert(root);
  }

  OpBuilder b(dealloc);
  SmallVector<Value> keptMemrefs, keptConditions;
  for (auto [memref, condition] :
       llvm::zip_equal(dealloc.getMemrefs(), dealloc.getConditions())) {
    bool alone = isFreshAllocation(memref) && ownersOfRoot[memref] == 1 &&
                 !retainedRoots.contains(memref);
    if (!alone) {
      keptMemrefs.push_back(memref);
      keptConditions.push_back(condition);
      continue;
    }
    b.create<bufferization::DeallocOp>(dealloc.getLoc(), ValueRange{memref},
                                       ValueRange{condition}, ValueRange{});
  }
  if (keptMemrefs.size() == dealloc.getMemrefs().size())
    return;
  // What is left keeps the retained values: their ownership depends only
  // on the buffers that may alias them, all of which stay.
  auto rest = b.create<bufferization::DeallocOp>(
      dealloc.getLoc(), keptMemrefs, keptConditions, dealloc.getRetained());
  dealloc->replaceAllUsesWith(rest->getResults());
  dealloc->erase();
}

struct SplitFreshDeallocationsPass
    : impl::SplitFreshDeallocationsBase<SplitFreshDeallocationsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    SmallVector<bufferization::DeallocOp> deallocs;
    function.walk([&](bufferization::DeallocOp op) { deallocs.push_back(op); });
    for (bufferization::DeallocOp dealloc : deallocs)
      splitFreshBuffers(dealloc, function);
  }
};

} // namespace
} // namespace anyshape::codegen

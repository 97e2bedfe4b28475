//===- UnshareInits.cpp - one destination tensor per op ----------*- C++
//-*-===//
//
// anyshape-unshare-inits (see Passes.td). Runs on @main's tensors, before
// bufferization.
//
//===----------------------------------------------------------------------===//
#include "jit/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace anyshape::jit {

#define GEN_PASS_DEF_UNSHAREINITS
#include "jit/Passes.h.inc"

namespace {

/// The uses of `value`, in program order when they share its block.
SmallVector<OpOperand *> usesInOrder(Value value, Block *block) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : value.getUses())
    uses.push_back(&use);
  if (llvm::all_of(uses, [&](OpOperand *use) {
        return use->getOwner()->getBlock() == block;
      }))
    llvm::sort(uses, [](OpOperand *a, OpOperand *b) {
      return a->getOwner() != b->getOwner() &&
             a->getOwner()->isBeforeInBlock(b->getOwner());
    });
  return uses;
}

/// Gives every user of `op`'s result but the first a clone of `op` (a
/// fill clones `emptyOfFill`, the empty tensor it writes, along with it),
/// built right before the user, so
/// each destination is written right before it is read. Each clone, and
/// `op`, belongs to its user's kernel: it takes the user's location, which
/// carries the user's fusion (dhlo-mark-fusions).
void cloneForEachUser(Operation *op, Operation *emptyOfFill) {
  SmallVector<OpOperand *> uses = usesInOrder(op->getResult(0), op->getBlock());
  Location firstUser = uses.front()->getOwner()->getLoc();
  op->setLoc(firstUser);
  if (emptyOfFill)
    emptyOfFill->setLoc(firstUser);
  for (OpOperand *use : llvm::drop_begin(uses)) {
    OpBuilder b(use->getOwner());
    IRMapping mapping;
    if (emptyOfFill) {
      Operation *emptyCopy = b.clone(*emptyOfFill);
      emptyCopy->setLoc(use->getOwner()->getLoc());
      mapping.map(emptyOfFill->getResult(0), emptyCopy->getResult(0));
    }
    Operation *copy = b.clone(*op, mapping);
    copy->setLoc(use->getOwner()->getLoc());
    use->set(copy->getResult(0));
  }
}

struct UnshareInitsPass : impl::UnshareInitsBase<UnshareInitsPass> {
  void runOnOperation() override {
    SmallVector<linalg::FillOp> sharedFills;
    getOperation().walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() &&
          fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>() &&
          !fill->getResult(0).hasOneUse())
        sharedFills.push_back(fill);
    });
    for (linalg::FillOp fill : sharedFills)
      cloneForEachUser(fill,
                       fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>());
    // Then the empty tensors themselves (a fill's one among them).
    SmallVector<tensor::EmptyOp> sharedEmpties;
    getOperation().walk([&](tensor::EmptyOp empty) {
      if (!empty->getResult(0).hasOneUse() && !empty->use_empty())
        sharedEmpties.push_back(empty);
    });
    for (tensor::EmptyOp empty : sharedEmpties)
      cloneForEachUser(empty, nullptr);
  }
};

} // namespace
} // namespace anyshape::jit

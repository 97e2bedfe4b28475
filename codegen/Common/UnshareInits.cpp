//===- UnshareInits.cpp - one destination tensor per op ----------*- C++
//-*-===//
//
// anyshape-unshare-inits (see Passes.td). Runs on @main's tensors, before
// bufferization.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_UNSHAREINITS
#include "codegen/Common/Passes.h.inc"

namespace {

/// Gives every user of `op`'s result a clone of `op` (a fill clones
/// `emptyOfFill`, the empty tensor it writes, along with it), built right
/// before the user, so each destination is written right before it is
/// read, in the user's kernel (its dhlo.fusion); `op` goes away.
void cloneForEachUser(Operation *op, Operation *emptyOfFill) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : op->getResult(0).getUses())
    uses.push_back(&use);
  for (OpOperand *use : uses) {
    OpBuilder b(use->getOwner());
    IRMapping mapping;
    if (emptyOfFill)
      mapping.map(emptyOfFill->getResult(0),
                  b.clone(*emptyOfFill)->getResult(0));
    use->set(b.clone(*op, mapping)->getResult(0));
  }
  op->erase();
  if (emptyOfFill && emptyOfFill->use_empty())
    emptyOfFill->erase();
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
} // namespace anyshape::codegen

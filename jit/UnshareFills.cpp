//===- UnshareFills.cpp - one fill per destination ---------------*- C++
//-*-===//
//
// anyshape-unshare-fills (see Passes.td). Runs on @main's tensors, before
// bufferization.
//
//===----------------------------------------------------------------------===//
#include "jit/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace anyshape::jit {

#define GEN_PASS_DEF_UNSHAREFILLS
#include "jit/Passes.h.inc"

namespace {

struct UnshareFillsPass : impl::UnshareFillsBase<UnshareFillsPass> {
  void runOnOperation() override {
    SmallVector<linalg::FillOp> shared;
    getOperation().walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() &&
          fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>() &&
          !fill->getResult(0).hasOneUse())
        shared.push_back(fill);
    });
    for (linalg::FillOp fill : shared) {
      auto empty = fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>();
      // Every user but the first (in program order) gets a copy of the
      // empty tensor and the fill, built just before it, so each
      // destination is written right before it is read.
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : fill->getResult(0).getUses())
        uses.push_back(&use);
      Block *block = fill->getBlock();
      if (llvm::all_of(uses, [&](OpOperand *use) {
            return use->getOwner()->getBlock() == block;
          }))
        llvm::sort(uses, [](OpOperand *a, OpOperand *b) {
          return a->getOwner() != b->getOwner() &&
                 a->getOwner()->isBeforeInBlock(b->getOwner());
        });
      // Each fill belongs to its user's kernel: it takes the user's
      // location, which carries the user's fusion (dhlo-mark-fusions).
      Location firstUser = uses.front()->getOwner()->getLoc();
      fill->setLoc(firstUser);
      empty->setLoc(firstUser);
      for (OpOperand *use : llvm::drop_begin(uses)) {
        OpBuilder b(use->getOwner());
        Operation *emptyCopy = b.clone(*empty);
        emptyCopy->setLoc(use->getOwner()->getLoc());
        IRMapping mapping;
        mapping.map(empty.getResult(), emptyCopy->getResult(0));
        Operation *fillCopy = b.clone(*fill, mapping);
        fillCopy->setLoc(use->getOwner()->getLoc());
        use->set(fillCopy->getResult(0));
      }
    }
  }
};

} // namespace
} // namespace anyshape::jit

//===- UnshareReshapeShapes.cpp - one shape tensor per reshape ---*- C++
//-*-===//
//
// anyshape-unshare-reshape-shapes (see Passes.td). Runs on @main's
// tensors, before bufferization.
//
//===----------------------------------------------------------------------===//
#include "jit/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace anyshape::jit {

#define GEN_PASS_DEF_UNSHARERESHAPESHAPES
#include "jit/Passes.h.inc"

namespace {

struct UnshareReshapeShapesPass
    : impl::UnshareReshapeShapesBase<UnshareReshapeShapesPass> {
  void runOnOperation() override {
    // Every reshape gets a fresh copy right before it (a shared original
    // that stays far from its last reshape still conflicts), then the
    // originals left without users go.
    llvm::SetVector<Operation *> originals;
    getOperation().walk([&](tensor::ReshapeOp reshape) {
      OpOperand &shape = reshape.getShapeMutable();
      auto elements = shape.get().getDefiningOp<tensor::FromElementsOp>();
      if (!elements)
        return;
      OpBuilder b(reshape);
      shape.set(b.clone(*elements)->getResult(0));
      originals.insert(elements);
    });
    for (Operation *original : originals)
      if (original->use_empty())
        original->erase();
  }
};

} // namespace
} // namespace anyshape::jit

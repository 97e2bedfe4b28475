//===- UnshareReshapeShapes.cpp - one shape tensor per reshape ---*- C++
//-*-===//
//
// anyshape-unshare-reshape-shapes (see Passes.td). Runs on @main's
// tensors, before bufferization.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_UNSHARERESHAPESHAPES
#include "codegen/Common/Passes.h.inc"

namespace {

/// A constant shape (a static compile's) as a tensor.from_elements of
/// index constants: a constant would bufferize to a read-only global,
/// which the reshape's result would then alias, and a GEMM writing into
/// the reshaped buffer would have to write into a copy.
Value fromElementsOf(OpBuilder &b, Location loc, Operation *maker) {
  auto constant = llvm::dyn_cast_or_null<arith::ConstantOp>(maker);
  auto values = constant
                    ? llvm::dyn_cast<DenseIntElementsAttr>(constant.getValue())
                    : DenseIntElementsAttr();
  if (!values)
    return {};
  SmallVector<Value> sizes;
  for (const APInt &size : values.getValues<APInt>())
    sizes.push_back(b.create<arith::ConstantIndexOp>(loc, size.getSExtValue()));
  return b.create<tensor::FromElementsOp>(loc, values.getType(), sizes);
}

struct UnshareReshapeShapesPass
    : impl::UnshareReshapeShapesBase<UnshareReshapeShapesPass> {
  void runOnOperation() override {
    // Every reshape gets a fresh copy right before it (a shared original
    // that stays far from its last reshape still conflicts), then the
    // originals left without users go.
    llvm::SetVector<Operation *> originals;
    getOperation().walk([&](tensor::ReshapeOp reshape) {
      OpOperand &shape = reshape.getShapeMutable();
      OpBuilder b(reshape);
      Operation *maker = shape.get().getDefiningOp();
      if (auto elements = llvm::dyn_cast_or_null<tensor::FromElementsOp>(maker))
        shape.set(b.clone(*elements)->getResult(0));
      else if (Value rebuilt = fromElementsOf(b, reshape.getLoc(), maker))
        shape.set(rebuilt);
      else
        return;
      originals.insert(maker);
    });
    for (Operation *original : originals)
      if (original->use_empty())
        original->erase();
  }
};

} // namespace
} // namespace anyshape::codegen

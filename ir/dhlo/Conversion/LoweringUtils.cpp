//===- LoweringUtils.cpp - shared pieces of dhlo lowerings ------*- C++ -*-===//
#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace anyshape::dhlo {

RankedTensorType withoutEncoding(Type type) {
  auto tensor = llvm::cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType());
}

OpFoldResult dimOf(OpBuilder &b, Location loc, Value tensor, int64_t d) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(d))
    return b.getIndexAttr(type.getDimSize(d));
  return b.create<tensor::DimOp>(loc, tensor, d).getResult();
}

Value dimValue(OpBuilder &b, Location loc, Value tensor, int64_t d) {
  return getValueOrCreateConstantIndexOp(b, loc, dimOf(b, loc, tensor, d));
}

FailureOr<SmallVector<OpFoldResult>> resultDims(Operation *op, OpBuilder &b) {
  ReifiedRankedShapedTypeDims shapes;
  if (failed(reifyDhloResultShapes(op, b, shapes)) || shapes.size() != 1)
    return failure();
  return shapes.front();
}

FailureOr<Value> emptyResult(Operation *op, OpBuilder &b, Type elementType) {
  FailureOr<SmallVector<OpFoldResult>> dims = resultDims(op, b);
  if (failed(dims))
    return failure();
  auto type = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  return b
      .create<tensor::EmptyOp>(op->getLoc(), *dims,
                               elementType ? elementType
                                           : type.getElementType())
      .getResult();
}

SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

} // namespace anyshape::dhlo

//===- ElementwiseToLinalg.cpp - unary, binary, select, iota ---*- C++ -*-===//
//
// Every elementwise dhlo op becomes one linalg.generic over the result's
// index space with identity maps (a scalar select predicate maps to the
// empty map) and the scalar semantics of ScalarOps.cpp. linalg's elementwise
// fusion then merges chains of them.
//
//===----------------------------------------------------------------------===//
#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace anyshape::dhlo {
namespace {

struct ElementwiseToGeneric : RewritePattern {
  ElementwiseToGeneric(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwise(op))
      return failure();
    Location loc = op->getLoc();
    auto resultType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = resultType.getRank();
    FailureOr<Value> init = emptyResult(op, rewriter);
    if (failed(init))
      return failure();
    SmallVector<AffineMap> maps;
    for (Value operand : op->getOperands()) {
      int64_t operandRank =
          llvm::cast<RankedTensorType>(operand.getType()).getRank();
      maps.push_back(operandRank == rank
                         ? rewriter.getMultiDimIdentityMap(rank)
                         : AffineMap::get(rank, 0, {}, rewriter.getContext()));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    StringRef name = op->getName().getStringRef();
    DictionaryAttr attrs = op->getAttrDictionary();
    Type elementType = resultType.getElementType();
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{init->getType()}, op->getOperands(), ValueRange{*init},
        maps, parallelIterators(rank),
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
          Value r = emitScalarOp(b, bodyLoc, name, args.drop_back(),
                                 elementType, attrs);
          b.create<linalg::YieldOp>(bodyLoc, r);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct IotaToGeneric : OpRewritePattern<IotaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IotaOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<Value> init = emptyResult(op, rewriter);
    if (failed(init))
      return failure();
    int64_t rank = op.getType().getRank();
    int64_t axis = op.getIotaDimensionAttr().getInt();
    Type elementType = op.getType().getElementType();
    auto generic = rewriter.create<linalg::GenericOp>(
        op.getLoc(), TypeRange{init->getType()}, ValueRange{},
        ValueRange{*init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
        parallelIterators(rank), [&](OpBuilder &b, Location loc, ValueRange) {
          Value index = b.create<linalg::IndexOp>(loc, axis);
          Value asI64 =
              b.create<arith::IndexCastOp>(loc, b.getI64Type(), index);
          b.create<linalg::YieldOp>(loc,
                                    emitConvert(b, loc, asI64, elementType));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseToGeneric, IotaToGeneric>(patterns.getContext());
}

} // namespace anyshape::dhlo

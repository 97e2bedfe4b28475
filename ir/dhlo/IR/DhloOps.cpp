//===- DhloOps.cpp - dhlo op verification, inference, folds -----*- C++ -*-===//
//
// Type inference for every op with an inferable result goes through one
// function, inferReturnTypesFromWireRules, which types the op with the wire
// format's shape rules. Folds remove ops that provably do nothing; the
// canonicalization patterns merge chains of reshapes and transposes.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/IR/DhloDialect.h"

#include "ir/graph/ShapeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace anyshape::dhlo {
namespace {

LogicalResult inferReturnTypesFromWireRules(MLIRContext *context,
                                            std::optional<Location> location,
                                            StringRef opName,
                                            ValueRange operands,
                                            DictionaryAttr attributes,
                                            SmallVectorImpl<Type> &results) {
  std::string error;
  FailureOr<v1::Node> node = toWireNode(opName, attributes, error);
  if (failed(node))
    return emitOptionalError(location, "'", opName, "' ", error);
  static const GraphLimits limits;
  ShapeContext shapes = ShapeContext::open(limits, kLocalFreshPrefix);
  std::vector<SymTensorType> types;
  for (Value operand : operands) {
    std::optional<SymTensorType> type =
        symbolicTypeOf(operand.getType(), shapes);
    if (!type)
      return emitOptionalError(location, "'", opName,
                               "' operand has unsupported type ",
                               operand.getType());
    types.push_back(std::move(*type));
  }
  std::vector<const SymTensorType *> operandTypes;
  for (const SymTensorType &type : types)
    operandTypes.push_back(&type);
  StatusOr<SymTensorType> result = inferNodeType(*node, operandTypes, shapes);
  if (!result)
    return emitOptionalError(location, "'", opName, "' ",
                             result.status().message());
  results.push_back(tensorTypeOf(context, *result));
  return success();
}

/// Same element type and rank, and no static size contradicts.
bool areCompatible(TypeRange inferred, TypeRange actual) {
  if (inferred.size() != actual.size())
    return false;
  for (auto [a, b] : llvm::zip(inferred, actual)) {
    auto ta = llvm::dyn_cast<RankedTensorType>(a),
         tb = llvm::dyn_cast<RankedTensorType>(b);
    if (!ta || !tb || ta.getElementType() != tb.getElementType() ||
        ta.getRank() != tb.getRank())
      return false;
    for (auto [da, db] : llvm::zip(ta.getShape(), tb.getShape()))
      if (!ShapedType::isDynamic(da) && !ShapedType::isDynamic(db) && da != db)
        return false;
  }
  return true;
}

/// Equal types mean equal shapes only when every dim is known: static, or
/// a symbol expression (equal expressions are equal sizes). Two `?` dims
/// may differ at run time.
bool fullyKnown(Type type) {
  auto tensor = llvm::cast<RankedTensorType>(type);
  auto shape = llvm::dyn_cast_or_null<ShapeAttr>(tensor.getEncoding());
  for (int64_t d = 0; d < tensor.getRank(); ++d)
    if (tensor.isDynamicDim(d) && !(shape && shape.getDim(d)))
      return false;
  return true;
}

bool isIdentity(ArrayRef<int64_t> permutation) {
  for (auto [i, p] : llvm::enumerate(permutation))
    if (static_cast<int64_t>(i) != p)
      return false;
  return true;
}

} // namespace

#define DHLO_INFERRED_OP(Op)                                                   \
  LogicalResult Op::inferReturnTypes(                                          \
      MLIRContext *context, std::optional<Location> location,                  \
      ValueRange operands, DictionaryAttr attributes, OpaqueProperties,        \
      RegionRange, SmallVectorImpl<Type> &results) {                           \
    return inferReturnTypesFromWireRules(                                      \
        context, location, getOperationName(), operands, attributes, results); \
  }                                                                            \
  bool Op::isCompatibleReturnTypes(TypeRange inferred, TypeRange actual) {     \
    return areCompatible(inferred, actual);                                    \
  }                                                                            \
  LogicalResult Op::reifyResultShapes(OpBuilder &builder,                      \
                                      ReifiedRankedShapedTypeDims &shapes) {   \
    return reifyDhloResultShapes(getOperation(), builder, shapes);             \
  }

DHLO_INFERRED_OP(AbsOp)
DHLO_INFERRED_OP(NegOp)
DHLO_INFERRED_OP(ExpOp)
DHLO_INFERRED_OP(LogOp)
DHLO_INFERRED_OP(TanhOp)
DHLO_INFERRED_OP(LogisticOp)
DHLO_INFERRED_OP(SqrtOp)
DHLO_INFERRED_OP(RsqrtOp)
DHLO_INFERRED_OP(ErfOp)
DHLO_INFERRED_OP(SinOp)
DHLO_INFERRED_OP(CosOp)
DHLO_INFERRED_OP(FloorOp)
DHLO_INFERRED_OP(CeilOp)
DHLO_INFERRED_OP(NotOp)
DHLO_INFERRED_OP(AddOp)
DHLO_INFERRED_OP(SubOp)
DHLO_INFERRED_OP(MulOp)
DHLO_INFERRED_OP(DivOp)
DHLO_INFERRED_OP(PowOp)
DHLO_INFERRED_OP(MaxOp)
DHLO_INFERRED_OP(MinOp)
DHLO_INFERRED_OP(AndOp)
DHLO_INFERRED_OP(OrOp)
DHLO_INFERRED_OP(CompareOp)
DHLO_INFERRED_OP(SelectOp)
DHLO_INFERRED_OP(BroadcastInDimOp)
DHLO_INFERRED_OP(ReshapeOp)
DHLO_INFERRED_OP(TransposeOp)
DHLO_INFERRED_OP(SliceOp)
DHLO_INFERRED_OP(ConcatenateOp)
DHLO_INFERRED_OP(PadOp)
DHLO_INFERRED_OP(GatherOp)
DHLO_INFERRED_OP(ReduceOp)
DHLO_INFERRED_OP(DotGeneralOp)
DHLO_INFERRED_OP(DimSizeOp)
#undef DHLO_INFERRED_OP

//===----------------------------------------------------------------------===//
// Ops with custom verifiers
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  auto valueType = llvm::cast<ShapedType>(getValue().getType());
  RankedTensorType resultType = getResult().getType();
  if (!dtypeOf(resultType.getElementType()))
    return emitOpError("has unsupported element type ")
           << resultType.getElementType();
  if (valueType.getElementType() != resultType.getElementType() ||
      valueType.getShape() != resultType.getShape())
    return emitOpError("value of type ")
           << valueType << " does not match result type " << resultType;
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult IotaOp::verify() {
  RankedTensorType type = getResult().getType();
  std::optional<v1::DType> dtype = dtypeOf(type.getElementType());
  if (!dtype || *dtype == v1::DTYPE_BOOL)
    return emitOpError("needs a numeric element type, got ")
           << type.getElementType();
  int64_t dimension = getIotaDimensionAttr().getInt();
  if (dimension < 0 || dimension >= type.getRank())
    return emitOpError("iota_dimension ")
           << dimension << " is out of range for rank " << type.getRank();
  return success();
}

LogicalResult ConvertOp::verify() {
  auto in = getOperand().getType(), out = getResult().getType();
  if (!dtypeOf(in.getElementType()) || !dtypeOf(out.getElementType()))
    return emitOpError("converts between unsupported element types ")
           << in.getElementType() << " and " << out.getElementType();
  if (!areCompatible(
          RankedTensorType::get(in.getShape(), out.getElementType()),
          RankedTensorType::get(out.getShape(), out.getElementType())))
    return emitOpError("changes the shape: ") << in << " to " << out;
  return success();
}

//===----------------------------------------------------------------------===//
// Folds: ops whose result is their operand, exactly (same type).
//===----------------------------------------------------------------------===//

OpFoldResult ConvertOp::fold(FoldAdaptor) {
  return getOperand().getType() == getType() ? getOperand() : nullptr;
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType() && fullyKnown(getType()) &&
      isIdentity(getBroadcastDimensions()))
    return getOperand();
  return nullptr;
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  return getOperand().getType() == getType() && fullyKnown(getType())
             ? getOperand()
             : nullptr;
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType() && isIdentity(getPermutation()))
    return getOperand();
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Canonicalization patterns
//===----------------------------------------------------------------------===//

namespace {

/// reshape(reshape(x)) -> reshape(x): the element order never changes.
struct MergeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getOperand().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getOperand(),
                                           op.getShape());
    return success();
  }
};

/// transpose(transpose(x, p), q) -> transpose(x, p o q).
struct MergeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getOperand().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> composed;
    for (int64_t p : op.getPermutation())
      composed.push_back(inner.getPermutation()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(),
                                             inner.getOperand(), composed);
    return success();
  }
};

} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<MergeReshapes>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<MergeTransposes>(context);
}

} // namespace anyshape::dhlo

#define GET_OP_CLASSES
#include "ir/dhlo/IR/DhloOps.cpp.inc"

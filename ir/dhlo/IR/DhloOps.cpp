//===- DhloOps.cpp - dhlo op verification, inference, folds -----*- C++ -*-===//
//
// Type inference for every op with an inferable result goes through one
// function, inferReturnTypesFromWireRules, which types the op with the wire
// format's shape rules. Folds remove ops that provably do nothing (the
// canonicalization patterns are in DhloCanonicalize.cpp).
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/dhlo/IR/ShapeCheckAttr.h"

#include "ir/graph/OpRegistry.h"
#include "ir/graph/ShapeInference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

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

} // namespace

bool fullyKnown(Type type) {
  auto tensor = llvm::cast<RankedTensorType>(type);
  auto shape = llvm::dyn_cast_or_null<ShapeAttr>(tensor.getEncoding());
  for (int64_t d = 0; d < tensor.getRank(); ++d)
    if (tensor.isDynamicDim(d) && !(shape && shape.getDim(d)))
      return false;
  return true;
}

std::optional<SymExpr> dimOf(RankedTensorType type, int64_t d) {
  if (!type.isDynamicDim(d))
    return SymExpr::constant(type.getDimSize(d));
  if (auto shape = llvm::dyn_cast_or_null<ShapeAttr>(type.getEncoding()))
    return shape.getDim(d);
  return std::nullopt;
}

namespace {

bool isIdentity(ArrayRef<int64_t> permutation) {
  for (auto [i, p] : llvm::enumerate(permutation))
    if (static_cast<int64_t>(i) != p)
      return false;
  return true;
}

} // namespace

ShapeAttr shapeAttrOf(RankedTensorType type) {
  if (!fullyKnown(type))
    return nullptr;
  if (auto shape = llvm::dyn_cast_or_null<ShapeAttr>(type.getEncoding())) {
    // A fresh symbol (a size validation could not name, e.g. a strided
    // slice's) types values but is no size a shape attribute can name.
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (std::optional<SymExpr> dim = shape.getDim(d))
        for (const std::string &symbol : dim->leafSymbols())
          if (isFreshSymbolName(symbol))
            return nullptr;
    return shape;
  }
  SmallVector<std::optional<SymExpr>> dims;
  for (int64_t size : type.getShape())
    dims.push_back(SymExpr::constant(size));
  return ShapeAttr::get(type.getContext(), dims);
}

bool isElementwise(Operation *op) {
  if (!llvm::isa<DhloDialect>(op->getDialect()))
    return false;
  const OpInfo *info = lookupOp(op->getName().stripDialect());
  return info &&
         (info->opClass == OpClass::Unary || info->opClass == OpClass::Binary ||
          info->opClass == OpClass::Select);
}

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
DHLO_INFERRED_OP(ScatterOp)
DHLO_INFERRED_OP(ArgsortOp)
DHLO_INFERRED_OP(CumulativeOp)
DHLO_INFERRED_OP(ReduceOp)
DHLO_INFERRED_OP(DotGeneralOp)
DHLO_INFERRED_OP(ConvolutionOp)
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

LogicalResult SeededUniformOp::verify() {
  RankedTensorType type = getResult().getType();
  if (!dtypeOf(type.getElementType()))
    return emitOpError("has unsupported element type ")
           << type.getElementType();
  double low = getLow().convertToDouble(), high = getHigh().convertToDouble();
  if (!std::isfinite(low) || !std::isfinite(high) || low > high)
    return emitOpError("needs finite low <= high, got [")
           << low << ", " << high << "]";
  if (getTransposed() && type.getRank() != 2)
    return emitOpError("is transposed, which needs rank 2, not ")
           << type.getRank();
  return success();
}

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

LogicalResult CheckIndexOp::verify() {
  auto indices = llvm::dyn_cast<ShapedType>(getIndices().getType());
  auto operand = llvm::dyn_cast<ShapedType>(getOperand().getType());
  if (!indices || !operand || !indices.hasRank() || !operand.hasRank())
    return emitOpError("takes ranked tensors or buffers");
  if (!indices.getElementType().isInteger(32) &&
      !indices.getElementType().isInteger(64))
    return emitOpError("indices must be i32 or i64, got ")
           << indices.getElementType();
  if (getAxis() < 0 || getAxis() >= operand.getRank())
    return emitOpError("axis ")
           << getAxis() << " is out of range for rank " << operand.getRank();
  return success();
}

LogicalResult CheckSizesOp::verify() {
  std::optional<ShapeCheck::Kind> kind = shapeCheckKindNamed(getKind());
  if (!kind || !isCondition(*kind))
    return emitOpError("kind '")
           << getKind() << "' is not a condition on two sizes";
  // I64Attr reads back unsigned.
  if (auto check = static_cast<int64_t>(getCheck()); check < 0)
    return emitOpError("check ") << check << " is negative";
  return success();
}

LogicalResult NonZeroOp::verify() {
  auto operand = llvm::cast<RankedTensorType>(getOperand().getType());
  auto result = llvm::cast<RankedTensorType>(getResult().getType());
  if (operand.getRank() == 0)
    return emitOpError("needs an operand of rank >= 1");
  if (!result.getElementType().isInteger(64) || result.getRank() != 2 ||
      result.getDimSize(0) != operand.getRank())
    return emitOpError("result must be i64 [")
           << operand.getRank() << ", count], got " << result;
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

OpFoldResult SliceOp::fold(FoldAdaptor) {
  auto type = llvm::cast<RankedTensorType>(getOperand().getType());
  if (getOperand().getType() != getType())
    return nullptr;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    std::optional<SymExpr> start = getStartIndices().getDim(d),
                           limit = getLimitIndices().getDim(d),
                           size = dimOf(type, d);
    bool unitStride = getStrides().empty() || getStrides()[d] == 1;
    if (!start || start->constantValue() != 0 || !limit || !size ||
        *limit != *size || !unitStride)
      return nullptr;
  }
  return getOperand();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType() && isIdentity(getPermutation()))
    return getOperand();
  return nullptr;
}

YieldOp FusionOp::getYield() {
  return llvm::cast<YieldOp>(getBody().front().getTerminator());
}

void FusionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (getNumResults() == 0) {
    effects.emplace_back(MemoryEffects::Read::get());
    effects.emplace_back(MemoryEffects::Write::get());
    return;
  }
  getBody().walk([&](Operation *op) {
    if (op == getOperation())
      return;
    if (auto inner = llvm::dyn_cast<MemoryEffectOpInterface>(op)) {
      SmallVector<SideEffects::EffectInstance<MemoryEffects::Effect>> own;
      inner.getEffects(own);
      llvm::append_range(effects, own);
    } else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
      // Unknown effects: anything.
      effects.emplace_back(MemoryEffects::Read::get());
      effects.emplace_back(MemoryEffects::Write::get());
    }
  });
}

LogicalResult FusionOp::verify() {
  if (getBody().empty() || getBody().front().empty() ||
      !llvm::isa<YieldOp>(getBody().front().back()))
    return emitOpError("body must end in dhlo.yield");
  if (getYield()->getOperandTypes() != getResultTypes())
    return emitOpError("yields ")
           << getYield()->getNumOperands()
           << " values whose types are not its result types";
  return success();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto kernel =
      symbols.lookupNearestSymbolFrom<func::FuncOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError("launches '")
           << getKernel() << "', which is not a function of the module";
  if (!llvm::equal(kernel.getFunctionType().getInputs(),
                   getOperands().getTypes()) ||
      kernel.getNumResults() != 0)
    return emitOpError("operand types do not match kernel '")
           << getKernel() << "'";
  return success();
}

} // namespace anyshape::dhlo

#define GET_OP_CLASSES
#include "ir/dhlo/IR/DhloOps.cpp.inc"

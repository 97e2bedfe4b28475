//===- DhloOps.cpp - dhlo op verification, inference, folds -----*- C++ -*-===//
//
// Type inference for every op with an inferable result goes through one
// function, inferReturnTypesFromWireRules, which types the op with the wire
// format's shape rules. Folds remove ops that provably do nothing; the
// canonicalization patterns merge chains of reshapes and transposes.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/IR/DhloDialect.h"

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

/// Dim `d` of `type` as a polynomial: its static size or its encoding's
/// entry; nullopt when unknown.
std::optional<SymExpr> dimOf(RankedTensorType type, int64_t d) {
  if (!type.isDynamicDim(d))
    return SymExpr::constant(type.getDimSize(d));
  if (auto shape = llvm::dyn_cast_or_null<ShapeAttr>(type.getEncoding()))
    return shape.getDim(d);
  return std::nullopt;
}

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

/// reshape(f(reshape(y), splat, ...)) -> f(y, splat', ...) for an
/// elementwise f whose reshaped operands all come back to the outer
/// reshape's shape: the round trip through a unit dim that an ONNX
/// keepdims reduction followed by a broadcasting op makes ([b] -> [b, 1]
/// -> max with a splat -> [b]). Left in, the unit dim splits a stitched
/// row kernel (normalize's x / max(norm, eps)) in three.
struct SinkReshapeRoundTrip : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    Operation *f = op.getOperand().getDefiningOp();
    // Types are compared below as shapes: only sound when every dim of the
    // result is known (two tensor<?x?xf32> may hold different shapes).
    if (!f || f->getNumResults() != 1 || !f->hasOneUse() || !isElementwise(f) ||
        !fullyKnown(op.getType()))
      return failure();
    auto result = llvm::cast<RankedTensorType>(op.getType());
    auto sameShape = [&](Type type) {
      auto t = llvm::cast<RankedTensorType>(type);
      return t.getShape() == result.getShape() &&
             t.getEncoding() == result.getEncoding();
    };
    // Every operand is checked before any op is made: a pattern that fails
    // must leave the IR as it found it (else the driver never converges).
    SmallVector<Value> operands;
    SmallVector<BroadcastInDimOp> splats; // per operand, null if undone
    bool undone = false;
    for (Value v : f->getOperands()) {
      if (auto inner = v.getDefiningOp<ReshapeOp>();
          inner && sameShape(inner.getOperand().getType())) {
        operands.push_back(inner.getOperand());
        splats.push_back(nullptr);
        undone = true;
        continue;
      }
      auto splat = v.getDefiningOp<BroadcastInDimOp>();
      auto scalar =
          splat ? llvm::cast<RankedTensorType>(splat.getOperand().getType())
                : RankedTensorType();
      if (!scalar || scalar.getRank() != 0 || !shapeAttrOf(result))
        return failure();
      operands.push_back(nullptr);
      splats.push_back(splat);
    }
    if (!undone)
      return failure();
    for (auto [operand, splat] : llvm::zip(operands, splats))
      if (splat)
        operand = rewriter.create<BroadcastInDimOp>(
            splat.getLoc(),
            RankedTensorType::get(
                result.getShape(),
                llvm::cast<RankedTensorType>(splat.getOperand().getType())
                    .getElementType(),
                result.getEncoding()),
            splat.getOperand(), shapeAttrOf(result),
            rewriter.getDenseI64ArrayAttr({}));
    OperationState state(f->getLoc(), f->getName(), operands, {result},
                         f->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

/// For a reshape that only inserts or removes dims of size 1 (every other
/// dim kept, in order, as the same expression): the result dim each
/// operand dim lands on, -1 for a removed unit dim; nullopt otherwise.
std::optional<SmallVector<int64_t>> unitDimReshape(RankedTensorType from,
                                                   RankedTensorType to) {
  auto isUnit = [](RankedTensorType t, int64_t d) {
    std::optional<SymExpr> size = dimOf(t, d);
    return size && size->constantValue() == 1;
  };
  SmallVector<int64_t> lands(from.getRank(), -1);
  int64_t j = 0;
  for (int64_t i = 0; i < from.getRank(); ++i) {
    std::optional<SymExpr> size = dimOf(from, i);
    if (!size)
      return std::nullopt;
    if (size->constantValue() == 1)
      continue;
    while (j < to.getRank() && isUnit(to, j))
      ++j;
    if (j == to.getRank() || dimOf(to, j) != size)
      return std::nullopt;
    lands[i] = j++;
  }
  for (; j < to.getRank(); ++j)
    if (!isUnit(to, j))
      return std::nullopt;
  return lands;
}

/// A broadcast of a rank-0 value: built in any shape as cheaply.
BroadcastInDimOp scalarSplat(Operation *op) {
  auto splat = llvm::dyn_cast_or_null<BroadcastInDimOp>(op);
  return splat && llvm::cast<RankedTensorType>(splat.getOperand().getType())
                          .getRank() == 0
             ? splat
             : BroadcastInDimOp();
}

/// An elementwise op used once (by the chain above it), within the depth
/// the chain walks.
bool isChainLink(Operation *op, int depth) {
  return depth < 16 && isElementwise(op) && op->getNumResults() == 1 &&
         op->hasOneUse();
}

/// Whether a unit-dim reshape (`lands`, unitDimReshape) of `v` can move
/// to the leaves of the elementwise ops computing it, each used once and
/// of v's shape: an iota (kept only if its dim survives) or a scalar
/// splat is built again in the new layout, a function argument reshaped
/// (a view). Any other leaf would put the reshape inside a kernel again.
/// `sawIota` is set when an iota is among the leaves.
bool reshapableChain(Value v, ArrayRef<int64_t> lands, int depth,
                     bool &sawIota) {
  Operation *op = v.getDefiningOp();
  if (auto iota = llvm::dyn_cast_or_null<IotaOp>(op)) {
    sawIota = true;
    return lands[iota.getIotaDimension()] >= 0;
  }
  if (scalarSplat(op))
    return true;
  if (!op) // a function argument: reshaped, it is a view
    return depth > 0;
  if (!isChainLink(op, depth))
    return false;
  auto type = llvm::cast<RankedTensorType>(v.getType());
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    auto t = llvm::cast<RankedTensorType>(operand.getType());
    return t.getShape() == type.getShape() &&
           t.getEncoding() == type.getEncoding() &&
           reshapableChain(operand, lands, depth + 1, sawIota);
  });
}

/// `v` (reshapableChain) built again with the shape of `target`.
Value reshapeChain(PatternRewriter &rewriter, Value v, RankedTensorType target,
                   ArrayRef<int64_t> lands, int depth) {
  Operation *op = v.getDefiningOp();
  auto elementType = llvm::cast<RankedTensorType>(v.getType()).getElementType();
  auto type = RankedTensorType::get(target.getShape(), elementType,
                                    target.getEncoding());
  if (auto iota = llvm::dyn_cast_or_null<IotaOp>(op))
    return rewriter.create<IotaOp>(
        iota.getLoc(), type,
        rewriter.getI64IntegerAttr(lands[iota.getIotaDimension()]));
  if (BroadcastInDimOp splat = scalarSplat(op))
    return rewriter.create<BroadcastInDimOp>(
        splat.getLoc(), type, splat.getOperand(), shapeAttrOf(target),
        rewriter.getDenseI64ArrayAttr({}));
  if (!op)
    return rewriter.create<ReshapeOp>(v.getLoc(), type, v, shapeAttrOf(target));
  SmallVector<Value> operands;
  for (Value operand : op->getOperands())
    operands.push_back(
        reshapeChain(rewriter, operand, target, lands, depth + 1));
  OperationState state(op->getLoc(), op->getName(), operands, {type},
                       op->getAttrs());
  return rewriter.create(state)->getResult(0);
}

/// reshape(f(...)) -> f'(...) built in the reshaped layout, for a reshape
/// that only inserts or removes unit dims of elementwise ops over an iota
/// (positions = iota + past, reshaped [p] -> [1, 1, 1, p] for a causal
/// mask): the iotas and splats are generated in the new layout, function
/// arguments reshaped (a view). Left in, the reshape sits between a kernel's
/// index computation and its consumer, where linalg cannot move it (its
/// reshape expansion refuses linalg.index with dynamic dims), and the
/// plan's one kernel would be two.
struct SinkUnitReshapeToIndices : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto from = llvm::cast<RankedTensorType>(op.getOperand().getType());
    auto to = llvm::cast<RankedTensorType>(op.getType());
    if (!fullyKnown(to) || !shapeAttrOf(to))
      return failure();
    std::optional<SmallVector<int64_t>> lands = unitDimReshape(from, to);
    bool sawIota = false;
    if (!lands || !reshapableChain(op.getOperand(), *lands, 0, sawIota) ||
        !sawIota)
      return failure();
    rewriter.replaceOp(op,
                       reshapeChain(rewriter, op.getOperand(), to, *lands, 0));
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

/// reduce(x) over a dim of static size 0 -> the kind's identity, broadcast
/// to the result's shape. Left to the lowering, the reduction would fold
/// to its accumulator's fill there, after fusion was planned around it.
struct ReduceNothing : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto operand = llvm::cast<RankedTensorType>(op.getOperand().getType());
    auto result = llvm::cast<RankedTensorType>(op.getType());
    if (!llvm::any_of(op.getDimensions(),
                      [&](int64_t d) { return operand.getDimSize(d) == 0; }))
      return failure();
    ShapeAttr shape = shapeAttrOf(result);
    if (!shape)
      return failure();
    Type element = result.getElementType();
    auto scalar = RankedTensorType::get({}, element);
    Value identity = rewriter.create<ConstantOp>(
        op.getLoc(),
        DenseElementsAttr::get(
            scalar, reductionIdentity(rewriter, op.getKind(), element)));
    rewriter.replaceOpWithNewOp<BroadcastInDimOp>(
        op, result, identity, shape, rewriter.getDenseI64ArrayAttr({}));
    return success();
  }
};

/// reduce(broadcast_in_dim(x)) -> broadcast_in_dim(reduce(x)): the
/// reduction runs over x's elements, not their copies. A dim the broadcast
/// repeats x along (one no operand dim maps to, or a stretched size-1 dim)
/// leaves max and min unchanged and multiplies a sum by its size; a prod
/// over one (x to that power) is left as it is. Besides the work saved, this is
/// what makes a whole reduction of a broadcast one kernel: fused, the loop over
/// a repeated dim would have no operand to take its size from.
struct ReduceOfBroadcast : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto broadcast = op.getOperand().getDefiningOp<BroadcastInDimOp>();
    if (!broadcast)
      return failure();
    Value x = broadcast.getOperand();
    auto xType = llvm::cast<RankedTensorType>(x.getType());
    auto wide = llvm::cast<RankedTensorType>(broadcast.getType());
    auto result = llvm::cast<RankedTensorType>(op.getType());
    ShapeAttr resultShape = shapeAttrOf(result);
    if (!resultShape)
      return failure();
    ArrayRef<int64_t> reduced = op.getDimensions();
    ArrayRef<int64_t> mapped = broadcast.getBroadcastDimensions();
    // Dims of the broadcast that x's dims carry unchanged (a size-1 x dim
    // under a dim that may not be 1 is stretched; any other pair is left
    // alone, as it may or may not stretch at run time).
    SmallVector<bool> carried(wide.getRank(), false);
    for (auto [i, d] : llvm::enumerate(mapped)) {
      std::optional<SymExpr> from = dimOf(xType, i), to = dimOf(wide, d);
      if (!from || !to)
        return failure();
      if (*from == *to)
        carried[d] = true;
      else if (from->constantValue() != std::optional<int64_t>(1))
        return failure();
    }
    int64_t staticCopies = 1;
    SmallVector<int64_t> symbolicCopies;
    for (int64_t d : reduced) {
      if (carried[d])
        continue;
      std::optional<SymExpr> dim = dimOf(wide, d);
      if (!dim)
        return failure();
      std::optional<int64_t> size = dim->constantValue();
      if (!size)
        symbolicCopies.push_back(d);
      else if (llvm::MulOverflow(staticCopies, *size, staticCopies))
        return failure();
    }
    bool repeats = staticCopies != 1 || !symbolicCopies.empty();
    if (repeats && op.getKind() == "prod")
      return failure();

    Location loc = op.getLoc();
    // A sum of a narrow float is computed in f32, as the reduction's
    // lowering accumulates it, and rounded once at the end: the copies
    // (beyond 65504 in f16, or inexact in bf16) would not fit otherwise.
    auto withElement = [](RankedTensorType type, Type element) {
      return RankedTensorType::get(type.getShape(), element,
                                   type.getEncoding());
    };
    Type element = result.getElementType();
    bool widen = repeats && op.getKind() == "sum" &&
                 llvm::isa<FloatType>(element) &&
                 element.getIntOrFloatBitWidth() < 32;
    RankedTensorType computed =
        widen ? withElement(result, rewriter.getF32Type()) : result;
    if (widen)
      x = rewriter.create<ConvertOp>(
          loc, withElement(xType, rewriter.getF32Type()), x);
    SmallVector<int64_t> xReduced, kept;
    for (auto [i, d] : llvm::enumerate(mapped)) {
      if (llvm::is_contained(reduced, d)) {
        xReduced.push_back(i);
        continue;
      }
      // d's place among the dims the reduction keeps.
      kept.push_back(d -
                     llvm::count_if(reduced, [&](int64_t r) { return r < d; }));
    }
    Value partial = x;
    if (!xReduced.empty())
      partial = rewriter.create<ReduceOp>(
          loc, x, op.getKindAttr(), rewriter.getDenseI64ArrayAttr(xReduced));
    Value value =
        rewriter.create<BroadcastInDimOp>(loc, computed, partial, resultShape,
                                          rewriter.getDenseI64ArrayAttr(kept));

    if (repeats && op.getKind() == "sum") {
      // The copies of each element: static sizes multiply here, symbolic
      // ones at run time.
      Value copies;
      auto times = [&](Value size) {
        copies = copies ? rewriter.create<MulOp>(loc, copies, size) : size;
      };
      auto i64Scalar = RankedTensorType::get({}, rewriter.getI64Type());
      if (staticCopies != 1)
        times(rewriter.create<ConstantOp>(
            loc, DenseElementsAttr::get(i64Scalar, staticCopies)));
      for (int64_t d : symbolicCopies)
        times(rewriter.create<DimSizeOp>(loc, broadcast.getResult(),
                                         rewriter.getI64IntegerAttr(d)));
      Value count = rewriter.create<ConvertOp>(
          loc, RankedTensorType::get({}, computed.getElementType()), copies);
      Value counts = rewriter.create<BroadcastInDimOp>(
          loc, computed, count, resultShape, rewriter.getDenseI64ArrayAttr({}));
      value = rewriter.create<MulOp>(loc, computed, value, counts);
    }
    if (widen)
      value = rewriter.create<ConvertOp>(loc, result, value);
    rewriter.replaceOp(op, value);
    return success();
  }
};

/// slice(concatenate(a, b, ...)) -> slice(b) when the slice provably lies
/// within one operand along the concatenated dim (its start at or after
/// the operand's, its limit at or before the operand's end); the slice
/// folds away if it is the whole operand. The plan then sees the data
/// movement that remains, not one that lowering would remove.
struct SliceOfConcatenate : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto concatenate = op.getOperand().getDefiningOp<ConcatenateOp>();
    if (!concatenate)
      return failure();
    int64_t dim = concatenate.getDimension();
    ShapeAttr starts = op.getStartIndices(), limits = op.getLimitIndices();
    std::optional<SymExpr> start = starts.getDim(dim),
                           limit = limits.getDim(dim);
    if (!start || !limit)
      return failure();
    auto provablyAtMost = [](const SymExpr &a, const SymExpr &b) {
      std::optional<SymExpr> gap = SymExpr::sub(b, a);
      return gap && gap->isNonNegative();
    };
    SymExpr offset = SymExpr::constant(0);
    for (Value input : concatenate.getInputs()) {
      std::optional<SymExpr> size =
          dimOf(llvm::cast<RankedTensorType>(input.getType()), dim);
      std::optional<SymExpr> end =
          size ? SymExpr::add(offset, *size) : std::nullopt;
      if (!end)
        return failure();
      if (provablyAtMost(offset, *start) && provablyAtMost(*limit, *end)) {
        std::optional<SymExpr> from = SymExpr::sub(*start, offset),
                               to = SymExpr::sub(*limit, offset);
        if (!from || !to)
          return failure();
        SmallVector<std::optional<SymExpr>> newStarts, newLimits;
        for (int64_t d = 0; d < starts.getRank(); ++d) {
          newStarts.push_back(d == dim ? from : starts.getDim(d));
          newLimits.push_back(d == dim ? to : limits.getDim(d));
        }
        MLIRContext *context = op.getContext();
        rewriter.replaceOpWithNewOp<SliceOp>(
            op, op.getType(), input, ShapeAttr::get(context, newStarts),
            ShapeAttr::get(context, newLimits), op.getStridesAttr());
        return success();
      }
      offset = *end;
    }
    return failure();
  }
};

} // namespace

void ReduceOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *context) {
  patterns.add<ReduceNothing, ReduceOfBroadcast>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<MergeReshapes, SinkReshapeRoundTrip, SinkUnitReshapeToIndices>(
      context);
}

void SliceOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                          MLIRContext *context) {
  patterns.add<SliceOfConcatenate>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<MergeTransposes>(context);
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

//===- FoldSplats.cpp - what is made of splats is a splat -------*- C++ -*-===//
//
// dhlo-fold-splats: an op whose result has one value in every element,
// because its operands do, becomes a splat of its result's shape, so that
// no large splat is ever materialised to be cut, moved or combined. A
// splat is a splat constant or a broadcast of one. Folded:
//   - slice, reshape, transpose, broadcast_in_dim and gather of a splat
//     (a gather only picks elements of its operand, at any index);
//   - pad and concatenate whose operands (and padding value) are splats of
//     one value;
//   - every elementwise op (convert included) of splats, its value computed
//     by the reference evaluator on one element of each operand, so the
//     fold means exactly what the op does at run time.
// The result is a splat constant when its shape is static, else a
// broadcast of a scalar constant to the result's symbolic shape, which
// every kernel that reads it recomputes. (A bool splat of 2^32 elements
// sliced to [seq] filled 4 GiB at load for 7 elements.)
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/dhlo/Transforms/Passes.h"

#include "ir/reference/Evaluator.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstring>

namespace anyshape::dhlo {

#define GEN_PASS_DEF_FOLDSPLATS
#include "ir/dhlo/Transforms/Passes.h.inc"

using namespace mlir;

namespace {

/// The one value of every element of `v`, if `v` is a splat: a constant
/// whose attribute is a splat (of at least one element), or a broadcast of
/// a splat. Null otherwise.
TypedAttr splatElement(Value v) {
  if (auto constant = v.getDefiningOp<ConstantOp>()) {
    auto dense = llvm::dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!dense || !dense.isSplat() || dense.getNumElements() == 0)
      return nullptr;
    return dense.getSplatValue<TypedAttr>();
  }
  if (auto broadcast = v.getDefiningOp<BroadcastInDimOp>())
    return splatElement(broadcast.getOperand());
  return nullptr;
}

/// Whether `v` is already in the form a fold makes.
bool isFoldedSplat(Value v) {
  if (v.getDefiningOp<ConstantOp>())
    return true;
  auto broadcast = v.getDefiningOp<BroadcastInDimOp>();
  return broadcast && broadcast.getOperand().getDefiningOp<ConstantOp>() &&
         llvm::cast<RankedTensorType>(broadcast.getOperand().getType())
                 .getRank() == 0;
}

/// A splat of `element` with exactly `type` (its encoding kept, so that
/// every user, a return included, sees the type it had).
FailureOr<Value> splatOf(PatternRewriter &rewriter, Location loc,
                         RankedTensorType type, TypedAttr element) {
  Attribute value = element;
  auto plain = RankedTensorType::get(type.getShape(), type.getElementType());
  if (type == plain && type.hasStaticShape())
    return Value(rewriter.create<ConstantOp>(
        loc, DenseElementsAttr::get(plain, ArrayRef<Attribute>(value))));
  ShapeAttr shape = shapeAttrOf(type);
  if (!shape)
    return failure(); // an unknown dim: no shape to broadcast to
  Value scalar = rewriter.create<ConstantOp>(
      loc,
      DenseElementsAttr::get(RankedTensorType::get({}, type.getElementType()),
                             ArrayRef<Attribute>(value)));
  return Value(rewriter.create<BroadcastInDimOp>(
      loc, type, scalar, shape, rewriter.getDenseI64ArrayAttr({})));
}

/// `element` as the wire bytes of one element of its type.
std::optional<std::string> wireBytes(TypedAttr element) {
  std::optional<v1::DType> dtype = dtypeOf(element.getType());
  if (!dtype)
    return std::nullopt;
  APInt bits;
  if (auto f = llvm::dyn_cast<FloatAttr>(element))
    bits = f.getValue().bitcastToAPInt();
  else if (auto i = llvm::dyn_cast<IntegerAttr>(element))
    bits = i.getValue();
  else
    return std::nullopt;
  uint64_t word = bits.getZExtValue(); // little-endian hosts only (ABI)
  std::string bytes(static_cast<size_t>(dtypeByteSize(*dtype)), '\0');
  std::memcpy(bytes.data(), &word, bytes.size());
  return bytes;
}

/// Element 0 of `literal` as an attribute of `type`.
TypedAttr attrOf(const Literal &literal, Type type) {
  if (literal.isFloat())
    return FloatAttr::get(type, literal.f[0]);
  if (type.isInteger(1))
    return IntegerAttr::get(type, literal.i[0] != 0);
  return IntegerAttr::get(type, literal.i[0]);
}

/// The value of elementwise `op` on operands of one element each, by the
/// reference evaluator: a graph of rank-0 constants and the op.
TypedAttr evaluateOnElements(Operation *op, ArrayRef<TypedAttr> elements) {
  std::string error;
  FailureOr<v1::Node> node =
      toWireNode(op->getName().getStringRef(), op->getAttrDictionary(), error);
  auto resultType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  std::optional<v1::DType> resultDType = dtypeOf(resultType.getElementType());
  if (failed(node) || !resultDType)
    return nullptr;
  if (node->op() == "convert")
    node->mutable_convert()->set_dtype(*resultDType);
  v1::Graph graph;
  for (auto [k, element] : llvm::enumerate(elements)) {
    std::optional<std::string> bytes = wireBytes(element);
    if (!bytes)
      return nullptr;
    v1::Node *constant = graph.add_nodes();
    constant->set_name("operand" + std::to_string(k));
    constant->set_op("constant");
    constant->mutable_constant()->set_dtype(*dtypeOf(element.getType()));
    constant->mutable_constant()->set_data(*bytes);
    node->add_operands(constant->name());
  }
  node->set_name("result");
  *graph.add_nodes() = *node;
  graph.add_outputs("result");
  StatusOr<std::vector<Literal>> value = evaluateGraph(graph, {});
  if (!value || value->size() != 1 || (*value)[0].numElements() != 1)
    return nullptr;
  return attrOf((*value)[0], resultType.getElementType());
}

/// The value every element of `op`'s result has, from its operands, if
/// they make it a splat; null otherwise.
TypedAttr foldedElement(Operation *op) {
  if (isa<SliceOp, ReshapeOp, TransposeOp, BroadcastInDimOp>(op))
    return splatElement(op->getOperand(0));
  if (auto gather = dyn_cast<GatherOp>(op)) {
    // From an empty axis a gather fails at run time: not a splat then.
    auto operand = llvm::cast<RankedTensorType>(gather.getOperand().getType());
    int64_t extent = operand.getDimSize(gather.getAxis());
    return ShapedType::isDynamic(extent) || extent == 0
               ? nullptr
               : splatElement(gather.getOperand());
  }
  if (isa<PadOp, ConcatenateOp>(op)) {
    TypedAttr element;
    for (Value operand : op->getOperands()) {
      TypedAttr next = splatElement(operand);
      if (!next || (element && next != element))
        return nullptr;
      element = next;
    }
    return element;
  }
  if (!isElementwise(op))
    return nullptr;
  SmallVector<TypedAttr> elements;
  for (Value operand : op->getOperands())
    if (!elements.emplace_back(splatElement(operand)))
      return nullptr;
  return evaluateOnElements(op, elements);
}

struct FoldSplat : RewritePattern {
  explicit FoldSplat(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<DhloDialect>(op->getDialect()) || op->getNumResults() != 1 ||
        isFoldedSplat(op->getResult(0)))
      return failure();
    auto type = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
    TypedAttr element = type ? foldedElement(op) : nullptr;
    if (!element)
      return failure();
    FailureOr<Value> splat = splatOf(rewriter, op->getLoc(), type, element);
    if (failed(splat))
      return failure();
    rewriter.replaceOp(op, *splat);
    return success();
  }
};

struct FoldSplatsPass : impl::FoldSplatsBase<FoldSplatsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldSplat>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::dhlo

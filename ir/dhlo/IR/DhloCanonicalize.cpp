//===- DhloCanonicalize.cpp - dhlo canonicalization patterns ---*- C++ -*-===//
//
// The canonicalization patterns: chains of reshapes and transposes merged,
// unit-dim round trips sunk to where linalg can fuse through them (also
// those a broadcast ends; a splat is a broadcast scalar or a splat
// constant alike), broadcasts of data reading it without the unit dims
// they stretch, slices of a concatenate's operand taken from it, a
// concatenate's empty operands dropped (reductions' patterns are in
// ReduceCanonicalize.cpp). A pattern that fails leaves the IR as it found
// it (dhlo-shape-simplification's driver would not converge).
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/IR/DhloDialect.h"

#include "ir/graph/OpRegistry.h"
#include "ir/graph/TensorType.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace anyshape::dhlo {

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

/// Elementwise `op` built again over `operands`, its one result typed
/// `type` (the same math in another shape).
Value rebuilt(PatternRewriter &rewriter, Operation *op, ValueRange operands,
              Type type) {
  OperationState state(op->getLoc(), op->getName(), operands, {type},
                       op->getAttrs());
  return rewriter.create(state)->getResult(0);
}

/// A broadcast of a rank-0 value: built in any shape as cheaply.
BroadcastInDimOp scalarSplat(Operation *op) {
  auto splat = llvm::dyn_cast_or_null<BroadcastInDimOp>(op);
  return splat && llvm::cast<RankedTensorType>(splat.getOperand().getType())
                          .getRank() == 0
             ? splat
             : BroadcastInDimOp();
}

/// A constant whose elements are all one value (dhlo-fold-splats makes
/// static splats such constants: dense<0> : tensor<4x1xi64>); null
/// otherwise.
ConstantOp splatConstant(Operation *op) {
  auto constant = llvm::dyn_cast_or_null<ConstantOp>(op);
  auto value = constant ? llvm::dyn_cast<DenseElementsAttr>(constant.getValue())
                        : nullptr;
  return value && value.isSplat() ? constant : ConstantOp();
}

/// One value in every element: a scalar splat or a splat constant.
bool isSplat(Operation *op) { return scalarSplat(op) || splatConstant(op); }

/// The splat `op` (isSplat) built again as `type`: a constant when `type`
/// is static, else a broadcast of its scalar.
Value splatAs(PatternRewriter &rewriter, Operation *op, RankedTensorType type) {
  Location loc = op->getLoc();
  Value scalar;
  if (BroadcastInDimOp splat = scalarSplat(op)) {
    scalar = splat.getOperand();
  } else {
    Attribute element =
        llvm::cast<DenseElementsAttr>(splatConstant(op).getValue())
            .getSplatValue<Attribute>();
    if (type.hasStaticShape())
      return rewriter.create<ConstantOp>(
          loc,
          DenseElementsAttr::get(
              RankedTensorType::get(type.getShape(), type.getElementType()),
              element));
    scalar = rewriter.create<ConstantOp>(
        loc, DenseElementsAttr::get(
                 RankedTensorType::get({}, type.getElementType()), element));
  }
  return rewriter.create<BroadcastInDimOp>(loc, type, scalar, shapeAttrOf(type),
                                           rewriter.getDenseI64ArrayAttr({}));
}

/// reshape(f(reshape(y), splat, ...)) -> f(reshape(y), splat', ...) for
/// an elementwise f: f runs on the outer reshape's shape, each reshaped
/// operand read through one reshape of its source (none when the source
/// has that shape already). Element order never changes, so any pair of
/// reshapes merges. Two forms matter: the round trip through a unit dim
/// that an ONNX keepdims reduction followed by a broadcasting op makes
/// ([b] -> [b, 1] -> max with a splat -> [b]), and a view that splits a
/// dim then drops a unit one (Falcon's alibi: [4b, 1, s] -> [b, 4, 1, s]
/// -> scaled -> [b, 4, s]). Left in, the reshape between f and its
/// consumer splits a stitched row kernel (normalize's x / max(norm, eps),
/// the attention softmax the alibi feeds), which the plan has as one.
struct MergeReshapesAcrossElementwise : OpRewritePattern<ReshapeOp> {
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
    SmallVector<Operation *> splats; // per operand, null if undone
    bool undone = false;
    for (Value v : f->getOperands()) {
      if (auto inner = v.getDefiningOp<ReshapeOp>()) {
        operands.push_back(inner.getOperand());
        splats.push_back(nullptr);
        undone = true;
        continue;
      }
      if (!isSplat(v.getDefiningOp()))
        return failure();
      operands.push_back(v);
      splats.push_back(v.getDefiningOp());
    }
    ShapeAttr shape = shapeAttrOf(result);
    if (!undone || !shape)
      return failure();
    auto withElement = [&](Type element) {
      return RankedTensorType::get(result.getShape(), element,
                                   result.getEncoding());
    };
    auto elementOf = [](Value v) {
      return llvm::cast<RankedTensorType>(v.getType()).getElementType();
    };
    for (auto [operand, splat] : llvm::zip(operands, splats)) {
      if (splat)
        operand = splatAs(rewriter, splat, withElement(elementOf(operand)));
      else if (!sameShape(operand.getType()))
        operand = rewriter.create<ReshapeOp>(
            op.getLoc(), withElement(elementOf(operand)), operand, shape);
    }
    rewriter.replaceOp(op, rebuilt(rewriter, f, operands, result));
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

/// An elementwise op used once (by the chain above it), within the depth
/// the chain walks.
bool isChainLink(Operation *op, int depth) {
  return depth < 16 && isElementwise(op) && op->getNumResults() == 1 &&
         op->hasOneUse();
}

/// The dims of `to` that broadcast `leaf` maps its operand onto once a
/// unit-dim reshape into `to` (`lands`, unitDimReshape) moves onto it,
/// in order: a dim landing on a removed unit dim is itself 1, and maps to
/// the first free unit dim of `to` after the previous one. Nullopt when
/// no such order exists.
std::optional<SmallVector<int64_t>> broadcastLeafDims(BroadcastInDimOp leaf,
                                                      ArrayRef<int64_t> lands,
                                                      RankedTensorType to) {
  llvm::SmallBitVector landed(to.getRank());
  for (int64_t land : lands)
    if (land >= 0)
      landed.set(land);
  SmallVector<int64_t> dims;
  int64_t previous = -1;
  for (int64_t d : leaf.getBroadcastDimensions()) {
    int64_t dim = lands[d];
    if (dim < 0) {
      dim = previous + 1;
      while (dim < to.getRank() && landed[dim])
        ++dim;
    }
    if (dim <= previous || dim >= to.getRank())
      return std::nullopt;
    dims.push_back(previous = dim);
  }
  return dims;
}

/// Whether a unit-dim reshape (`lands`, unitDimReshape) of `v` can move
/// to the leaves of the elementwise ops computing it, each used once and
/// of v's shape: an iota (kept only if its dim survives), a scalar splat
/// or a splat constant is built again in the new layout, a broadcast
/// broadcasts into it instead (broadcastLeafDims), a function argument is
/// reshaped (a view). Any other leaf would put the reshape inside a kernel
/// again. `rebuilt` is set when an iota or a broadcast is among the
/// leaves.
bool reshapableChain(Value v, ArrayRef<int64_t> lands, RankedTensorType to,
                     int depth, bool &rebuilt) {
  Operation *op = v.getDefiningOp();
  if (auto iota = llvm::dyn_cast_or_null<IotaOp>(op)) {
    rebuilt = true;
    return lands[iota.getIotaDimension()] >= 0;
  }
  if (isSplat(op))
    return true;
  if (auto broadcast = llvm::dyn_cast_or_null<BroadcastInDimOp>(op)) {
    rebuilt = true;
    return broadcastLeafDims(broadcast, lands, to).has_value();
  }
  if (!op) // a function argument: reshaped, it is a view
    return depth > 0;
  if (!isChainLink(op, depth))
    return false;
  auto type = llvm::cast<RankedTensorType>(v.getType());
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    auto t = llvm::cast<RankedTensorType>(operand.getType());
    return t.getShape() == type.getShape() &&
           t.getEncoding() == type.getEncoding() &&
           reshapableChain(operand, lands, to, depth + 1, rebuilt);
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
  if (isSplat(op))
    return splatAs(rewriter, op, type);
  if (auto broadcast = llvm::dyn_cast_or_null<BroadcastInDimOp>(op))
    return rewriter.create<BroadcastInDimOp>(
        broadcast.getLoc(), type, broadcast.getOperand(), shapeAttrOf(target),
        rewriter.getDenseI64ArrayAttr(
            *broadcastLeafDims(broadcast, lands, target)));
  if (!op)
    return rewriter.create<ReshapeOp>(v.getLoc(), type, v, shapeAttrOf(target));
  SmallVector<Value> operands;
  for (Value operand : op->getOperands())
    operands.push_back(
        reshapeChain(rewriter, operand, target, lands, depth + 1));
  return rebuilt(rewriter, op, operands, type);
}

/// reshape(f(...)) -> f'(...) built in the reshaped layout, for a reshape
/// that only inserts or removes unit dims of elementwise ops over an iota
/// or broadcasts: the iotas, splats and broadcasts are built in
/// the new layout, function arguments reshaped (a view). An iota: the
/// positions iota + past, reshaped [p] -> [1, 1, 1, p] for a causal mask,
/// where linalg cannot move the reshape (its reshape expansion refuses
/// linalg.index with dynamic dims). Broadcasts: ALiBi's slopes times a
/// [1, 1] factor, reshaped [1, h, 1] -> [1, h, 1, 1] at a key length of
/// 1, where the reshape would sit between the product and the softmax.
/// Left in, either reshape makes the plan's one kernel two.
struct SinkUnitReshapeToLeaves : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto from = llvm::cast<RankedTensorType>(op.getOperand().getType());
    auto to = llvm::cast<RankedTensorType>(op.getType());
    if (!fullyKnown(to) || !shapeAttrOf(to))
      return failure();
    std::optional<SmallVector<int64_t>> lands = unitDimReshape(from, to);
    bool rebuilt = false;
    if (!lands || !reshapableChain(op.getOperand(), *lands, to, 0, rebuilt) ||
        !rebuilt)
      return failure();
    rewriter.replaceOp(op,
                       reshapeChain(rewriter, op.getOperand(), to, *lands, 0));
    return success();
  }
};

/// For a reshape that only inserts dims of size 1 (every operand dim kept,
/// in order, its own unit dims included): the result dim each operand dim
/// lands on; nullopt otherwise.
std::optional<SmallVector<int64_t>> insertedUnitDims(RankedTensorType from,
                                                     RankedTensorType to) {
  SmallVector<int64_t> lands;
  for (int64_t j = 0; j < to.getRank(); ++j) {
    std::optional<SymExpr> size = dimOf(to, j);
    if (!size)
      return std::nullopt;
    if (int64_t i = lands.size(); i < from.getRank() && dimOf(from, i) == size)
      lands.push_back(j);
    else if (size->constantValue() != 1)
      return std::nullopt;
  }
  if (static_cast<int64_t>(lands.size()) != from.getRank())
    return std::nullopt;
  return lands;
}

/// The shape the unit-dim reshapes at the leaves of `v` start from, when
/// `v` is elementwise ops (each used once, of v's shape; the root, `v`'s
/// op, also used elsewhere with `sharedRoot`) over such reshapes, all
/// from one shape, scalar splats, and, when `broadcasts` collects them,
/// other broadcasts (which the caller checks against that shape,
/// broadcastsNarrow): what a keepdim reduction followed by math on the
/// kept row makes (PyTorch's layer norm: rsqrt(var.reshape([b, s, 1]) +
/// eps); its group norm also multiplies by a per-channel weight
/// broadcast there). Null otherwise.
RankedTensorType
unitReshapedChain(Value v, int depth, bool sharedRoot = false,
                  SmallVectorImpl<BroadcastInDimOp> *broadcasts = nullptr) {
  Operation *op = v.getDefiningOp();
  if (auto reshape = llvm::dyn_cast_or_null<ReshapeOp>(op)) {
    auto from = llvm::cast<RankedTensorType>(reshape.getOperand().getType());
    return insertedUnitDims(from, llvm::cast<RankedTensorType>(v.getType())) &&
                   fullyKnown(from) && shapeAttrOf(from)
               ? from
               : RankedTensorType();
  }
  bool link = op && (isChainLink(op, depth) ||
                     (sharedRoot && depth == 0 && isElementwise(op) &&
                      op->getNumResults() == 1));
  if (!link)
    return RankedTensorType();
  RankedTensorType narrow;
  auto type = llvm::cast<RankedTensorType>(v.getType());
  for (Value operand : op->getOperands()) {
    auto t = llvm::cast<RankedTensorType>(operand.getType());
    if (t.getShape() != type.getShape() ||
        t.getEncoding() != type.getEncoding())
      return RankedTensorType();
    if (isSplat(operand.getDefiningOp()))
      continue;
    if (auto broadcast = operand.getDefiningOp<BroadcastInDimOp>();
        broadcast && broadcasts) {
      broadcasts->push_back(broadcast);
      continue;
    }
    RankedTensorType from =
        unitReshapedChain(operand, depth + 1, false, broadcasts);
    if (!from || (narrow && (from.getShape() != narrow.getShape() ||
                             from.getEncoding() != narrow.getEncoding())))
      return RankedTensorType();
    narrow = from;
  }
  return narrow;
}

/// Whether each of `broadcasts` (leaves of a unitReshapedChain whose
/// wide dims are `lands`' targets plus inserted unit dims) maps its
/// operand only onto dims the narrow shape keeps: then it can broadcast
/// into the narrow shape instead.
bool broadcastsNarrow(ArrayRef<BroadcastInDimOp> broadcasts,
                      ArrayRef<int64_t> lands) {
  return llvm::all_of(broadcasts, [&](BroadcastInDimOp broadcast) {
    return llvm::all_of(broadcast.getBroadcastDimensions(), [&](int64_t d) {
      return llvm::is_contained(lands, d);
    });
  });
}

/// `v` (unitReshapedChain, its broadcasts broadcastsNarrow) computed in
/// `narrow`'s shape, before the reshapes; `lands` says where each narrow
/// dim sits in v's shape.
Value narrowChain(PatternRewriter &rewriter, Value v, RankedTensorType narrow,
                  ArrayRef<int64_t> lands) {
  Operation *op = v.getDefiningOp();
  if (auto reshape = llvm::dyn_cast<ReshapeOp>(op))
    return reshape.getOperand();
  auto type = RankedTensorType::get(
      narrow.getShape(),
      llvm::cast<RankedTensorType>(v.getType()).getElementType(),
      narrow.getEncoding());
  if (isSplat(op))
    return splatAs(rewriter, op, type);
  if (auto broadcast = llvm::dyn_cast<BroadcastInDimOp>(op)) {
    SmallVector<int64_t> dims; // the narrow dims the operand's dims land on
    for (int64_t d : broadcast.getBroadcastDimensions())
      dims.push_back(llvm::find(lands, d) - lands.begin());
    return rewriter.create<BroadcastInDimOp>(
        broadcast.getLoc(), type, broadcast.getOperand(), shapeAttrOf(narrow),
        rewriter.getDenseI64ArrayAttr(dims));
  }
  SmallVector<Value> operands;
  for (Value operand : op->getOperands())
    operands.push_back(narrowChain(rewriter, operand, narrow, lands));
  return rebuilt(rewriter, op, operands, type);
}

/// broadcast_in_dim(f(reshape(y), splat)) -> broadcast_in_dim(f'(y,
/// splat')) for reshapes that only insert unit dims (unitReshapedChain),
/// f possibly empty: the math is done on y's shape and the broadcast
/// reads it directly. Left in, the unit dim sits between a stitched row's
/// reduction and its use, and the plan's one kernel is two in codegen.
struct BroadcastThroughUnitReshapes : OpRewritePattern<BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastInDimOp op,
                                PatternRewriter &rewriter) const override {
    auto wide = llvm::cast<RankedTensorType>(op.getOperand().getType());
    if (!fullyKnown(wide))
      return failure();
    RankedTensorType narrow = unitReshapedChain(op.getOperand(), 0);
    if (!narrow)
      return failure();
    SmallVector<int64_t> lands = *insertedUnitDims(narrow, wide);
    ArrayRef<int64_t> mapped = op.getBroadcastDimensions();
    SmallVector<int64_t> dims;
    for (int64_t land : lands)
      dims.push_back(mapped[land]);
    Value operand = narrowChain(rewriter, op.getOperand(), narrow, lands);
    rewriter.replaceOpWithNewOp<BroadcastInDimOp>(
        op, op.getType(), operand, op.getShape(),
        rewriter.getDenseI64ArrayAttr(dims));
    return success();
  }
};

/// Whether `v` is elementwise ops (each used once, within the depth a
/// chain walks) over scalar splats and reshapes of values shaped `wide`:
/// what a broadcast back to `wide` may undo. `sawReshape` is set when a
/// reshape is among the leaves.
bool undoableChain(Value v, RankedTensorType wide, int depth,
                   bool &sawReshape) {
  Operation *op = v.getDefiningOp();
  if (auto reshape = llvm::dyn_cast_or_null<ReshapeOp>(op)) {
    sawReshape = true;
    auto from = llvm::cast<RankedTensorType>(reshape.getOperand().getType());
    return from.getShape() == wide.getShape() &&
           from.getEncoding() == wide.getEncoding();
  }
  if (isSplat(op))
    return true;
  if (!op || !isChainLink(op, depth))
    return false;
  auto type = llvm::cast<RankedTensorType>(v.getType());
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return llvm::cast<RankedTensorType>(operand.getType()).getShape() ==
               type.getShape() &&
           undoableChain(operand, wide, depth + 1, sawReshape);
  });
}

/// `v` (undoableChain) built again in the shape of `wide`.
Value undoChain(PatternRewriter &rewriter, Value v, RankedTensorType wide) {
  Operation *op = v.getDefiningOp();
  if (auto reshape = llvm::dyn_cast<ReshapeOp>(op))
    return reshape.getOperand();
  auto type = RankedTensorType::get(
      wide.getShape(),
      llvm::cast<RankedTensorType>(v.getType()).getElementType(),
      wide.getEncoding());
  if (isSplat(op))
    return splatAs(rewriter, op, type);
  SmallVector<Value> operands;
  for (Value operand : op->getOperands())
    operands.push_back(undoChain(rewriter, operand, wide));
  return rebuilt(rewriter, op, operands, type);
}

/// broadcast_in_dim(f(reshape(y), splat)) -> f'(y, splat') when the
/// broadcast only puts back the unit dims the reshapes took out of y's
/// type: both keep the elements' order, so the round trip is y itself,
/// and f (possibly empty) is done in y's shape. A keepdims reduction over
/// dims Dynamo or a static compile made 1 (softmax over one key) is a
/// reshape, and its broadcast back over the row (through ONNX 23's
/// guard for an all -inf row) then is this round trip; left in, the
/// reshapes sit inside the row's kernel and the plan's one kernel is
/// three in codegen.
struct BroadcastUndoesUnitReshapes : OpRewritePattern<BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastInDimOp op,
                                PatternRewriter &rewriter) const override {
    auto x = llvm::cast<RankedTensorType>(op.getOperand().getType());
    RankedTensorType result = op.getType();
    if (!fullyKnown(x) || !fullyKnown(result))
      return failure();
    // In order, stretching nothing, and only 1s between: a reshape.
    ArrayRef<int64_t> dims = op.getBroadcastDimensions();
    llvm::SmallBitVector mapped(result.getRank());
    for (auto [i, d] : llvm::enumerate(dims)) {
      if ((i > 0 && d <= dims[i - 1]) || dimOf(x, i) != dimOf(result, d))
        return failure();
      mapped.set(d);
    }
    for (int64_t d = 0; d < result.getRank(); ++d)
      if (!mapped[d] && result.getDimSize(d) != 1)
        return failure();
    bool sawReshape = false;
    if (!undoableChain(op.getOperand(), result, 0, sawReshape) || !sawReshape)
      return failure();
    rewriter.replaceOp(op, undoChain(rewriter, op.getOperand(), result));
    return success();
  }
};

/// broadcast_in_dim(x) -> broadcast_in_dim(reshape(x)) without the static
/// 1s of x that the broadcast stretches: the affine map that reads x then
/// follows the result's indices (a projected permutation, which linalg
/// moves reshapes through) instead of reading index 0. A [1] scale over a
/// tensor, a [b, 1, s, t] mask over the heads, when they are data (not
/// computed by the kernel that broadcasts them). Left in, a reshape in the
/// same kernel (grouped-query attention's repeated heads) cannot fold
/// into the loop, and the plan's one kernel is two in codegen. (A 1 onto
/// a 1 is read at the result's index already, BroadcastStretch.cpp; a
/// chain of unit reshapes is BroadcastThroughUnitReshapes'.)
struct BroadcastDropsStretchedUnitDims : OpRewritePattern<BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastInDimOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getOperand();
    auto xType = llvm::cast<RankedTensorType>(x.getType());
    RankedTensorType result = op.getType();
    // Only x that is data (an argument, a constant, a kernel's result):
    // after an elementwise op, a broadcast or a reshape, the new reshape
    // would sit between them and the broadcast inside a row kernel.
    Operation *producer = x.getDefiningOp();
    if (!fullyKnown(xType) ||
        (producer &&
         (isElementwise(producer) ||
          llvm::isa<BroadcastInDimOp, ReshapeOp, IotaOp>(producer))))
      return failure();
    SmallVector<std::optional<SymExpr>> kept;
    SmallVector<int64_t> mapping;
    for (auto [i, d] : llvm::enumerate(op.getBroadcastDimensions())) {
      std::optional<SymExpr> from = dimOf(xType, i), to = dimOf(result, d);
      if (from->constantValue() == 1 &&
          (!to || to->constantValue() != std::optional<int64_t>(1)))
        continue; // stretched
      kept.push_back(from);
      mapping.push_back(d);
    }
    if (static_cast<int64_t>(kept.size()) == xType.getRank())
      return failure();
    // A reshape's shape names sizes by the graph's own symbols; a fresh
    // one (a size validation could not write, such as a -1 that does not
    // divide) types x but no reshape can name it: such an x stays.
    for (const std::optional<SymExpr> &dim : kept)
      if (!llvm::all_of(dim->leafSymbols(), isValidSymbolName))
        return failure();
    Value narrow = rewriter.create<ReshapeOp>(
        op.getLoc(), x, ShapeAttr::get(op.getContext(), kept));
    rewriter.replaceOpWithNewOp<BroadcastInDimOp>(
        op, result, narrow, op.getShape(),
        rewriter.getDenseI64ArrayAttr(mapping));
    return success();
  }
};

/// reshape(f(reshape(y), splat, broadcast(w))) -> f'(y, splat', w'), for
/// reshapes that only insert unit dims (unitReshapedChain) into the shape
/// the outer reshape takes back: the math is done on y's shape, and a
/// broadcast among the leaves broadcasts into it instead when it maps
/// nothing onto the unit dims. PyTorch's group norm decomposed computes
/// its statistics as [n, g, 1, 1], scales them by a per-channel weight
/// there, and takes them back to [n, g] before broadcasting them over the
/// group; left in, the unit dims split the stitched kernel of the
/// statistics in two. f may have other users, which keep the wide value.
struct ReshapeRoundTripThroughChain : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto wide = llvm::cast<RankedTensorType>(op.getOperand().getType());
    auto to = llvm::cast<RankedTensorType>(op.getType());
    if (!fullyKnown(wide) || !fullyKnown(to))
      return failure();
    SmallVector<BroadcastInDimOp> broadcasts;
    RankedTensorType narrow =
        unitReshapedChain(op.getOperand(), 0, /*sharedRoot=*/true, &broadcasts);
    if (!narrow || narrow.getShape() != to.getShape() ||
        narrow.getEncoding() != to.getEncoding())
      return failure();
    std::optional<SmallVector<int64_t>> lands = insertedUnitDims(narrow, wide);
    if (!lands || !broadcastsNarrow(broadcasts, *lands))
      return failure();
    rewriter.replaceOp(op, narrowChain(rewriter, op.getOperand(), to, *lands));
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

/// concatenate(a, empty, b) -> concatenate(a, b): an operand of size 0
/// along the dim adds nothing (TorchScript's export of a rotary embedding
/// over the whole head, torch.cat((rotated, q[..., 16:])), concatenates
/// one); with one operand left, or one to begin with, that operand. Left
/// in, the copy the concatenate lowers to would write the operand's
/// kernel result again, outside its kernel.
struct ConcatenateOfWhatMatters : OpRewritePattern<ConcatenateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatenateOp op,
                                PatternRewriter &rewriter) const override {
    int64_t dim = op.getDimension();
    SmallVector<Value> kept;
    for (Value input : op.getInputs())
      if (llvm::cast<RankedTensorType>(input.getType()).getDimSize(dim) != 0)
        kept.push_back(input);
    // One operand (TorchScript writes torch.cat([empty, k]) so, a cross-
    // attention cache's first update) is the concatenate as it is.
    if (op.getInputs().size() == 1)
      kept.assign(op.getInputs().begin(), op.getInputs().end());
    else if (kept.size() == op.getInputs().size() || kept.empty())
      return failure();
    if (kept.size() == 1 && kept[0].getType() == op.getType()) {
      rewriter.replaceOp(op, kept[0]);
      return success();
    }
    if (kept.size() == 1)
      return failure(); // its type says less than the result's: keep both
    rewriter.replaceOpWithNewOp<ConcatenateOp>(op, op.getType(), kept,
                                               op.getDimensionAttr());
    return success();
  }
};

} // namespace

void ConcatenateOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                MLIRContext *context) {
  patterns.add<ConcatenateOfWhatMatters>(context);
}

void BroadcastInDimOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                   MLIRContext *context) {
  patterns.add<BroadcastUndoesUnitReshapes, BroadcastThroughUnitReshapes,
               BroadcastDropsStretchedUnitDims>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<MergeReshapes, MergeReshapesAcrossElementwise,
               SinkUnitReshapeToLeaves, ReshapeRoundTripThroughChain>(context);
}

void SliceOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                          MLIRContext *context) {
  patterns.add<SliceOfConcatenate>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<MergeTransposes>(context);
}

} // namespace anyshape::dhlo

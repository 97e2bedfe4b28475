//===- ReduceCanonicalize.cpp - dhlo.reduce's patterns ----------*- C++ -*-===//
//
// The canonicalization patterns of dhlo.reduce: a reduction reads the data
// it reduces where it lies. Over nothing it is its identity; over dims of
// 1 a reshape; over a broadcast it reduces the broadcast's operand; over a
// reshape that merges dims (or an elementwise op of one) it reduces the
// unmerged dims. Each leaves the IR as it found it when it fails
// (dhlo-shape-simplification's driver would not converge).
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/dhlo/IR/ReshapeGroups.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace anyshape::dhlo {

namespace {

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

/// reduce(x) over dims of static size 1 only -> reshape(x): each result
/// element is its one operand element, whatever the kind. Left as a
/// reduction, its loop over 1 has nothing to accumulate and keeps the
/// users that broadcast it back (x - max(x) over a last dim Dynamo
/// specialised to 1: softmax over one key) from being one kernel.
struct ReduceOfOne : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto operand = llvm::cast<RankedTensorType>(op.getOperand().getType());
    auto result = llvm::cast<RankedTensorType>(op.getType());
    ShapeAttr shape = shapeAttrOf(result);
    if (!shape || operand.getElementType() != result.getElementType() ||
        !llvm::all_of(op.getDimensions(),
                      [&](int64_t d) { return operand.getDimSize(d) == 1; }))
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, result, op.getOperand(), shape);
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

/// A reshape that merges dims of its operand (ReshapeGroups.h) into fewer,
/// read by `user` alone; null for any other value.
ReshapeOp mergeOf(Value v, Operation *user) {
  auto reshape = v.getDefiningOp<ReshapeOp>();
  if (!reshape ||
      llvm::any_of(reshape->getUsers(),
                   [&](Operation *other) { return other != user; }) ||
      llvm::cast<RankedTensorType>(reshape.getOperand().getType()).getRank() <=
          reshape.getType().getRank() ||
      !reshapeGroups(reshape))
    return ReshapeOp();
  return reshape;
}

bool sameShape(Type a, Type b) {
  auto ta = llvm::cast<RankedTensorType>(a),
       tb = llvm::cast<RankedTensorType>(b);
  return ta.getShape() == tb.getShape() && ta.getEncoding() == tb.getEncoding();
}

/// reduce(merge(x)) -> reshape(reduce(x)), and reduce(f(merge(x), y, ...))
/// -> reshape(reduce(f(x, split(y), ...))) for an elementwise f used once,
/// where merge is a reshape that merges dims of x (ReshapeGroups.h), read
/// by nothing else (a merge other ops read stays the space they share: a
/// decomposed layer norm's rows, its mean and variance stitched). Each
/// merged dim is reduced or kept whole, so the reduction reduces the dims
/// of x it merged, and a reshape merges the kept ones after it (none when
/// no kept dim merged any). Left in, the merge sits between a reduction
/// and the elementwise ops before it in one kernel, and linalg folds no
/// collapse into a reduction's loops (they are not all parallel): codegen
/// would make two kernels of the plan's one (NLLLoss at static shapes:
/// gather -> neg -> squeeze -> mul by the weights -> sum).
struct ReduceOfMergedDims : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto result = llvm::cast<RankedTensorType>(op.getType());
    ShapeAttr resultShape = shapeAttrOf(result);
    if (!resultShape)
      return failure();
    Operation *f = nullptr;
    ReshapeOp merge = mergeOf(op.getOperand(), op);
    if (!merge) {
      f = op.getOperand().getDefiningOp();
      if (!f || f->getNumResults() != 1 || !f->hasOneUse() || !isElementwise(f))
        return failure();
      for (Value v : f->getOperands())
        if ((merge = mergeOf(v, f)))
          break;
    }
    if (!merge)
      return failure();
    SmallVector<SmallVector<int64_t, 2>> groups = *reshapeGroups(merge);
    Value x = merge.getOperand();
    auto unmerged = llvm::cast<RankedTensorType>(x.getType());
    ShapeAttr unmergedShape = shapeAttrOf(unmerged);
    // Types are compared below as shapes: only sound when every dim is
    // known (two tensor<?xf32> may hold different shapes).
    if (f && (!unmergedShape || !fullyKnown(unmerged)))
      return failure();
    Location loc = op.getLoc();
    if (f) {
      auto typed = [&](Value v) {
        return RankedTensorType::get(
            unmerged.getShape(),
            llvm::cast<RankedTensorType>(v.getType()).getElementType(),
            unmerged.getEncoding());
      };
      SmallVector<Value> operands;
      for (Value v : f->getOperands()) {
        auto reshape = v.getDefiningOp<ReshapeOp>();
        if (reshape && sameShape(reshape.getOperand().getType(), unmerged))
          operands.push_back(reshape.getOperand());
        else
          operands.push_back(
              rewriter.create<ReshapeOp>(loc, typed(v), v, unmergedShape));
      }
      OperationState state(f->getLoc(), f->getName(), operands,
                           {typed(f->getResult(0))}, f->getAttrs());
      x = rewriter.create(state)->getResult(0);
    }
    SmallVector<int64_t> xReduced;
    for (int64_t d : op.getDimensions())
      llvm::append_range(xReduced, groups[d]);
    llvm::sort(xReduced);
    DenseI64ArrayAttr dims = rewriter.getDenseI64ArrayAttr(xReduced);
    // Kept dims that merged nothing are the result's dims as they are.
    if (unmerged.getRank() - static_cast<int64_t>(xReduced.size()) ==
        result.getRank()) {
      rewriter.replaceOpWithNewOp<ReduceOp>(op, result, x, op.getKindAttr(),
                                            dims);
      return success();
    }
    Value reduced = rewriter.create<ReduceOp>(loc, x, op.getKindAttr(), dims);
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, result, reduced, resultShape);
    return success();
  }
};

} // namespace

void ReduceOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *context) {
  patterns
      .add<ReduceNothing, ReduceOfOne, ReduceOfBroadcast, ReduceOfMergedDims>(
          context);
}

} // namespace anyshape::dhlo

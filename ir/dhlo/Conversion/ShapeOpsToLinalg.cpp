//===- ShapeOpsToLinalg.cpp - data movement ops -----------------*- C++ -*-===//
//
// broadcast_in_dim, reshape, transpose, slice, concatenate, pad, constant
// and dim_size as tensor/linalg ops. A broadcast dim that may or may not
// stretch at run time (a symbolic operand dim that could be 1) reads its
// operand through a select on the dim's size; dims the shape analysis
// proved equal, or static, use plain affine maps (the pass records which in
// the `dhlo.stretch` attribute before lowering). A gather from a reshaped
// slice reads the slice through the reshape's index arithmetic.
//
//===----------------------------------------------------------------------===//
#include "LoweringUtils.h"
#include "ir/graph/ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace anyshape::dhlo {
namespace {

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}

struct BroadcastInDimLowering : OpRewritePattern<BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastInDimOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<Value> init = emptyResult(op, rewriter);
    if (failed(init))
      return failure();
    Value operand = op.getOperand();
    auto operandType = llvm::cast<RankedTensorType>(operand.getType());
    int64_t rank = op.getType().getRank();
    ArrayRef<int64_t> mapping = op.getBroadcastDimensions();
    // Per operand dim: 0 = always index 0 (static 1), 1 = same index as the
    // result dim, 2 = decided at run time by the operand dim's size.
    SmallVector<int64_t> stretch;
    auto recorded = op->getAttrOfType<DenseI64ArrayAttr>("dhlo.stretch");
    for (int64_t i = 0; i < operandType.getRank(); ++i) {
      if (recorded)
        stretch.push_back(recorded[i]);
      else if (operandType.getDimSize(i) == 1)
        stretch.push_back(0);
      else
        stretch.push_back(operandType.isDynamicDim(i) ? 2 : 1);
    }
    bool affine = !llvm::is_contained(stretch, 2);
    if (affine) {
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < operandType.getRank(); ++i)
        exprs.push_back(stretch[i] == 0
                            ? rewriter.getAffineConstantExpr(0)
                            : rewriter.getAffineDimExpr(mapping[i]));
      SmallVector<AffineMap> maps{
          AffineMap::get(rank, 0, exprs, rewriter.getContext()),
          rewriter.getMultiDimIdentityMap(rank)};
      auto generic = rewriter.create<linalg::GenericOp>(
          loc, TypeRange{init->getType()}, ValueRange{operand},
          ValueRange{*init}, maps, parallelIterators(rank),
          [](OpBuilder &b, Location l, ValueRange args) {
            b.create<linalg::YieldOp>(l, args[0]);
          });
      rewriter.replaceOp(op, generic.getResults());
      return success();
    }
    // Runtime-decided dims: index = (operand dim == 1) ? 0 : result index.
    SmallVector<Value> isOne;
    for (int64_t i = 0; i < operandType.getRank(); ++i)
      isOne.push_back(rewriter.create<arith::CmpIOp>(
          loc, arith::CmpIPredicate::eq, dimValue(rewriter, loc, operand, i),
          indexConstant(rewriter, loc, 1)));
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{init->getType()}, ValueRange{}, ValueRange{*init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
        parallelIterators(rank), [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> indices;
          Value zero = indexConstant(b, l, 0);
          for (int64_t i = 0; i < operandType.getRank(); ++i) {
            Value index = b.create<linalg::IndexOp>(l, mapping[i]);
            indices.push_back(stretch[i] == 0 ? zero
                              : stretch[i] == 1
                                  ? index
                                  : Value(b.create<arith::SelectOp>(
                                        l, isOne[i], zero, index)));
          }
          b.create<linalg::YieldOp>(
              l, Value(b.create<tensor::ExtractOp>(l, operand, indices)));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct ReshapeLowering : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<SmallVector<OpFoldResult>> dims = resultDims(op, rewriter);
    if (failed(dims))
      return failure();
    // A split or merge of dims (recordReshapeGroups) is a view that linalg
    // fusion can see through: a bias add before a head split fuses into
    // the transpose after it. Any other reshape goes through memory order.
    if (auto groups = op->getAttrOfType<ArrayAttr>(kReshapeGroupsAttr)) {
      SmallVector<ReassociationIndices> reassociation;
      for (Attribute group : groups)
        reassociation.emplace_back(
            llvm::cast<DenseI64ArrayAttr>(group).asArrayRef());
      auto from = llvm::cast<RankedTensorType>(op.getOperand().getType());
      if (from.getRank() < op.getType().getRank())
        rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
            op, withoutEncoding(op.getType()), op.getOperand(), reassociation,
            *dims);
      else
        rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
            op, withoutEncoding(op.getType()), op.getOperand(), reassociation);
      return success();
    }
    SmallVector<Value> sizes;
    for (OpFoldResult dim : *dims)
      sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, dim));
    // The type given: to a scalar the shape has no elements to infer it
    // from (the builder without it crashed).
    Value shape = rewriter.create<tensor::FromElementsOp>(
        loc,
        RankedTensorType::get({static_cast<int64_t>(sizes.size())},
                              rewriter.getIndexType()),
        sizes);
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(
        op, withoutEncoding(op.getType()), op.getOperand(), shape);
    return success();
  }
};

/// Whether `value` is a slice: an extract_slice, or a fusion's result that
/// yields one (a fusion of a slice alone is a view, not a kernel).
bool isSlice(Value value) {
  if (auto fusion = value.getDefiningOp<FusionOp>()) {
    Operation *yield = fusion.getBody().front().getTerminator();
    value = yield->getOperand(llvm::cast<OpResult>(value).getResultNumber());
  }
  return value.getDefiningOp<tensor::ExtractSliceOp>() != nullptr;
}

/// An element read (a gather's tensor.extract) from a merged or
/// reshaped slice reads the slice itself, at the coordinates its linear
/// position has there. A slice is a strided view, which no merge of its
/// dims can express as a view, so the reshape would otherwise become a
/// copy: a second kernel in the fusion the plan made one.
struct ExtractThroughReshapedSlice : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    Operation *reshape = op.getTensor().getDefiningOp();
    if (!isa_and_nonnull<tensor::CollapseShapeOp, tensor::ReshapeOp>(reshape))
      return failure();
    Value source = reshape->getOperand(0);
    if (!isSlice(source))
      return failure();
    Location loc = op.getLoc();
    auto sourceType = llvm::cast<RankedTensorType>(source.getType());
    // Row-major linear position of the read in the reshape's result (a
    // merge keeps the order, so a general reshape's formula serves both).
    Value linear = indexConstant(rewriter, loc, 0);
    for (auto [d, index] : llvm::enumerate(op.getIndices())) {
      Value extent = dimValue(rewriter, loc, op.getTensor(), d);
      linear = rewriter.create<arith::AddIOp>(
          loc, rewriter.create<arith::MulIOp>(loc, linear, extent), index);
    }
    // The same position as coordinates of the slice, innermost first; the
    // outermost takes the quotient left (the position is in range).
    SmallVector<Value> at(sourceType.getRank());
    for (int64_t d = sourceType.getRank() - 1; d > 0; --d) {
      Value extent = dimValue(rewriter, loc, source, d);
      at[d] = rewriter.create<arith::RemUIOp>(loc, linear, extent);
      linear = rewriter.create<arith::DivUIOp>(loc, linear, extent);
    }
    if (!at.empty())
      at[0] = linear;
    rewriter.replaceOpWithNewOp<tensor::ExtractOp>(op, source, at);
    return success();
  }
};

struct TransposeLowering : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<Value> init = emptyResult(op, rewriter);
    if (failed(init))
      return failure();
    // A generic rather than linalg.transpose: elementwise fusion folds the
    // transpose's producers into it. Result dim r reads operand dim
    // perm[r].
    ArrayRef<int64_t> perm = op.getPermutation();
    SmallVector<AffineExpr> operandIndex(perm.size());
    for (auto [r, source] : llvm::enumerate(perm))
      operandIndex[source] = rewriter.getAffineDimExpr(r);
    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineMap> maps{
        AffineMap::get(perm.size(), 0, operandIndex, context),
        AffineMap::getMultiDimIdentityMap(perm.size(), context)};
    SmallVector<utils::IteratorType> iterators(perm.size(),
                                               utils::IteratorType::parallel);
    auto transpose = rewriter.create<linalg::GenericOp>(
        op.getLoc(), init->getType(), ValueRange{op.getOperand()},
        ValueRange{*init}, maps, iterators,
        [](OpBuilder &b, Location loc, ValueRange args) {
          b.create<linalg::YieldOp>(loc, args[0]);
        });
    rewriter.replaceOp(op, transpose->getResults());
    return success();
  }
};

struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<SmallVector<OpFoldResult>> sizes = resultDims(op, rewriter);
    if (failed(sizes))
      return failure();
    SmallVector<OpFoldResult> offsets, strides;
    ShapeAttr starts = op.getStartIndices();
    for (int64_t d = 0; d < starts.getRank(); ++d) {
      std::optional<SymExpr> start = starts.getDim(d);
      if (!start)
        return failure();
      if (auto v = start->constantValue())
        offsets.push_back(rewriter.getIndexAttr(*v));
      else if (Value m = materializeSymExpr(op, rewriter, *start))
        offsets.push_back(m);
      else
        return failure();
      strides.push_back(rewriter.getIndexAttr(
          op.getStrides().empty() ? 1 : op.getStrides()[d]));
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, withoutEncoding(op.getType()), op.getOperand(), offsets, *sizes,
        strides);
    return success();
  }
};

struct ConcatenateLowering : OpRewritePattern<ConcatenateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatenateOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<Value> init = emptyResult(op, rewriter);
    if (failed(init))
      return failure();
    int64_t axis = op.getDimensionAttr().getInt();
    int64_t rank = op.getType().getRank();
    Value result = *init, offset = indexConstant(rewriter, loc, 0);
    for (Value input : op.getInputs()) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)), sizes,
          strides(rank, rewriter.getIndexAttr(1));
      offsets[axis] = offset;
      // Static sizes as attributes: insert_slice checks them against the
      // source type.
      for (int64_t d = 0; d < rank; ++d)
        sizes.push_back(dimOf(rewriter, loc, input, d));
      result = rewriter.create<tensor::InsertSliceOp>(loc, input, result,
                                                      offsets, sizes, strides);
      offset = rewriter.create<arith::AddIOp>(
          loc, offset, dimValue(rewriter, loc, input, axis));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct PadLowering : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<Value> init = emptyResult(op, rewriter);
    if (failed(init))
      return failure();
    Value operand = op.getOperand();
    int64_t rank = op.getType().getRank();
    Value padValue = rewriter.create<tensor::ExtractOp>(
        loc, op.getPaddingValue(), ValueRange{});
    SmallVector<Value> extents;
    for (int64_t d = 0; d < rank; ++d)
      extents.push_back(dimValue(rewriter, loc, operand, d));
    ArrayRef<int64_t> low = op.getEdgePaddingLow();
    ArrayRef<int64_t> interior = op.getInteriorPadding();
    // Each result element reads operand[(i - low) / (interior + 1)] when
    // that lands exactly on an element inside the operand, else the value.
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{init->getType()}, ValueRange{}, ValueRange{*init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
        parallelIterators(rank), [&](OpBuilder &b, Location l, ValueRange) {
          Value zero = indexConstant(b, l, 0);
          Value inside = b.create<arith::ConstantIntOp>(l, 1, 1);
          SmallVector<Value> indices;
          for (int64_t d = 0; d < rank; ++d) {
            int64_t step = (interior.empty() ? 0 : interior[d]) + 1;
            Value shifted =
                b.create<arith::SubIOp>(l, b.create<linalg::IndexOp>(l, d),
                                        indexConstant(b, l, low[d]));
            Value q =
                b.create<arith::DivSIOp>(l, shifted, indexConstant(b, l, step));
            Value r =
                b.create<arith::RemSIOp>(l, shifted, indexConstant(b, l, step));
            Value ok = b.create<arith::AndIOp>(
                l,
                b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge, shifted,
                                        zero),
                b.create<arith::AndIOp>(
                    l,
                    b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, r,
                                            zero),
                    b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, q,
                                            extents[d])));
            inside = b.create<arith::AndIOp>(l, inside, ok);
            indices.push_back(q);
          }
          auto branch = b.create<scf::IfOp>(
              l, inside,
              [&](OpBuilder &t, Location tl) {
                t.create<scf::YieldOp>(tl, Value(t.create<tensor::ExtractOp>(
                                               tl, operand, indices)));
              },
              [&](OpBuilder &e, Location el) {
                e.create<scf::YieldOp>(el, padValue);
              });
          b.create<linalg::YieldOp>(l, branch.getResult(0));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct ConstantLowering : OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto splat = llvm::dyn_cast<SplatElementsAttr>(op.getValue());
    auto type = llvm::cast<RankedTensorType>(op.getType());
    // A large splat is filled at run time (ConstantData.h says why).
    if (splat && type.getNumElements() > kLargestEmbeddedGeneratedConstant) {
      Location loc = op.getLoc();
      Value value = rewriter.create<arith::ConstantOp>(
          loc, llvm::cast<TypedAttr>(splat.getSplatValue<Attribute>()));
      Value empty = rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                                     type.getElementType());
      rewriter.replaceOpWithNewOp<linalg::FillOp>(op, value, empty);
      return success();
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, llvm::cast<TypedAttr>(op.getValue()));
    return success();
  }
};

struct DimSizeLowering : OpRewritePattern<DimSizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DimSizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value size = dimValue(rewriter, loc, op.getOperand(),
                          op.getDimensionAttr().getInt());
    Value asI64 =
        rewriter.create<arith::IndexCastOp>(loc, rewriter.getI64Type(), size);
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(
        op, RankedTensorType::get({}, rewriter.getI64Type()),
        ValueRange{asI64});
    return success();
  }
};

} // namespace

void populateShapeOpsToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<BroadcastInDimLowering, ReshapeLowering, TransposeLowering,
               SliceLowering, ConcatenateLowering, PadLowering,
               ConstantLowering, DimSizeLowering, ExtractThroughReshapedSlice>(
      patterns.getContext());
}

} // namespace anyshape::dhlo

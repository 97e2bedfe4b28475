//===- ContractionsToLinalg.cpp - gather, reduce, dot_general ---*- C++ -*-===//
//
// Reductions and contractions as linalg.generic with reduction iterators,
// accumulating in f32 for f16/bf16 (rounded once at the end) and wrapping
// for integers. An f32 dot_general is one linalg batch matmul (plain, or
// reading one operand transposed), which the backends hand to their GEMM
// library; any other dot_general is one generic over batch, free and
// contracting dims, valid for every layout.
//
//===----------------------------------------------------------------------===//
#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;

namespace anyshape::dhlo {
namespace {

bool isHalf(Type t) { return t.isF16() || t.isBF16(); }

/// The accumulator type of a `kind` reduction of element type `t`: f32
/// for f16/bf16; f64 for a float product, as the reference evaluator
/// multiplies, because an f32 partial product can overflow to inf before a
/// factor 0 arrives, and inf * 0 is NaN where the product is 0.
Type accumulatorType(OpBuilder &b, Type t, StringRef kind) {
  if (kind == "prod" && llvm::isa<FloatType>(t))
    return b.getF64Type();
  return isHalf(t) ? b.getF32Type() : t;
}

/// `tensor` (accumulated in f32) rounded to `elementType` if they differ.
Value roundTo(OpBuilder &b, Location loc, Value tensor, Type elementType,
              Value init) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  if (type.getElementType() == elementType)
    return tensor;
  int64_t rank = type.getRank();
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ValueRange{tensor}, ValueRange{init},
          SmallVector<AffineMap>(2, b.getMultiDimIdentityMap(rank)),
          parallelIterators(rank),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            nb.create<linalg::YieldOp>(
                l, emitConvert(nb, l, args[0], elementType));
          })
      .getResult(0);
}

/// What a reduction (or contraction) of `op` into its result accumulates
/// in: the accumulator type (f32 for f16/bf16), a tensor of it filled with
/// `kind`'s identity, and the empty result the accumulator is rounded into
/// (roundTo).
struct Accumulator {
  Type type;
  Value filled;
  Value result;
};
FailureOr<Accumulator> accumulatorFor(Operation *op, PatternRewriter &rewriter,
                                      StringRef kind) {
  auto resultType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  Type type = accumulatorType(rewriter, resultType.getElementType(), kind);
  FailureOr<Value> empty = emptyResult(op, rewriter, type);
  FailureOr<Value> result = emptyResult(op, rewriter);
  if (failed(empty) || failed(result))
    return failure();
  Value identity = rewriter.create<arith::ConstantOp>(
      op->getLoc(), reductionIdentity(rewriter, kind, type));
  Value filled =
      rewriter.create<linalg::FillOp>(op->getLoc(), identity, *empty).result();
  return Accumulator{type, filled, *result};
}

struct GatherLowering : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<Value> init = emptyResult(op, rewriter);
    if (failed(init))
      return failure();
    Value operand = op.getOperand(), indices = op.getIndices();
    int64_t axis = op.getAxisAttr().getInt();
    int64_t rank = op.getType().getRank();
    int64_t indexRank =
        llvm::cast<RankedTensorType>(indices.getType()).getRank();
    int64_t operandRank =
        llvm::cast<RankedTensorType>(operand.getType()).getRank();
    Value extent = rewriter.create<tensor::DimOp>(loc, operand, axis);
    Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
    Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
    // Indices clamp into [0, extent - 1] (numpy take, mode="clip").
    Value last = rewriter.create<arith::MaxSIOp>(
        loc, rewriter.create<arith::SubIOp>(loc, extent, one), zero);
    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < indexRank; ++d)
      indexExprs.push_back(rewriter.getAffineDimExpr(axis + d));
    SmallVector<AffineMap> maps{
        AffineMap::get(rank, 0, indexExprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{init->getType()}, ValueRange{indices}, ValueRange{*init},
        maps, parallelIterators(rank),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value row =
              b.create<arith::IndexCastOp>(l, b.getIndexType(), args[0]);
          row = b.create<arith::MinSIOp>(
              l, b.create<arith::MaxSIOp>(l, row, zero), last);
          SmallVector<Value> at;
          for (int64_t d = 0; d < axis; ++d)
            at.push_back(b.create<linalg::IndexOp>(l, d));
          at.push_back(row);
          for (int64_t d = axis + 1; d < operandRank; ++d)
            at.push_back(b.create<linalg::IndexOp>(l, d - 1 + indexRank));
          b.create<linalg::YieldOp>(
              l, Value(b.create<tensor::ExtractOp>(l, operand, at)));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

Value combine(OpBuilder &b, Location loc, StringRef kind, Value acc, Value x) {
  bool isFloat = llvm::isa<FloatType>(acc.getType());
  // Float sums and products may be reassociated (docs/ops.md, reduce): it
  // is what lets LLVM vectorise a row reduction instead of running one
  // dependent add per element.
  auto reassoc = arith::FastMathFlagsAttr::get(b.getContext(),
                                               arith::FastMathFlags::reassoc);
  if (kind == "sum")
    return isFloat ? Value(b.create<arith::AddFOp>(loc, acc, x, reassoc))
                   : Value(b.create<arith::AddIOp>(loc, acc, x));
  if (kind == "prod")
    return isFloat ? Value(b.create<arith::MulFOp>(loc, acc, x, reassoc))
                   : Value(b.create<arith::MulIOp>(loc, acc, x));
  if (kind == "max")
    return isFloat ? Value(b.create<arith::MaximumFOp>(loc, acc, x))
                   : Value(b.create<arith::MaxSIOp>(loc, acc, x));
  return isFloat ? Value(b.create<arith::MinimumFOp>(loc, acc, x))
                 : Value(b.create<arith::MinSIOp>(loc, acc, x));
}

struct ReduceLowering : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elementType = op.getType().getElementType();
    StringRef kind = op.getKind();
    FailureOr<Accumulator> accumulator = accumulatorFor(op, rewriter, kind);
    if (failed(accumulator))
      return failure();
    Type accType = accumulator->type;
    Value acc = accumulator->filled;
    int64_t rank =
        llvm::cast<RankedTensorType>(op.getOperand().getType()).getRank();
    SmallVector<AffineExpr> kept;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < rank; ++d) {
      bool reduced = llvm::is_contained(op.getDimensions(), d);
      iterators.push_back(reduced ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel);
      if (!reduced)
        kept.push_back(rewriter.getAffineDimExpr(d));
    }
    SmallVector<AffineMap> maps{
        rewriter.getMultiDimIdentityMap(rank),
        AffineMap::get(rank, 0, kept, rewriter.getContext())};
    Value reduced =
        rewriter
            .create<linalg::GenericOp>(
                loc, TypeRange{acc.getType()}, ValueRange{op.getOperand()},
                ValueRange{acc}, maps, iterators,
                [&](OpBuilder &b, Location l, ValueRange args) {
                  Value x = args[0];
                  if (x.getType() != accType)
                    x = b.create<arith::ExtFOp>(l, accType, x);
                  b.create<linalg::YieldOp>(l, combine(b, l, kind, args[1], x));
                })
            .getResult(0);
    rewriter.replaceOp(
        op, roundTo(rewriter, loc, reduced, elementType, accumulator->result));
    return success();
  }
};

/// Product of dims `dims` of `tensor` as an index value.
Value productOfDims(OpBuilder &b, Location loc, Value tensor,
                    ArrayRef<int64_t> dims) {
  Value product = b.create<arith::ConstantIndexOp>(loc, 1);
  for (int64_t d : dims)
    product =
        b.create<arith::MulIOp>(loc, product, dimValue(b, loc, tensor, d));
  return product;
}

Value reshapeTo(OpBuilder &b, Location loc, Value tensor, ArrayRef<Value> sizes,
                Type elementType) {
  SmallVector<int64_t> shape(sizes.size(), ShapedType::kDynamic);
  Value shapeTensor = b.create<tensor::FromElementsOp>(loc, sizes);
  return b.create<tensor::ReshapeOp>(
      loc, RankedTensorType::get(shape, elementType), tensor, shapeTensor);
}

/// The order an operand's dims take for a batched matmul: batch dims,
/// then free and contracting dims (or contracting and free dims, when
/// `contractFirst`). `freeCount` receives the number of free dims.
SmallVector<int64_t> arrangement(int64_t rank, ArrayRef<int64_t> batch,
                                 ArrayRef<int64_t> contract, bool contractFirst,
                                 int64_t &freeCount) {
  SmallVector<int64_t> perm(batch.begin(), batch.end()), free;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(batch, d) && !llvm::is_contained(contract, d))
      free.push_back(d);
  freeCount = free.size();
  if (contractFirst) {
    perm.append(contract.begin(), contract.end());
    perm.append(free.begin(), free.end());
  } else {
    perm.append(free.begin(), free.end());
    perm.append(contract.begin(), contract.end());
  }
  return perm;
}

bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (p != static_cast<int64_t>(i))
      return false;
  return true;
}

/// f32 dot_general as one batched matmul [B, M, K] x [B, K, N] -> [B, M, N]
/// (operands transposed and reshaped into that layout), which the CPU
/// pipeline hands to the GEMM library (runtime/Gemm.h). An operand whose
/// dims already come in the other order -- A as [B, K, M], B as [B, N, K]
/// (attention's K in Q x K^T) -- is not copied: the op reads it
/// transposed (batch_matmul_transpose_a/_b), as the library does.
struct DotGeneralToBatchMatmul : OpRewritePattern<DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DotGeneralOp op,
                                PatternRewriter &rewriter) const override {
    Type f32 = rewriter.getF32Type();
    // A scalar result (a dot product: no batch, no free dims) is a plain
    // reduction, left to DotGeneralLowering; the reshape back below has
    // no sizes to build its shape from.
    if (op.getType().getElementType() != f32 || op.getType().getRank() == 0)
      return failure();
    Location loc = op.getLoc();
    FailureOr<SmallVector<OpFoldResult>> resultSizes = resultDims(op, rewriter);
    if (failed(resultSizes))
      return failure();
    // `side` in the order `contractFirst` asks for, or, if `mayTranspose`,
    // as it is when it already is in the opposite order (`transposed` is
    // then set).
    auto arrange = [&](Value side, ArrayRef<int64_t> batch,
                       ArrayRef<int64_t> contract, bool contractFirst,
                       bool mayTranspose, int64_t &freeCount,
                       bool &transposed) -> Value {
      int64_t rank = llvm::cast<RankedTensorType>(side.getType()).getRank();
      SmallVector<int64_t> perm =
          arrangement(rank, batch, contract, contractFirst, freeCount);
      transposed = mayTranspose && !isIdentity(perm) &&
                   isIdentity(arrangement(rank, batch, contract, !contractFirst,
                                          freeCount));
      if (isIdentity(perm) || transposed)
        return side;
      SmallVector<OpFoldResult> sizes;
      for (int64_t p : perm)
        sizes.push_back(dimOf(rewriter, loc, side, p));
      Value init = rewriter.create<tensor::EmptyOp>(loc, sizes, f32);
      return rewriter.create<linalg::TransposeOp>(loc, side, init, perm)
          ->getResult(0);
    };
    ArrayRef<int64_t> lb = op.getLhsBatchDimensions(),
                      rb = op.getRhsBatchDimensions(),
                      lc = op.getLhsContractingDimensions(),
                      rc = op.getRhsContractingDimensions();
    int64_t lhsFree, rhsFree;
    bool lhsTransposed, rhsTransposed;
    // At most one operand read transposed (the library has no op with
    // both): B, attention's case, first.
    Value rhs = arrange(op.getRhs(), rb, rc, /*contractFirst=*/true,
                        /*mayTranspose=*/true, rhsFree, rhsTransposed);
    Value lhs =
        arrange(op.getLhs(), lb, lc, /*contractFirst=*/false,
                /*mayTranspose=*/!rhsTransposed, lhsFree, lhsTransposed);
    int64_t nb = lb.size(), nc = lc.size();
    auto range = [](int64_t begin, int64_t count) {
      SmallVector<int64_t> r;
      for (int64_t i = 0; i < count; ++i)
        r.push_back(begin + i);
      return r;
    };
    Value batch = productOfDims(rewriter, loc, lhs, range(0, nb));
    Value m = productOfDims(rewriter, loc, lhs,
                            range(lhsTransposed ? nb + nc : nb, lhsFree));
    Value k = productOfDims(rewriter, loc, lhs,
                            range(lhsTransposed ? nb : nb + lhsFree, nc));
    Value n = productOfDims(rewriter, loc, rhs,
                            range(rhsTransposed ? nb : nb + nc, rhsFree));
    Value a = lhsTransposed ? reshapeTo(rewriter, loc, lhs, {batch, k, m}, f32)
                            : reshapeTo(rewriter, loc, lhs, {batch, m, k}, f32);
    Value bm = rhsTransposed
                   ? reshapeTo(rewriter, loc, rhs, {batch, n, k}, f32)
                   : reshapeTo(rewriter, loc, rhs, {batch, k, n}, f32);
    Value empty = rewriter.create<tensor::EmptyOp>(
        loc, ArrayRef<OpFoldResult>{batch, m, n}, f32);
    Value zero =
        rewriter.create<arith::ConstantOp>(loc, rewriter.getF32FloatAttr(0));
    Value acc = rewriter.create<linalg::FillOp>(loc, zero, empty).result();
    // Owned here: a ValueRange variable over a braced list would dangle
    // (the list dies at the end of the declaration).
    SmallVector<Type> resultType{acc.getType()};
    SmallVector<Value> inputs{a, bm}, inits{acc};
    Value product;
    if (lhsTransposed)
      product = rewriter
                    .create<linalg::BatchMatmulTransposeAOp>(loc, resultType,
                                                             inputs, inits)
                    .getResult(0);
    else if (rhsTransposed)
      product = rewriter
                    .create<linalg::BatchMatmulTransposeBOp>(loc, resultType,
                                                             inputs, inits)
                    .getResult(0);
    else
      product =
          rewriter.create<linalg::BatchMatmulOp>(loc, resultType, inputs, inits)
              .getResult(0);
    SmallVector<Value> sizes;
    for (OpFoldResult dim : *resultSizes)
      sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, dim));
    Value shape = rewriter.create<tensor::FromElementsOp>(loc, sizes);
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(
        op, withoutEncoding(op.getType()), product, shape);
    return success();
  }
};

struct DotGeneralLowering : OpRewritePattern<DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DotGeneralOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elementType = op.getType().getElementType();
    FailureOr<Accumulator> accumulator = accumulatorFor(op, rewriter, "sum");
    if (failed(accumulator))
      return failure();
    Type accType = accumulator->type;
    Value acc = accumulator->filled;

    // Iteration space: result dims (batch, lhs free, rhs free), then the
    // contracting dims.
    auto lhsType = llvm::cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = llvm::cast<RankedTensorType>(op.getRhs().getType());
    ArrayRef<int64_t> lb = op.getLhsBatchDimensions(),
                      rb = op.getRhsBatchDimensions(),
                      lc = op.getLhsContractingDimensions(),
                      rc = op.getRhsContractingDimensions();
    int64_t resultRank = op.getType().getRank();
    int64_t loops = resultRank + lc.size();
    SmallVector<AffineExpr> lhsExprs(lhsType.getRank()),
        rhsExprs(rhsType.getRank()), outExprs;
    int64_t next = 0;
    for (auto [l, r] : llvm::zip(lb, rb)) {
      lhsExprs[l] = rhsExprs[r] = rewriter.getAffineDimExpr(next++);
    }
    for (int64_t d = 0; d < lhsType.getRank(); ++d)
      if (!llvm::is_contained(lb, d) && !llvm::is_contained(lc, d))
        lhsExprs[d] = rewriter.getAffineDimExpr(next++);
    for (int64_t d = 0; d < rhsType.getRank(); ++d)
      if (!llvm::is_contained(rb, d) && !llvm::is_contained(rc, d))
        rhsExprs[d] = rewriter.getAffineDimExpr(next++);
    for (auto [l, r] : llvm::zip(lc, rc))
      lhsExprs[l] = rhsExprs[r] = rewriter.getAffineDimExpr(next++);
    for (int64_t d = 0; d < resultRank; ++d)
      outExprs.push_back(rewriter.getAffineDimExpr(d));
    SmallVector<utils::IteratorType> iterators(resultRank,
                                               utils::IteratorType::parallel);
    iterators.append(lc.size(), utils::IteratorType::reduction);
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps{AffineMap::get(loops, 0, lhsExprs, ctx),
                                AffineMap::get(loops, 0, rhsExprs, ctx),
                                AffineMap::get(loops, 0, outExprs, ctx)};
    bool isFloat = llvm::isa<FloatType>(accType);
    Value product =
        rewriter
            .create<linalg::GenericOp>(
                loc, TypeRange{acc.getType()},
                ValueRange{op.getLhs(), op.getRhs()}, ValueRange{acc}, maps,
                iterators,
                [&](OpBuilder &b, Location l, ValueRange args) {
                  Value x = args[0], y = args[1];
                  if (x.getType() != accType) {
                    x = b.create<arith::ExtFOp>(l, accType, x);
                    y = b.create<arith::ExtFOp>(l, accType, y);
                  }
                  Value m = isFloat ? Value(b.create<arith::MulFOp>(l, x, y))
                                    : Value(b.create<arith::MulIOp>(l, x, y));
                  Value s = isFloat
                                ? Value(b.create<arith::AddFOp>(l, args[2], m))
                                : Value(b.create<arith::AddIOp>(l, args[2], m));
                  b.create<linalg::YieldOp>(l, s);
                })
            .getResult(0);
    rewriter.replaceOp(
        op, roundTo(rewriter, loc, product, elementType, accumulator->result));
    return success();
  }
};

} // namespace

void populateContractionsToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<GatherLowering, ReduceLowering, DotGeneralLowering>(
      patterns.getContext());
  // Preferred for f32: the GEMM library beats any loop nest we emit.
  patterns.add<DotGeneralToBatchMatmul>(patterns.getContext(), /*benefit=*/2);
}

} // namespace anyshape::dhlo

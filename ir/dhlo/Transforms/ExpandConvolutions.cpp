//===- ExpandConvolutions.cpp - convolution as one contraction --*- C++ -*-===//
//
// dhlo-expand-convolutions: each dhlo.convolution becomes the ops a
// target without a convolution library runs as kernels (im2col):
//
//   padded  = pad(input)                          [N, C, S + pads...]
//   tap t   = slice(padded, strided)              [N, C, out...]
//   patches = concatenate(taps as [N, C, 1, out...]) along dim 2,
//             reshaped [N, groups, C / groups * taps, out...]
//   y       = dot_general(weights as [groups, O / groups, C / groups *
//             taps], patches), batch groups, contracting dim 2
//                                               [groups, O / groups, N, out]
//   result  = y transposed to [N, groups, O / groups, out...], reshaped
//             [N, O, out...]
//
// Each tap's slice has exactly the output's extent (its limit written from
// the convolution's own output dims), so the patches keep the result's
// symbols and fuse downstream. The taps cost kernel-size times the input's
// memory; a kernel of more than kMaxTaps taps fails the pass instead.
// The shape checks of the convolution were recorded with the graph, so
// the expansion adds none.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/dhlo/Transforms/Passes.h"
#include "ir/graph/TensorType.h"

#include "mlir/IR/Builders.h"

namespace anyshape::dhlo {

#define GEN_PASS_DEF_EXPANDCONVOLUTIONS
#include "ir/dhlo/Transforms/Passes.h.inc"

using namespace mlir;

namespace {

/// More taps than this and the expansion's concatenate (one operand per
/// tap) and memory (kernel-size times the input) are not worth building.
constexpr int64_t kMaxTaps = 4096;

LogicalResult expand(ConvolutionOp op) {
  MLIRContext *context = op.getContext();
  auto inputType = llvm::cast<RankedTensorType>(op.getInput().getType());
  auto weightsType = llvm::cast<RankedTensorType>(op.getWeights().getType());
  auto resultType = llvm::cast<RankedTensorType>(op.getType());
  if (!weightsType.hasStaticShape())
    return op.emitError("a convolution to expand needs static weights");
  int64_t r = inputType.getRank() - 2, groups = op.getGroups();
  ArrayRef<int64_t> w = weightsType.getShape();
  int64_t filters = w[0], perGroup = w[1], taps = 1;
  for (int64_t k : w.drop_front(2))
    taps *= k;
  if (taps > kMaxTaps)
    return op.emitError("a convolution kernel of ")
           << taps << " taps is beyond the " << kMaxTaps
           << " this target's expansion takes";
  // Static dims (a type with no #dhlo.shape) and symbolic ones alike.
  std::optional<SymExpr> batch = dimOf(inputType, 0);
  SmallVector<std::optional<SymExpr>> out;
  for (int64_t i = 0; i < r; ++i)
    out.push_back(dimOf(resultType, 2 + i));
  // Slice limits are attributes, which name sizes by the graph's own
  // symbols only (not the fresh ones of anonymous or computed sizes).
  auto expressible = [](const std::optional<SymExpr> &d) {
    return d && llvm::all_of(d->leafSymbols(), isValidSymbolName);
  };
  if (!expressible(batch) || !llvm::all_of(out, expressible))
    return op.emitError("a convolution to expand needs its batch and output "
                        "sizes as expressions of the graph's symbols");

  OpBuilder b(op);
  Location loc = op.getLoc();
  Value padded = op.getInput();
  ArrayRef<int64_t> low = op.getPaddingLow(), high = op.getPaddingHigh();
  if (llvm::any_of(low, [](int64_t v) { return v != 0; }) ||
      llvm::any_of(high, [](int64_t v) { return v != 0; })) {
    SmallVector<int64_t> lowAll{0, 0}, highAll{0, 0};
    lowAll.append(low.begin(), low.end());
    highAll.append(high.begin(), high.end());
    auto scalar = RankedTensorType::get({}, inputType.getElementType());
    Value zero = b.create<ConstantOp>(
        loc,
        DenseElementsAttr::get(scalar, b.getZeroAttr(scalar.getElementType())));
    padded = b.create<PadOp>(loc, padded, zero, lowAll, highAll,
                             SmallVector<int64_t>(r + 2, 0));
  }

  // Tap t's position in the kernel, row-major; its slice starts there
  // (times the dilation) and takes `out` elements a stride apart.
  SmallVector<Value> parts;
  SmallVector<int64_t> strides{1, 1};
  strides.append(op.getStrides().begin(), op.getStrides().end());
  std::optional<SymExpr> channels = SymExpr::constant(inputType.getDimSize(1));
  for (int64_t t = 0; t < taps; ++t) {
    SmallVector<std::optional<SymExpr>> starts{SymExpr(), SymExpr()},
        limits{batch, channels};
    for (int64_t i = r - 1, rest = t; i >= 0; --i) {
      int64_t k = w[2 + i], position = rest % k;
      rest /= k;
      int64_t start = position * op.getDilations()[i], s = strides[2 + i];
      auto last = SymExpr::mul(*out[i], SymExpr::constant(s));
      auto limit = last ? SymExpr::add(*last, SymExpr::constant(start - s + 1))
                        : std::nullopt;
      if (!limit)
        return op.emitError("a convolution's tap limit overflows");
      starts.insert(starts.begin() + 2, SymExpr::constant(start));
      limits.insert(limits.begin() + 2, *limit);
    }
    Value tap = b.create<SliceOp>(loc, padded, ShapeAttr::get(context, starts),
                                  ShapeAttr::get(context, limits),
                                  b.getDenseI64ArrayAttr(strides));
    SmallVector<std::optional<SymExpr>> stacked{batch, channels,
                                                SymExpr::constant(1)};
    stacked.append(out.begin(), out.end());
    parts.push_back(
        b.create<ReshapeOp>(loc, tap, ShapeAttr::get(context, stacked)));
  }
  Value patches = parts.size() == 1
                      ? parts.front()
                      : b.create<ConcatenateOp>(loc, parts, 2).getResult();
  SmallVector<std::optional<SymExpr>> grouped{
      batch, SymExpr::constant(groups), SymExpr::constant(perGroup * taps)};
  grouped.append(out.begin(), out.end());
  patches = b.create<ReshapeOp>(loc, patches, ShapeAttr::get(context, grouped));
  Value kernel = b.create<ReshapeOp>(
      loc, op.getWeights(),
      ShapeAttr::get(context, {SymExpr::constant(groups),
                               SymExpr::constant(filters / groups),
                               SymExpr::constant(perGroup * taps)}));
  Value y = b.create<DotGeneralOp>(
      loc, kernel, patches, b.getDenseI64ArrayAttr({0}),
      b.getDenseI64ArrayAttr({1}), b.getDenseI64ArrayAttr({2}),
      b.getDenseI64ArrayAttr({2}));
  SmallVector<int64_t> order{2, 0, 1};
  for (int64_t i = 0; i < r; ++i)
    order.push_back(3 + i);
  y = b.create<TransposeOp>(loc, y, b.getDenseI64ArrayAttr(order));
  SmallVector<std::optional<SymExpr>> dims{batch, SymExpr::constant(filters)};
  dims.append(out.begin(), out.end());
  y = b.create<ReshapeOp>(loc, resultType, y, ShapeAttr::get(context, dims));
  op.replaceAllUsesWith(y);
  op.erase();
  return success();
}

struct ExpandConvolutionsPass
    : impl::ExpandConvolutionsBase<ExpandConvolutionsPass> {
  void runOnOperation() override {
    SmallVector<ConvolutionOp> convolutions;
    getOperation().walk([&](ConvolutionOp op) { convolutions.push_back(op); });
    for (ConvolutionOp op : convolutions)
      if (failed(expand(op)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::dhlo

//===- MathApproximation.cpp - vectorisable transcendentals -----*- C++ -*-===//
//
// anyshape-math-approximation (see Passes.td): MLIR's own polynomial
// approximation patterns, applied greedily, except for f32 erf, sin and
// cos; then every float division may be computed through a reciprocal.
//
// f32 erf gets one rational function instead of MLIR's three, chosen per
// element by |x| (0.8, 2, 3.75): vectorised, MLIR's form costs 22 selects
// and 8 FMAs per vector besides the division, and GELU's kernel ran at
// half the memory bandwidth.
//
//===----------------------------------------------------------------------===//
#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <type_traits>

namespace anyshape::codegen {

#define GEN_PASS_DEF_MATHAPPROXIMATION
#include "codegen/CPU/Passes.h.inc"

namespace {

/// x / sqrt(y), x / (z * sqrt(y)), also through f16 <-> f32 conversions:
/// with arcp, LLVM's x86 backend computes these with its rsqrt estimate
/// (~2^-22 relative error, and NaN instead of inf at y = 0), so they keep
/// an exact division.
bool dividesBySquareRoot(mlir::arith::DivFOp div) {
  auto isSqrt = [](mlir::Value v) {
    while (mlir::Operation *def = v.getDefiningOp()) {
      if (!llvm::isa<mlir::arith::ExtFOp, mlir::arith::TruncFOp>(def))
        return llvm::isa<mlir::math::SqrtOp>(def);
      v = def->getOperand(0);
    }
    return false;
  };
  mlir::Value divisor = div.getRhs();
  if (isSqrt(divisor))
    return true;
  auto product = divisor.getDefiningOp<mlir::arith::MulFOp>();
  return product && (isSqrt(product.getLhs()) || isSqrt(product.getRhs()));
}

/// erf(x) = x P(x^2) / Q(x^2) on x clamped to [-4, 4] (|erf| is within
/// 2e-8 of 1 beyond), the result clamped to [-1, 1]. P and Q are a
/// least-squares fit of ours with Lawson reweighting (degrees 5 and 5,
/// Q(0) = 1 and Q >= 1 on [0, 16]): the largest error against erf in
/// double is 3.2e-7 over [-6, 6] as compiled, against 2.4e-7 for MLIR's
/// form (tests/jit/OpCoverageTest.cpp). NaN stays NaN (minimumf/maximumf
/// propagate it).
struct ErfAsOneRationalFunction : mlir::OpRewritePattern<mlir::math::ErfOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(mlir::math::ErfOp erf,
                  mlir::PatternRewriter &rewriter) const override {
    mlir::Type type = erf.getType();
    if (!mlir::getElementTypeOrSelf(type).isF32())
      return mlir::failure();
    static constexpr float kP[] = {1.128378987f,    0.1962533146f,
                                   0.05346803740f,  0.004003827460f,
                                   2.880448301e-4f, 1.974787892e-6f};
    static constexpr float kQ[] = {
        1.0f,           0.5072561502f,   0.1164782047f,
        0.01544478629f, 0.001216402743f, 3.748060044e-5f};
    mlir::Location loc = erf.getLoc();
    mlir::ImplicitLocOpBuilder b(loc, rewriter);
    auto constant = [&](float value) -> mlir::Value {
      mlir::Attribute attr = b.getF32FloatAttr(value);
      if (auto shaped = llvm::dyn_cast<mlir::ShapedType>(type))
        attr = mlir::SplatElementsAttr::get(shaped, attr);
      return b.create<mlir::arith::ConstantOp>(
          llvm::cast<mlir::TypedAttr>(attr));
    };
    auto clamp = [&](mlir::Value v, float bound) {
      v = b.create<mlir::arith::MinimumFOp>(v, constant(bound));
      return b.create<mlir::arith::MaximumFOp>(v, constant(-bound));
    };
    auto horner = [&](llvm::ArrayRef<float> coefficients, mlir::Value t) {
      mlir::Value sum = constant(coefficients.back());
      for (float c : llvm::reverse(coefficients.drop_back()))
        sum = b.create<mlir::math::FmaOp>(sum, t, constant(c));
      return sum;
    };
    mlir::Value x = clamp(erf.getOperand(), 4.0f);
    mlir::Value t = b.create<mlir::arith::MulFOp>(x, x);
    mlir::Value ratio =
        b.create<mlir::arith::DivFOp>(horner(kP, t), horner(kQ, t));
    rewriter.replaceOp(erf,
                       clamp(b.create<mlir::arith::MulFOp>(x, ratio), 1.0f));
    return mlir::success();
  }
};

/// f32 sin and cos by quadrant: x = k pi/2 + r with k = round(x 2/pi) and r
/// taken off in three parts of pi/2 (Cody and Waite), so that r keeps
/// f32's precision for |x| up to about 1e5 (RoPE's angles are positions
/// times frequencies); then Cephes' sinf and cosf polynomials on r in
/// [-pi/4, pi/4], the one the quadrant k mod 4 asks for, negated in its
/// second half turn. MLIR's pattern reduces by floor(x 2/pi) with one
/// constant: sin(-1e-8) came out as 6e-8 and sin(100.5) 6e-6 off. NaN and
/// infinities give NaN (the quadrant is taken from a clamped k).
template <typename Op> struct ByQuadrant : mlir::OpRewritePattern<Op> {
  using mlir::OpRewritePattern<Op>::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(Op op, mlir::PatternRewriter &rewriter) const override {
    mlir::Value x = op.getOperand();
    mlir::Type type = x.getType();
    if (!mlir::getElementTypeOrSelf(type).isF32())
      return mlir::failure();
    mlir::ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    auto shaped = llvm::dyn_cast<mlir::ShapedType>(type);
    mlir::Type intType =
        shaped ? shaped.clone(b.getI32Type()) : mlir::Type(b.getI32Type());
    auto splat = [&](mlir::Attribute attr, mlir::Type of) -> mlir::Value {
      if (auto shape = llvm::dyn_cast<mlir::ShapedType>(of))
        attr = mlir::SplatElementsAttr::get(shape, attr);
      return b.create<mlir::arith::ConstantOp>(
          llvm::cast<mlir::TypedAttr>(attr));
    };
    auto f = [&](double v) { return splat(b.getF32FloatAttr(v), type); };
    auto i = [&](int32_t v) { return splat(b.getI32IntegerAttr(v), intType); };
    auto fma = [&](mlir::Value a, mlir::Value m, mlir::Value c) {
      return b.create<mlir::math::FmaOp>(a, m, c).getResult();
    };
    auto mul = [&](mlir::Value a, mlir::Value m) {
      return b.create<mlir::arith::MulFOp>(a, m).getResult();
    };
    mlir::Value k =
        b.create<mlir::math::FloorOp>(fma(x, f(0.63661977236758134), f(0.5)));
    // pi/2 = 1.5703125 + 4.837512969970703125e-4 + 7.54978995489188216e-8,
    // the first two short enough that k times them is exact.
    mlir::Value r = fma(k, f(-1.5703125), x);
    r = fma(k, f(-4.837512969970703125e-4), r);
    r = fma(k, f(-7.54978995489188216e-8), r);
    mlir::Value r2 = mul(r, r);
    mlir::Value sine = fma(mul(r, r2),
                           fma(fma(f(-1.9515295891e-4), r2, f(8.3321608736e-3)),
                               r2, f(-1.6666654611e-1)),
                           r);
    mlir::Value cosine =
        fma(mul(r2, r2),
            fma(fma(f(2.443315711809948e-5), r2, f(-1.388731625493765e-3)), r2,
                f(4.166664568298827e-2)),
            fma(f(-0.5), r2, f(1.0)));
    // The quadrant from k clamped into i32 (maxnumf and minnumf turn NaN
    // into a bound: fptosi of NaN is poison); cos(x) is sin's next one.
    mlir::Value bounded = b.create<mlir::arith::MinNumFOp>(
        b.create<mlir::arith::MaxNumFOp>(k, f(-16777216.0)), f(16777216.0));
    mlir::Value quadrant = b.create<mlir::arith::FPToSIOp>(intType, bounded);
    if constexpr (std::is_same_v<Op, mlir::math::CosOp>)
      quadrant = b.create<mlir::arith::AddIOp>(quadrant, i(1));
    auto bit = [&](int32_t mask) {
      return b.create<mlir::arith::CmpIOp>(
          mlir::arith::CmpIPredicate::ne,
          b.create<mlir::arith::AndIOp>(quadrant, i(mask)), i(0));
    };
    mlir::Value y = b.create<mlir::arith::SelectOp>(bit(1), cosine, sine);
    y = b.create<mlir::arith::SelectOp>(bit(2),
                                        b.create<mlir::arith::NegFOp>(y), y);
    rewriter.replaceOp(op, y);
    return mlir::success();
  }
};

struct MathApproximationPass
    : impl::MathApproximationBase<MathApproximationPass> {
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    // Tried before MLIR's erf, sin and cos patterns (a higher benefit).
    patterns.add<ErfAsOneRationalFunction, ByQuadrant<mlir::math::SinOp>,
                 ByQuadrant<mlir::math::CosOp>>(&getContext(), /*benefit=*/2);
    mlir::populateMathPolynomialApproximationPatterns(patterns);
    if (failed(mlir::applyPatternsAndFoldGreedily(getOperation(),
                                                  std::move(patterns))))
      signalPassFailure();
    // A division may be a multiplication by the divisor's reciprocal: a
    // divisor the loop does not change (softmax's row sum, broadcast
    // along the row) is then inverted once per row instead of divided by
    // once per element, which is what a vector division costs on x86
    // (about 16 cycles a vector). docs/ops.md says what it may change.
    getOperation()->walk([](mlir::arith::DivFOp div) {
      if (!dividesBySquareRoot(div))
        div.setFastmath(div.getFastmath() | mlir::arith::FastMathFlags::arcp);
    });
  }
};

} // namespace
} // namespace anyshape::codegen

//===- MathApproximation.cpp - vectorisable transcendentals -----*- C++ -*-===//
//
// anyshape-math-approximation (see Passes.td): MLIR's own polynomial
// approximation patterns, applied greedily, except for f32 erf; then every
// float division may be computed through a reciprocal.
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

struct MathApproximationPass
    : impl::MathApproximationBase<MathApproximationPass> {
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    // Tried before MLIR's erf pattern (a higher benefit).
    patterns.add<ErfAsOneRationalFunction>(&getContext(), /*benefit=*/2);
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

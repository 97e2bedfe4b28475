//===- MathApproximation.cpp - vectorisable transcendentals -----*- C++ -*-===//
//
// anyshape-math-approximation (see Passes.td): MLIR's own polynomial
// approximation patterns, applied greedily; then every float division may
// be computed through a reciprocal.
//
//===----------------------------------------------------------------------===//
#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
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

struct MathApproximationPass
    : impl::MathApproximationBase<MathApproximationPass> {
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
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

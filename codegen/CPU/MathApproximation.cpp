//===- MathApproximation.cpp - vectorisable transcendentals -----*- C++ -*-===//
//
// anyshape-math-approximation (see Passes.td): MLIR's own polynomial
// approximation patterns, applied greedily.
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

struct MathApproximationPass
    : impl::MathApproximationBase<MathApproximationPass> {
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    mlir::populateMathPolynomialApproximationPatterns(patterns);
    if (failed(mlir::applyPatternsAndFoldGreedily(getOperation(),
                                                  std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::codegen

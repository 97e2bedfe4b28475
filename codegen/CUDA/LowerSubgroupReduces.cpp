//===- LowerSubgroupReduces.cpp - warp reductions as shuffles ----*- C++
//-*-===//
//
// anyshape-lower-subgroup-reduces (see Passes.td): MLIR's butterfly
// lowering of gpu.subgroup_reduce into gpu.shuffle xor steps over a
// 32-lane warp, which convert-gpu-to-nvvm does not do itself (it lowers
// gpu.all_reduce and the shuffles); 64-bit scalars as two 32-bit shuffles
// a step.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_LOWERSUBGROUPREDUCES
#include "codegen/CUDA/Passes.h.inc"

namespace {

/// A 64-bit scalar warp reduction (an i64 max, as ArgMax and the scatter
/// compositions reduce indices) as the same butterfly with each step's
/// value shuffled in two 32-bit halves: MLIR's lowering shuffles at most
/// the shuffle width, and its breakdown patterns split only vectors.
struct SplitWideScalarReduce : OpRewritePattern<gpu::SubgroupReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(gpu::SubgroupReduceOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!type.isInteger(64) && !type.isF64())
      return failure();
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    auto constant = [&](int64_t v, Type t) -> Value {
      return rewriter.create<arith::ConstantOp>(loc,
                                                rewriter.getIntegerAttr(t, v));
    };
    auto asBits = [&](Value v) -> Value {
      return type.isF64() ? rewriter.create<arith::BitcastOp>(loc, i64, v) : v;
    };
    auto fromBits = [&](Value v) -> Value {
      return type.isF64() ? rewriter.create<arith::BitcastOp>(loc, type, v) : v;
    };
    vector::CombiningKind kind = gpu::convertReductionKind(op.getOp());
    Value value = op.getValue();
    Value width = constant(32, i32), shift = constant(32, i64);
    for (int64_t offset = 1; offset < 32; offset <<= 1) {
      Value bits = asBits(value);
      Value low = rewriter.create<arith::TruncIOp>(loc, i32, bits);
      Value high = rewriter.create<arith::TruncIOp>(
          loc, i32, rewriter.create<arith::ShRUIOp>(loc, bits, shift));
      auto shuffle = [&](Value half) {
        return rewriter
            .create<gpu::ShuffleOp>(loc, half, constant(offset, i32), width,
                                    gpu::ShuffleMode::XOR)
            .getShuffleResult();
      };
      Value other = rewriter.create<arith::OrIOp>(
          loc, rewriter.create<arith::ExtUIOp>(loc, i64, shuffle(low)),
          rewriter.create<arith::ShLIOp>(
              loc, rewriter.create<arith::ExtUIOp>(loc, i64, shuffle(high)),
              shift));
      value = vector::makeArithReduction(rewriter, loc, kind, value,
                                         fromBits(other));
    }
    rewriter.replaceOp(op, value);
    return success();
  }
};

struct LowerSubgroupReducesPass
    : impl::LowerSubgroupReducesBase<LowerSubgroupReducesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // 32-bit shuffles: wider values are broken down first, narrower ones
    // widened (MLIR's own patterns for both).
    populateGpuBreakDownSubgrupReducePatterns(patterns, 32);
    patterns.add<SplitWideScalarReduce>(&getContext());
    populateGpuLowerSubgroupReduceToShufflePattenrs(patterns,
                                                    /*subgroupSize=*/32, 32);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    bool left = false;
    getOperation().walk([&](gpu::SubgroupReduceOp op) {
      op.emitOpError("has no shuffle lowering for its type");
      left = true;
    });
    if (left)
      signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::codegen

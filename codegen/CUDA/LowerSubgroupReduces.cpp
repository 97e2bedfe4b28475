//===- LowerSubgroupReduces.cpp - warp reductions as shuffles ----*- C++
//-*-===//
//
// anyshape-lower-subgroup-reduces (see Passes.td): MLIR's butterfly
// lowering of gpu.subgroup_reduce into gpu.shuffle xor steps over a
// 32-lane warp, which convert-gpu-to-nvvm does not do itself (it lowers
// gpu.all_reduce and the shuffles).
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/Passes.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_LOWERSUBGROUPREDUCES
#include "codegen/CUDA/Passes.h.inc"

namespace {

struct LowerSubgroupReducesPass
    : impl::LowerSubgroupReducesBase<LowerSubgroupReducesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // 32-bit shuffles: wider values are broken down first, narrower ones
    // widened (MLIR's own patterns for both).
    populateGpuBreakDownSubgrupReducePatterns(patterns, 32);
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

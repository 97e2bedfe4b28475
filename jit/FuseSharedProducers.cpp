//===- FuseSharedProducers.cpp - fuse multi-use producers --------*- C++
//-*-===//
//
// anyshape-fuse-shared-producers (see Passes.td): MLIR's elementwise
// fusion patterns with a control function that admits producers whose
// every user is a linalg.generic. A producer with any other user (a
// matmul, a return) is left alone: fusing it would compute it twice and
// still write it.
//
//===----------------------------------------------------------------------===//
#include "jit/Passes.h"

#include "ir/dhlo/Analysis/FusionPlan.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace anyshape::jit {

#define GEN_PASS_DEF_FUSESHAREDPRODUCERS
#include "jit/Passes.h.inc"

namespace {

/// Duplication is bounded: in a chain where every value feeds two
/// consumers, fusing would otherwise double the arithmetic at each level
/// (in whichever order the fusions happen). Producers beyond the first
/// bound, or consumers beyond the second, are left materialised.
constexpr int64_t kMaxDuplicatedOps = 48;
constexpr int64_t kMaxFusedOps = 256;

int64_t bodySize(linalg::GenericOp op) {
  return std::distance(op.getBody()->begin(), op.getBody()->end());
}

bool onlyGenericUsers(OpOperand *fused) {
  auto producer =
      llvm::dyn_cast_or_null<linalg::GenericOp>(fused->get().getDefiningOp());
  auto consumer = llvm::dyn_cast<linalg::GenericOp>(fused->getOwner());
  if (!producer || !consumer ||
      bodySize(consumer) + bodySize(producer) > kMaxFusedOps)
    return false;
  // The plan decides which kernel an op is in (dhlo-mark-fusions): an op
  // of one fusion is fused only within it; an unmarked one (which the
  // plan has every consumer recompute) anywhere.
  std::optional<int64_t> fusion = dhlo::fusionOf(producer);
  if (fusion && fusion != dhlo::fusionOf(consumer))
    return false;
  if (producer->hasOneUse())
    return true; // e.g. the last consumer of a producer fused elsewhere
  return bodySize(producer) <= kMaxDuplicatedOps &&
         llvm::all_of(producer->getUsers(), [](Operation *user) {
           return llvm::isa<linalg::GenericOp>(user);
         });
}

struct FuseSharedProducersPass
    : impl::FuseSharedProducersBase<FuseSharedProducersPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, onlyGenericUsers);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::jit

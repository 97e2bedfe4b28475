//===- FuseSharedProducers.cpp - fuse multi-use producers --------*- C++
//-*-===//
//
// anyshape-fuse-shared-producers (see Passes.td): MLIR's elementwise
// fusion patterns with a control function that admits producers whose
// every user is a linalg.generic. A producer with any other user (a
// matmul, a return) is left alone: fusing it would compute it twice and
// still write it. With move-reshapes it replaces linalg-fuse-elementwise-
// ops, whose single-use fusions would not keep to the plan, and it clears
// the two ways a reshape would stay between a producer and the generic
// the plan fuses it into: a collapse shared by several readers, or a
// collapse and an expand MLIR's folders do not join.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_FUSESHAREDPRODUCERS
#include "codegen/Common/Passes.h.inc"

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
  if (!producer || !consumer)
    return false;
  // The plan decides which kernel an op is in (dhlo-form-fusions): an op
  // in a fusion is fused only within it (its users elsewhere read the
  // fusion's result, which no pattern sees through); one outside any
  // (which the plan has every consumer recompute) anywhere. A producer
  // the fusion yields stays whole: other kernels read it from memory, so
  // its own fusion writes it (as one more stitch member).
  auto fusion = producer->getParentOfType<dhlo::FusionOp>();
  if (fusion && fusion != consumer->getParentOfType<dhlo::FusionOp>())
    return false;
  // Within one fusion the plan bounds the kernel's size (kMaxKernelOps,
  // FusionPlan.cpp); a second bound here would cut the kernel where the
  // plan did not, which the plan check rejects. Producers outside are
  // duplicated into a body only while it stays small, except the ones the
  // plan has every kernel recompute, which are a few ops at most (a splat,
  // an iota, a broadcast: no operand or a body that yields it).
  bool generated = producer.getNumDpsInputs() == 0 || bodySize(producer) == 1;
  if (!fusion && !generated &&
      bodySize(consumer) + bodySize(producer) > kMaxFusedOps)
    return false;
  if (fusion && llvm::any_of(producer->getUsers(), [](Operation *user) {
        return llvm::isa<dhlo::YieldOp>(user);
      }))
    return false;
  if (producer->hasOneUse())
    return true; // e.g. the last consumer of a producer fused elsewhere
  return bodySize(producer) <= kMaxDuplicatedOps &&
         llvm::all_of(producer->getUsers(), [](Operation *user) {
           return llvm::isa<linalg::GenericOp>(user);
         });
}

/// What linalg-fuse-elementwise-ops fuses reshapes and folds constants
/// into: producers with one use.
bool hasOneUse(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  return producer && producer->hasOneUse();
}

/// Moving a collapse below a generic in a fusion leaves the collapse
/// where the generic's result was: with one user the collapse moves on
/// (through the next generic), with two (a reduction and the yield of a
/// stitch) it stays between them, and the reduction, which reads its
/// operand through no reshape, is cut from the kernel. Such generics keep
/// their reshaped operand.
bool movesReshapeOnward(OpOperand *fused) {
  if (!hasOneUse(fused))
    return false;
  Operation *consumer = fused->getOwner();
  if (!llvm::isa<tensor::CollapseShapeOp>(fused->get().getDefiningOp()) ||
      !consumer->getParentOfType<dhlo::FusionOp>())
    return true;
  return llvm::all_of(consumer->getResults(),
                      [](Value result) { return result.hasOneUse(); });
}

/// expand(collapse(x)) that is one reshape of x, found from the two end
/// shapes. MLIR's own composition works from the reassociations alone and
/// misses it when a unit dim changes groups: LeViT's [b, 1, 48] -> [b, 48]
/// -> [b, 1, 6, 8], the collapse a generic leaves behind once it is
/// expanded through it, would keep the generic from the transpose after.
/// One dynamic dim on each side, and no 0: then it is its own group on
/// both and equal by the element count.
struct ComposeExpandOfCollapseByShape
    : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    auto collapse = expand.getSrc().getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapse)
      return failure();
    RankedTensorType source = collapse.getSrcType();
    RankedTensorType result = expand.getResultType();
    auto oneDynamicNoZero = [](RankedTensorType type) {
      return type.getNumDynamicDims() == 1 &&
             !llvm::is_contained(type.getShape(), 0);
    };
    if (source.getRank() == result.getRank() || !oneDynamicNoZero(source) ||
        !oneDynamicNoZero(result))
      return failure();
    std::optional<SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForReshape(source, result);
    if (!groups)
      return failure();
    if (source.getRank() > result.getRank()) {
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
          expand, result, collapse.getSrc(), *groups);
      return success();
    }
    SmallVector<OpFoldResult> sizes = getMixedValues(
        expand.getStaticOutputShape(), expand.getOutputShape(), rewriter);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        expand, result, collapse.getSrc(), *groups, sizes);
    return success();
  }
};

/// Gives each user of a collapse of a recomputed producer (a generic
/// outside every fusion: a broadcast the plan has each consumer compute)
/// a collapse of its own. A collapse moves into the generic that reads it
/// only while it has one use (movesReshapeOnward); shared, it would stay
/// between the producer and its consumers, and the producer would be a
/// kernel the plan does not have (Cohere's rotary table, repeated, feeds
/// cos and sin). An expand is left shared: it takes its producer into
/// its own shape while the producer has one use, the expand.
void unshareCollapsesOfRecomputedProducers(func::FuncOp function) {
  SmallVector<Operation *> shared;
  function.walk([&](tensor::CollapseShapeOp op) {
    if (op->hasOneUse() || op->use_empty() ||
        op->getParentOfType<dhlo::FusionOp>())
      return;
    auto producer = op.getSrc().getDefiningOp<linalg::GenericOp>();
    if (producer && !producer->getParentOfType<dhlo::FusionOp>())
      shared.push_back(op);
  });
  for (Operation *reshape : shared) {
    OpBuilder builder(reshape);
    SmallVector<OpOperand *> uses =
        llvm::map_to_vector(llvm::drop_begin(reshape->getUses()),
                            [](OpOperand &use) { return &use; });
    for (OpOperand *use : uses)
      use->set(builder.clone(*reshape)->getResult(0));
  }
}

struct FuseSharedProducersPass
    : impl::FuseSharedProducersBase<FuseSharedProducersPass> {
  using FuseSharedProducersBase::FuseSharedProducersBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, onlyGenericUsers);
    GreedyRewriteConfig config;
    if (moveReshapes) {
      unshareCollapsesOfRecomputedProducers(getOperation());
      // The rest of linalg-fuse-elementwise-ops, in the same rewrite.
      linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                        movesReshapeOnward);
      affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
      linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
      tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
      tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
      patterns.add<ComposeExpandOfCollapseByShape>(context);
      context->getLoadedDialect<linalg::LinalgDialect>()
          ->getCanonicalizationPatterns(patterns);
      linalg::populateConstantFoldLinalgOperations(patterns, hasOneUse);
      config.useTopDownTraversal = true;
    }
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                            config)))
      signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::codegen

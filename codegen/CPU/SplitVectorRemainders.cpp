//===- SplitVectorRemainders.cpp - vector bodies for row remainders -===//
//
// anyshape-split-vector-remainders (see Passes.td). Runs on scf loops,
// after the accumulators became iteration arguments and kernels were
// versioned, when every innermost loop is an scf.for.
//
// LLVM vectorises a row loop lanes x interleave at a time (16 x 4 = 64 f32
// on AVX-512: CpuTarget::rowLoopStep) and runs what is left in scalar
// code: a softmax row of 1023 runs 63 elements, exp included, one at a
// time, and cost 1.7x a row of 1024 (docs/benchmarks.md). Split at a
// multiple of the step, the first loop runs whole vector iterations only
// and the second fewer than a step, which LoopHints.h vectorises with
// masks for the tail: no element is left to scalar code.
//
//===----------------------------------------------------------------------===//
#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_SPLITVECTORREMAINDERS
#include "codegen/CPU/Passes.h.inc"

namespace {

bool isInnermost(scf::ForOp loop) {
  return !loop.getBody()
              ->walk(
                  [](LoopLikeOpInterface) { return WalkResult::interrupt(); })
              .wasInterrupted();
}

/// Worth splitting: step 1 and a trip count that may leave a remainder.
bool mayLeaveRemainder(scf::ForOp loop, int64_t step) {
  if (getConstantIntValue(loop.getStep()) != 1)
    return false;
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  if (lower && upper) {
    int64_t trips = *upper - *lower;
    return trips > step && trips % step != 0;
  }
  return true;
}

/// lower..upper becomes lower..lower + step * (trips / step), then a second
/// loop over k in 0..trips % step running the body at that point + k: both
/// trip counts are plain to LLVM's scalar evolution (a multiple of step;
/// less than step), which is what its vectoriser and LoopHints.h go by. The
/// second loop continues from the first one's results.
void split(scf::ForOp loop, int64_t step) {
  IRRewriter rewriter(loop->getContext());
  rewriter.setInsertionPoint(loop);
  Location loc = loop.getLoc();
  Value lower = loop.getLowerBound(), upper = loop.getUpperBound();
  Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
  Value multiple = rewriter.create<arith::ConstantIndexOp>(loc, step);
  Value trips = rewriter.create<arith::MaxSIOp>(
      loc, rewriter.create<arith::SubIOp>(loc, upper, lower), zero);
  Value mainTrips = rewriter.create<arith::MulIOp>(
      loc, rewriter.create<arith::DivUIOp>(loc, trips, multiple), multiple);
  Value splitAt = rewriter.create<arith::AddIOp>(loc, lower, mainTrips);
  Value remainder = rewriter.create<arith::RemUIOp>(loc, trips, multiple);

  auto rest = llvm::cast<scf::ForOp>(rewriter.clone(*loop));
  rest->moveAfter(loop);
  loop.getUpperBoundMutable().assign(splitAt);
  rewriter.replaceAllUsesWith(loop.getResults(), rest.getResults());
  rest.getInitArgsMutable().assign(loop.getResults());
  rest.getLowerBoundMutable().assign(zero);
  rest.getUpperBoundMutable().assign(remainder);
  // The body still expects the original index: splitAt + k.
  Value k = rest.getInductionVar();
  rewriter.setInsertionPointToStart(rest.getBody());
  auto index = rewriter.create<arith::AddIOp>(loc, splitAt, k);
  rewriter.replaceAllUsesExcept(k, index, index);
}

struct SplitVectorRemaindersPass
    : impl::SplitVectorRemaindersBase<SplitVectorRemaindersPass> {
  using SplitVectorRemaindersBase::SplitVectorRemaindersBase;

  void runOnOperation() override {
    if (step < 2)
      return;
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (isInnermost(loop) && mayLeaveRemainder(loop, step))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      split(loop, step);
  }
};

} // namespace
} // namespace anyshape::codegen

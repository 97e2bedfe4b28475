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

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace anyshape::jit {

#define GEN_PASS_DEF_FUSESHAREDPRODUCERS
#include "jit/Passes.h.inc"

namespace {

bool onlyGenericUsers(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  if (!producer || !llvm::isa<linalg::GenericOp>(producer))
    return false;
  return llvm::all_of(producer->getUsers(), [](Operation *user) {
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

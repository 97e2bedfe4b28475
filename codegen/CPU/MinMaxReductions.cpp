//===- MinMaxReductions.cpp - NaN-propagating min/max reductions -*- C++
//-*-===//
//
// anyshape-min-max-reductions (see Passes.td). arith-expand would turn
// arith.maximumf into compares and selects, a shape LLVM's loop vectoriser
// does not recognise as a reduction: a row max then runs one element per
// compare-select latency. llvm.intr.maximum/minimum keep the NaN and
// signed-zero semantics and are a reduction kind the vectoriser knows;
// codegen/CPU/LoopHints.h asks it to vectorise the loops that hold them, which
// its cost model would otherwise decline.
//
//===----------------------------------------------------------------------===//
#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_MINMAXREDUCTIONS
#include "codegen/CPU/Passes.h.inc"

namespace {

/// True if one operand of `op` is the running value of one of `generic`'s
/// outputs: `op` combines into an accumulator.
bool combinesAccumulator(Operation *op, linalg::GenericOp generic) {
  for (Value operand : op->getOperands())
    if (auto argument = llvm::dyn_cast<BlockArgument>(operand))
      if (argument.getOwner() == generic.getBody() &&
          argument.getArgNumber() >= generic.getNumDpsInputs())
        return true;
  return false;
}

template <typename ArithOp, typename IntrinsicOp>
void replaceCombiners(linalg::GenericOp generic) {
  for (auto op :
       llvm::make_early_inc_range(generic.getBody()->getOps<ArithOp>())) {
    if (!combinesAccumulator(op, generic))
      continue;
    OpBuilder b(op);
    op.getResult().replaceAllUsesWith(
        b.create<IntrinsicOp>(op.getLoc(), op.getLhs(), op.getRhs()));
    op.erase();
  }
}

struct MinMaxReductionsPass : impl::MinMaxReductionsBase<MinMaxReductionsPass> {
  void runOnOperation() override {
    getOperation().walk([](linalg::GenericOp generic) {
      if (generic.getNumReductionLoops() == 0)
        return;
      replaceCombiners<arith::MaximumFOp, LLVM::MaximumOp>(generic);
      replaceCombiners<arith::MinimumFOp, LLVM::MinimumOp>(generic);
    });
  }
};

} // namespace
} // namespace anyshape::codegen

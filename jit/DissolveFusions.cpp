//===- DissolveFusions.cpp - kernels back into the host flow ----*- C++ -*-===//
//
// anyshape-dissolve-fusions (see Passes.td): each dhlo.fusion, by now one
// scheduled kernel with no results, is replaced by its body, in place.
//
//===----------------------------------------------------------------------===//
#include "jit/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"

using namespace mlir;

namespace anyshape::jit {

#define GEN_PASS_DEF_DISSOLVEFUSIONS
#include "jit/Passes.h.inc"

namespace {

struct DissolveFusionsPass : impl::DissolveFusionsBase<DissolveFusionsPass> {
  void runOnOperation() override {
    SmallVector<dhlo::FusionOp> fusions;
    getOperation().walk([&](dhlo::FusionOp op) { fusions.push_back(op); });
    for (dhlo::FusionOp fusion : fusions) {
      if (fusion.getNumResults() != 0) {
        fusion.emitOpError("still has results: its buffers were not hoisted");
        return signalPassFailure();
      }
      Block &body = fusion.getBody().front();
      fusion.getYield().erase();
      fusion->getBlock()->getOperations().splice(fusion->getIterator(),
                                                 body.getOperations());
      fusion.erase();
    }
  }
};

} // namespace
} // namespace anyshape::jit

//===- LaunchesToCalls.cpp - a CPU kernel launch is a call -------*- C++
//-*-===//
//
// anyshape-launches-to-calls (see Passes.td): on the CPU a kernel runs on
// the calling thread (which forks the OpenMP team inside it), so each
// dhlo.launch becomes a func.call of its kernel.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_LAUNCHESTOCALLS
#include "codegen/Common/Passes.h.inc"

namespace {

struct LaunchesToCallsPass : impl::LaunchesToCallsBase<LaunchesToCallsPass> {
  void runOnOperation() override {
    SmallVector<dhlo::LaunchOp> launches;
    getOperation().walk([&](dhlo::LaunchOp op) { launches.push_back(op); });
    for (dhlo::LaunchOp launch : launches) {
      OpBuilder b(launch);
      b.create<func::CallOp>(launch.getLoc(), launch.getKernelAttr(),
                             TypeRange{}, launch.getOperands());
      launch.erase();
    }
  }
};

} // namespace
} // namespace anyshape::codegen

//===- CheckDeviceOps.cpp - kernels hold only device code -------*- C++ -*-===//
//
// anyshape-check-device-ops (see Passes.td). What a kernel must not hold
// once outlined: ops whose lowering is a call of host code (a buffer
// copy, an allocation, a call), which no cubin can hold and whose
// lowering writes declarations into the host module while other kernels
// are lowered beside it. A compile error names the op and its kernel.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_CHECKDEVICEOPS
#include "codegen/CUDA/Passes.h.inc"

namespace {

struct CheckDeviceOpsPass : impl::CheckDeviceOpsBase<CheckDeviceOpsPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    WalkResult walk = module.walk([&](Operation *op) {
      if (!isa<memref::CopyOp, memref::AllocOp, memref::DeallocOp,
               memref::ReallocOp, func::CallOp>(op))
        return WalkResult::advance();
      op->emitError("kernel ")
          << module.getSymName() << " holds " << op->getName()
          << ", which has no device lowering";
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::codegen

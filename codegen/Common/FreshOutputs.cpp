//===- FreshOutputs.cpp - outputs the caller can own -------------*- C++
//-*-===//
//
// anyshape-fresh-outputs (see Passes.td). Runs on @main in tensor form,
// after conversion to linalg and before bufferization.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_FRESHOUTPUTS
#include "codegen/Common/Passes.h.inc"

namespace {

/// True if `value` is computed into a tensor.empty, directly or through
/// the tied inits of destination-style ops (a fill, then a reduction into
/// it), or is the result of a host-flow call other than an index check:
/// bufferization gives it a buffer of its own.
bool computedIntoFreshTensor(Value value) {
  while (auto result = llvm::dyn_cast<OpResult>(value)) {
    Operation *op = result.getOwner();
    // A host-flow call's result is an allocation of its own.
    if (llvm::isa<tensor::EmptyOp, bufferization::AllocTensorOp>(op) ||
        (dhlo::isHostFlowCall(op) && !llvm::isa<dhlo::CheckIndexOp>(op)))
      return true;
    // A kernel's result is what it yields.
    if (auto fusion = llvm::dyn_cast<dhlo::FusionOp>(op)) {
      value = fusion.getYield()->getOperand(result.getResultNumber());
      continue;
    }
    auto destination = llvm::dyn_cast<DestinationStyleOpInterface>(op);
    if (!destination)
      return false;
    value = destination.getTiedOpOperand(result)->get();
  }
  return false; // a function argument
}

struct FreshOutputsPass : impl::FreshOutputsBase<FreshOutputsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.getName() != "main")
      return;
    func.walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      llvm::SmallPtrSet<Value, 8> returned;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
        if (!type)
          continue;
        if (returned.insert(value).second && computedIntoFreshTensor(value))
          continue;
        operand.set(b.create<bufferization::AllocTensorOp>(
            ret.getLoc(), type, ValueRange{}, value));
      }
    });
  }
};

} // namespace
} // namespace anyshape::codegen

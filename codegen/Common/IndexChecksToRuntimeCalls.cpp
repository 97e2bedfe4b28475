//===- IndexChecksToRuntimeCalls.cpp - index checks as calls ----*- C++ -*-===//
//
// anyshape-index-checks-to-runtime-calls (see Passes.td): each bufferized
// dhlo.check_index becomes, where it stands in the host flow, a call
//
//   anyshapeCheckIndicesI32/I64(indices: memref<*xiN>, low: i64, high: i64,
//                               node: i64)
//
// through MLIR's C interface (the execution context is appended by
// anyshape-execution-context, as for the GEMM). The runtime scans the
// indices in row-major order and records the first outside [low, high)
// with `node` in the context; the run then fails with that node's error
// (ir/graph/IndexCheck.h). The indices go as an unranked view, whatever
// their rank and layout; high is the checked dim of the operand's buffer.
// A call is no kernel: the plan check passes over it.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_INDEXCHECKSTORUNTIMECALLS
#include "codegen/Common/Passes.h.inc"

namespace {

/// The runtime function checking indices of `element` (i32 or i64),
/// declared in `module` on first use.
func::FuncOp checkFunction(ModuleOp module, Type element) {
  StringRef name =
      element.isInteger(32) ? abi::kCheckIndicesI32 : abi::kCheckIndicesI64;
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type i64 = b.getI64Type();
  auto type = b.getFunctionType(
      {UnrankedMemRefType::get(element, /*memorySpace=*/0), i64, i64, i64}, {});
  auto declaration = b.create<func::FuncOp>(module.getLoc(), name, type);
  declaration.setPrivate();
  declaration->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  return declaration;
}

struct IndexChecksToRuntimeCallsPass
    : impl::IndexChecksToRuntimeCallsBase<IndexChecksToRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<dhlo::CheckIndexOp> checks;
    module.walk([&](dhlo::CheckIndexOp check) { checks.push_back(check); });
    for (dhlo::CheckIndexOp check : checks) {
      auto indices = llvm::dyn_cast<MemRefType>(check.getIndices().getType());
      if (!indices || !llvm::isa<MemRefType>(check.getOperand().getType())) {
        check.emitError("an index check on tensors after bufferization");
        return signalPassFailure();
      }
      OpBuilder b(check);
      Location loc = check.getLoc();
      Type i64 = b.getI64Type();
      func::FuncOp callee = checkFunction(module, indices.getElementType());
      Value view = b.create<memref::CastOp>(
          loc, callee.getFunctionType().getInput(0), check.getIndices());
      Value high = b.create<arith::IndexCastOp>(
          loc, i64,
          b.create<memref::DimOp>(loc, check.getOperand(), check.getAxis()));
      Value zero = b.create<arith::ConstantIntOp>(loc, 0, 64);
      Value low = check.getAllowNegative()
                      ? b.create<arith::SubIOp>(loc, zero, high).getResult()
                      : zero;
      Value node = b.create<arith::ConstantIntOp>(loc, check.getNode(), 64);
      b.create<func::CallOp>(loc, callee, ValueRange{view, low, high, node});
      check.erase();
    }
  }
};

} // namespace
} // namespace anyshape::codegen

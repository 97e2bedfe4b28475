//===- SizeChecksToRuntimeCalls.cpp - count rules as calls ------*- C++ -*-===//
//
// anyshape-size-checks-to-runtime-calls (see Passes.td): each
// dhlo.check_sizes becomes, where it stands in the host flow, its
// condition on i64 and a call
//
//   anyshapeCheckSizes(failed: i64, check: i64, a: i64, b: i64)
//
// through MLIR's C interface (the execution context is appended by
// anyshape-execution-context). The runtime stops the run when `failed` is
// set (runtime/SizeChecks.h). The call is unconditional: one per rule and
// run, where a branch would split the host flow's block.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"
#include "codegen/Common/ShapeCheckFunction.h"

#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/dhlo/IR/ShapeCheckAttr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_SIZECHECKSTORUNTIMECALLS
#include "codegen/Common/Passes.h.inc"

namespace {

func::FuncOp checkFunction(ModuleOp module) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(abi::kCheckSizes))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type i64 = b.getI64Type();
  auto declaration =
      b.create<func::FuncOp>(module.getLoc(), abi::kCheckSizes,
                             b.getFunctionType({i64, i64, i64, i64}, {}));
  declaration.setPrivate();
  declaration->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  return declaration;
}

struct SizeChecksToRuntimeCallsPass
    : impl::SizeChecksToRuntimeCallsBase<SizeChecksToRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<dhlo::CheckSizesOp> checks;
    module.walk([&](dhlo::CheckSizesOp check) { checks.push_back(check); });
    for (dhlo::CheckSizesOp check : checks) {
      OpBuilder b(check);
      Location loc = check.getLoc();
      Type i64 = b.getI64Type();
      Value a = b.create<arith::IndexCastOp>(loc, i64, check.getA());
      Value c = b.create<arith::IndexCastOp>(loc, i64, check.getB());
      std::optional<ShapeCheck::Kind> kind =
          dhlo::shapeCheckKindNamed(check.getKind());
      Value failed = kind ? breaksCondition(*kind, a, c, b, loc) : nullptr;
      if (!failed) {
        check.emitError("not a condition on two sizes");
        return signalPassFailure();
      }
      Value flag = b.create<arith::ExtUIOp>(loc, i64, failed);
      Value index = b.create<arith::ConstantIntOp>(loc, check.getCheck(), 64);
      b.create<func::CallOp>(loc, checkFunction(module),
                             ValueRange{flag, index, a, c});
      check.erase();
    }
  }
};

} // namespace
} // namespace anyshape::codegen

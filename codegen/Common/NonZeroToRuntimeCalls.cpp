//===- NonZeroToRuntimeCalls.cpp - nonzero as runtime calls -----*- C++ -*-===//
//
// anyshape-nonzero-to-runtime-calls (see Passes.td): what a nonzero
// bufferized to, where it stands in the host flow,
//
//   %n = dhlo.count_nonzero %x          ->  %c = call @anyshapeCountNonZero_T(
//                                                  %view, %kind) : i64
//                                            %n = index_cast %c
//   dhlo.nonzero_indices %x, %result    ->  call @anyshapeNonZeroIndices_T(
//                                                  %view, %kind, %resultView)
//
// through MLIR's C interface (the execution context is appended by
// anyshape-execution-context). The buffers go as unranked views, whatever
// their rank and layout; T names the operand's element type only because a
// declaration has one operand type, and `kind` tells the runtime how to
// read the elements (runtime/NonZero.h). The count sizes the allocation
// between the two calls, and so every shape that follows. A call is no
// kernel: the plan check passes over them.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"
#include "codegen/Common/RuntimeCalls.h"

#include "ir/dhlo/IR/DhloDialect.h"
#include "runtime/NonZero.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_NONZEROTORUNTIMECALLS
#include "codegen/Common/Passes.h.inc"

namespace {

/// The runtime's NonZeroElement for `element`, with the declaration
/// suffix naming it (runtimeElementOf's, whose code orders the kinds);
/// nullopt for a type no dtype has.
std::optional<std::pair<int64_t, const char *>> kindOf(Type element) {
  using namespace anyshape::runtime;
  // By ScatterElement code: bool, i32, i64, f16, bf16, f32 (f16 and bf16
  // have one zero test: the bits but the sign).
  static constexpr int64_t kinds[] = {kNonZeroInt8,    kNonZeroInt32,
                                      kNonZeroInt64,   kNonZeroFloat16,
                                      kNonZeroFloat16, kNonZeroFloat32};
  auto code = runtimeElementOf(element);
  if (!code)
    return std::nullopt;
  return std::pair{kinds[code->first], code->second};
}

struct NonZeroToRuntimeCallsPass
    : impl::NonZeroToRuntimeCallsBase<NonZeroToRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<dhlo::CountNonZeroOp, dhlo::NonZeroIndicesOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      Value operand = op->getOperand(0);
      auto type = llvm::dyn_cast<MemRefType>(operand.getType());
      auto kind = type ? kindOf(type.getElementType()) : std::nullopt;
      if (!kind) {
        op->emitError("nonzero of an unsupported buffer ") << operand.getType();
        return signalPassFailure();
      }
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value view = unrankedView(b, loc, operand);
      Value code = b.create<arith::ConstantIntOp>(loc, kind->first, 64);
      if (auto count = dyn_cast<dhlo::CountNonZeroOp>(op)) {
        func::FuncOp callee = runtimeDeclaration(
            module, (Twine(abi::kCountNonZero) + kind->second).str(),
            {view.getType(), b.getI64Type()}, {b.getI64Type()});
        Value counted =
            b.create<func::CallOp>(loc, callee, ValueRange{view, code})
                .getResult(0);
        count.getCount().replaceAllUsesWith(
            b.create<arith::IndexCastOp>(loc, b.getIndexType(), counted));
      } else {
        Value result = unrankedView(b, loc, op->getOperand(1));
        func::FuncOp callee = runtimeDeclaration(
            module, (Twine(abi::kNonZeroIndices) + kind->second).str(),
            {view.getType(), b.getI64Type(), result.getType()}, {});
        b.create<func::CallOp>(loc, callee, ValueRange{view, code, result});
      }
      op->erase();
    }
  }
};

} // namespace
} // namespace anyshape::codegen

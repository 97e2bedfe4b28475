//===- ArgsortToRuntimeCalls.cpp - argsort as a runtime call ----*- C++ -*-===//
//
// anyshape-argsort-to-runtime-calls (see Passes.td): what an argsort
// bufferized to, where it stands in the host flow,
//
//   dhlo.argsort_into %x, %r {axis, descending}
//       ->  call @anyshapeArgsort_T(%xView, %rView, %element, %axis,
//                                   %descending)
//
// through MLIR's C interface (the execution context is appended by
// anyshape-execution-context). T names the element type only because a
// declaration has one type per operand; the code tells the runtime how to
// read it (runtime/Argsort.h). A call is no kernel: the plan check passes
// over it.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"
#include "codegen/Common/RuntimeCalls.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_ARGSORTTORUNTIMECALLS
#include "codegen/Common/Passes.h.inc"

namespace {

struct ArgsortToRuntimeCallsPass
    : impl::ArgsortToRuntimeCallsBase<ArgsortToRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<dhlo::ArgsortIntoOp> argsorts;
    module.walk([&](dhlo::ArgsortIntoOp op) { argsorts.push_back(op); });
    for (dhlo::ArgsortIntoOp op : argsorts) {
      auto type = llvm::cast<MemRefType>(op.getOperand().getType());
      auto element = runtimeElementOf(type.getElementType());
      if (!element) {
        op.emitError("argsort of an unsupported buffer ") << type;
        return signalPassFailure();
      }
      OpBuilder b(op);
      Location loc = op->getLoc();
      SmallVector<Value> operands{unrankedView(b, loc, op.getOperand()),
                                  unrankedView(b, loc, op.getResult())};
      for (int64_t code :
           {element->first, int64_t(op.getAxis()), int64_t(op.getDescending())})
        operands.push_back(b.create<arith::ConstantIntOp>(loc, code, 64));
      func::FuncOp callee = runtimeDeclaration(
          module, (Twine(abi::kArgsort) + element->second).str(),
          ValueRange(operands).getTypes(), {});
      b.create<func::CallOp>(loc, callee, operands);
      op.erase();
    }
  }
};

} // namespace
} // namespace anyshape::codegen

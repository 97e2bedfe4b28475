//===- CumulativeToRuntimeCalls.cpp - cumulative as a call ------*- C++ -*-===//
//
// anyshape-cumulative-to-runtime-calls (see Passes.td): what a cumulative
// bufferized to, where it stands in the host flow,
//
//   dhlo.cumulative_into %x, %r {axis, kind, exclusive, reverse}
//       ->  call @anyshapeCumulative_T(%xView, %rView, %element, %axis,
//                                      %kind, %flags)
//
// through MLIR's C interface (the execution context is appended by
// anyshape-execution-context). T names the element type only because a
// declaration has one type per operand; the codes tell the runtime how to
// read it and what to fold (runtime/Cumulative.h). A call is no kernel:
// the plan check passes over it.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"
#include "codegen/Common/RuntimeCalls.h"

#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/graph/OpRegistry.h"
#include "runtime/Cumulative.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_CUMULATIVETORUNTIMECALLS
#include "codegen/Common/Passes.h.inc"

namespace {

/// The wire ReduceKind's number for a dhlo kind name.
std::optional<int64_t> kindOf(StringRef name) {
  for (int k = v1::REDUCE_SUM; k <= v1::REDUCE_PROD; ++k)
    if (std::string_view(name) == reduceKindName(v1::ReduceKind(k)))
      return k;
  return std::nullopt;
}

struct CumulativeToRuntimeCallsPass
    : impl::CumulativeToRuntimeCallsBase<CumulativeToRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<dhlo::CumulativeIntoOp> folds;
    module.walk([&](dhlo::CumulativeIntoOp op) { folds.push_back(op); });
    for (dhlo::CumulativeIntoOp op : folds) {
      auto type = llvm::cast<MemRefType>(op.getOperand().getType());
      auto element = runtimeElementOf(type.getElementType());
      std::optional<int64_t> kind = kindOf(op.getKind());
      if (!element || !kind) {
        op.emitError("cumulative of an unsupported buffer or kind ") << type;
        return signalPassFailure();
      }
      int64_t flags =
          (op.getExclusive() ? int64_t(runtime::kCumulativeExclusive) : 0) |
          (op.getReverse() ? int64_t(runtime::kCumulativeReverse) : 0);
      OpBuilder b(op);
      Location loc = op->getLoc();
      SmallVector<Value> operands{unrankedView(b, loc, op.getOperand()),
                                  unrankedView(b, loc, op.getResult())};
      for (int64_t code : {element->first, int64_t(op.getAxis()), *kind, flags})
        operands.push_back(b.create<arith::ConstantIntOp>(loc, code, 64));
      func::FuncOp callee = runtimeDeclaration(
          module, (Twine(abi::kCumulative) + element->second).str(),
          ValueRange(operands).getTypes(), {});
      b.create<func::CallOp>(loc, callee, operands);
      op.erase();
    }
  }
};

} // namespace
} // namespace anyshape::codegen

//===- ScatterToRuntimeCalls.cpp - scatter as a runtime call ----*- C++ -*-===//
//
// anyshape-scatter-to-runtime-calls (see Passes.td): what a scatter
// bufferized to, where it stands in the host flow,
//
//   dhlo.scatter_into %x, %i, %u, %r   ->  call @anyshapeScatter_T_I(
//                                              %xView, %iView, %uView,
//                                              %rView, %element,
//                                              %indexBytes, %reduction)
//
// through MLIR's C interface (the execution context is appended by
// anyshape-execution-context). T and I name the element and index types
// only because a declaration has one type per operand; the codes tell the
// runtime how to read them (runtime/Scatter.h). A call is no kernel: the
// plan check passes over it.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"
#include "codegen/Common/RuntimeCalls.h"

#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/graph/OpRegistry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_SCATTERTORUNTIMECALLS
#include "codegen/Common/Passes.h.inc"

namespace {

/// The runtime's code for a dhlo.scatter reduction name: the wire
/// reduction's number (runtime/Scatter.h).
std::optional<int64_t> reductionOf(StringRef name) {
  for (int k = v1::SCATTER_REPLACE; k <= v1::SCATTER_MIN; ++k)
    if (std::string_view(name) == scatterReductionName(v1::ScatterReduction(k)))
      return k;
  return std::nullopt;
}

struct ScatterToRuntimeCallsPass
    : impl::ScatterToRuntimeCallsBase<ScatterToRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<dhlo::ScatterIntoOp> scatters;
    module.walk([&](dhlo::ScatterIntoOp op) { scatters.push_back(op); });
    for (dhlo::ScatterIntoOp op : scatters) {
      auto type = llvm::cast<MemRefType>(op.getOperand().getType());
      auto indexType = llvm::cast<MemRefType>(op.getIndices().getType());
      auto element = runtimeElementOf(type.getElementType());
      std::optional<int64_t> reduction = reductionOf(op.getReduction());
      bool wideIndices = indexType.getElementType().isInteger(64);
      if (!element || !reduction ||
          !(wideIndices || indexType.getElementType().isInteger(32))) {
        op.emitError("scatter of an unsupported buffer or reduction");
        return signalPassFailure();
      }
      OpBuilder b(op);
      Location loc = op.getLoc();
      SmallVector<Value> operands;
      for (Value buffer :
           {op.getOperand(), op.getIndices(), op.getUpdates(), op.getResult()})
        operands.push_back(unrankedView(b, loc, buffer));
      for (int64_t code :
           {element->first, wideIndices ? int64_t(8) : 4, *reduction})
        operands.push_back(b.create<arith::ConstantIntOp>(loc, code, 64));
      std::string name = (Twine(abi::kScatter) + element->second +
                          abi::kIndexSuffixes[wideIndices ? 1 : 0])
                             .str();
      func::FuncOp callee =
          runtimeDeclaration(module, name, ValueRange(operands).getTypes(), {});
      b.create<func::CallOp>(loc, callee, operands);
      op.erase();
    }
  }
};

} // namespace
} // namespace anyshape::codegen

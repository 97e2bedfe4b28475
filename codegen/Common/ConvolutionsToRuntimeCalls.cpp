//===- ConvolutionsToRuntimeCalls.cpp - convolutions by oneDNN --*- C++ -*-===//
//
// anyshape-convolutions-to-runtime-calls (see Passes.td): what a
// convolution bufferized to, where it stands in the host flow,
//
//   dhlo.convolution_into %x, %w, %y {strides, dilations, padding_low,
//                                     padding_high, groups}
//     ->  call @anyshapeConvolutionF32(%xView, %wView, %yView, %rank,
//                                      %groups, %s0, %s1, %s2, %d0, %d1,
//                                      %d2, %low0, ..., %high2, %slot)
//
// through MLIR's C interface (the execution context is appended by
// anyshape-execution-context). Unused spatial entries are 1 (strides,
// dilations) and 0 (paddings). %slot is the address of a global word of
// the convolution's own where the runtime keeps its weights reordered,
// once, when they are a view of a constant of the executable (the
// finalizer frees them); 0 otherwise. A call is no kernel: the plan check
// passes over it.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/ConstantWeights.h"
#include "codegen/Common/Passes.h"
#include "codegen/Common/RuntimeCalls.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_CONVOLUTIONSTORUNTIMECALLS
#include "codegen/Common/Passes.h.inc"

namespace {

/// The runtime reads three entries per geometry attribute.
constexpr int64_t kMaxSpatialDims = 3;

struct ConvolutionsToRuntimeCallsPass
    : impl::ConvolutionsToRuntimeCallsBase<ConvolutionsToRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    SymbolTable table(module);
    SmallVector<dhlo::ConvolutionIntoOp> convolutions;
    module.walk(
        [&](dhlo::ConvolutionIntoOp op) { convolutions.push_back(op); });
    for (dhlo::ConvolutionIntoOp op : convolutions) {
      auto type = llvm::cast<MemRefType>(op.getInput().getType());
      int64_t rank = type.getRank() - 2;
      if (!type.getElementType().isF32() || rank < 1 ||
          rank > kMaxSpatialDims) {
        op.emitError("convolution of an unsupported buffer");
        return signalPassFailure();
      }
      OpBuilder b(op);
      Location loc = op.getLoc();
      SmallVector<Value> operands;
      for (Value buffer : {op.getInput(), op.getWeights(), op.getResult()})
        operands.push_back(unrankedView(b, loc, buffer));
      SmallVector<int64_t> codes{rank, static_cast<int64_t>(op.getGroups())};
      for (auto [values, unused] :
           {std::pair{op.getStrides(), 1}, std::pair{op.getDilations(), 1},
            std::pair{op.getPaddingLow(), 0},
            std::pair{op.getPaddingHigh(), 0}})
        for (int64_t i = 0; i < kMaxSpatialDims; ++i)
          codes.push_back(i < rank ? values[i] : unused);
      for (int64_t code : codes)
        operands.push_back(b.create<arith::ConstantIntOp>(loc, code, 64));
      if (constantWeightView(op.getWeights(), nullptr, symbols)) {
        memref::GlobalOp slot =
            slotGlobal(module, table, &module.getBody()->front(),
                       "anyshape_convolution_weights",
                       abi::kReleaseConvolutionWeights, loc);
        operands.push_back(slotAddress(b, slot, loc));
      } else {
        operands.push_back(b.create<arith::ConstantIntOp>(loc, 0, 64));
      }
      func::FuncOp callee = runtimeDeclaration(
          module, abi::kConvolutionF32, ValueRange(operands).getTypes(), {});
      b.create<func::CallOp>(loc, callee, operands);
      op.erase();
    }
  }
};

} // namespace
} // namespace anyshape::codegen

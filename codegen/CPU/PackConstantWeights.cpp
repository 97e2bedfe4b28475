//===- PackConstantWeights.cpp - GEMM weights packed once --------*- C++
//-*-===//
//
// anyshape-pack-constant-weights (see Passes.td). Whether a GEMM's B is a
// weight is known here, at compile time, and nowhere at run time: the
// runtime sees strided buffers. So this pass marks each GEMM on a constant
// by its callee and gives it a slot, and the runtime (runtime/PackedGemm.h)
// decides per call whether the pack can serve it.
//
// Invariants: only calls of abi::kBatchMatmulF32 change; their A, B and C are
// passed unchanged. A slot is one weight view's: calls that read the same
// host-flow view share it, and no two views share one.
//
//===----------------------------------------------------------------------===//
#include "codegen/CPU/Passes.h"
#include "codegen/Common/ConstantWeights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace anyshape::codegen {

#define GEN_PASS_DEF_PACKCONSTANTWEIGHTS
#include "codegen/CPU/Passes.h.inc"

using namespace mlir;

namespace {

/// The packed GEMM's declaration: the plain one's operands and the slot.
func::FuncOp declarePacked(ModuleOp module, func::FuncOp plain, Type slot) {
  if (auto existing =
          module.lookupSymbol<func::FuncOp>(abi::kBatchMatmulPackedF32))
    return existing;
  OpBuilder b(plain);
  SmallVector<Type> inputs(plain.getFunctionType().getInputs());
  inputs.push_back(slot);
  auto packed =
      b.create<func::FuncOp>(plain.getLoc(), abi::kBatchMatmulPackedF32,
                             b.getFunctionType(inputs, {}));
  packed.setPrivate();
  packed->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  return packed;
}

struct PackConstantWeightsPass
    : impl::PackConstantWeightsBase<PackConstantWeightsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto plain = module.lookupSymbol<func::FuncOp>(abi::kBatchMatmulF32);
    if (!plain)
      return;
    SymbolTableCollection symbols;
    struct Weighted {
      func::CallOp call;
      Operation *fusion; // the call's fusion, if any
      Value view;        // the weight's view in the host flow
    };
    SmallVector<Weighted> weighted;
    module.walk([&](func::CallOp call) {
      if (call.getCallee() != abi::kBatchMatmulF32 ||
          call.getNumOperands() != 3)
        return;
      Operation *fusion = call->getParentOfType<dhlo::FusionOp>();
      if (Value view = constantWeightView(call.getOperand(1), fusion, symbols))
        weighted.push_back({call, fusion, view});
    });
    if (weighted.empty())
      return;

    MLIRContext *context = &getContext();
    OpBuilder b(context);
    auto slotType = MemRefType::get({1}, b.getI64Type());
    func::FuncOp packed = declarePacked(module, plain, slotType);
    OpBuilder finalize = finalizerBody(module);
    func::FuncOp release =
        module.lookupSymbol<func::FuncOp>(abi::kReleaseGemmPack);
    if (!release) {
      b.setInsertionPoint(plain);
      release = b.create<func::FuncOp>(module.getLoc(), abi::kReleaseGemmPack,
                                       b.getFunctionType({b.getI64Type()}, {}));
      release.setPrivate();
    }
    SymbolTable table(module);
    llvm::DenseMap<Value, memref::GlobalOp> slotOf;
    for (auto [call, fusion, view] : weighted) {
      Location loc = call.getLoc();
      memref::GlobalOp &slot = slotOf[view];
      if (!slot) {
        b.setInsertionPoint(plain);
        slot = b.create<memref::GlobalOp>(
            loc, "anyshape_gemm_pack", b.getStringAttr("private"), slotType,
            DenseElementsAttr::get(RankedTensorType::get({1}, b.getI64Type()),
                                   b.getI64IntegerAttr(0)),
            /*constant=*/false, /*alignment=*/b.getI64IntegerAttr(8));
        table.insert(slot); // uniquifies the name
        Value address = finalize.create<arith::IndexCastOp>(
            loc, finalize.getI64Type(),
            finalize.create<memref::ExtractAlignedPointerAsIndexOp>(
                loc, finalize.create<memref::GetGlobalOp>(loc, slotType,
                                                          slot.getSymName())));
        finalize.create<func::CallOp>(loc, release, ValueRange{address});
      }
      // In the host flow, before the GEMM's fusion (where its weight view
      // is), so that outlining makes the slot a kernel operand.
      b.setInsertionPoint(fusion ? fusion : call.getOperation());
      Value slotView =
          b.create<memref::GetGlobalOp>(loc, slotType, slot.getSymName());
      SmallVector<Value> operands(call.getOperands());
      operands.push_back(slotView);
      b.setInsertionPoint(call);
      b.create<func::CallOp>(loc, packed, operands);
      call.erase();
    }
    if (SymbolTable::symbolKnownUseEmpty(plain, module))
      plain.erase();
  }
};

} // namespace
} // namespace anyshape::codegen

//===- SeededConstantsAtLoad.cpp - large constants made at load --*- C++
//-*-===//
//
// anyshape-seeded-constants-at-load (see Passes.td). Each dhlo.seeded_uniform
// becomes an uninitialised global that @anyshape_initialize fills by calling
// the runtime's generator, the evaluator's own (ConstantData.h), so compiled
// values equal reference values bit for bit. The compiler never holds the
// elements: compile memory and object size are independent of the
// constant's size, and a seeded weight costs its bytes once, at load.
//
// The globals are public. LLVM may fold loads of an internal global it sees
// never stored to its initializer (undef here); an external one could be
// written by anyone, which is the truth once the initializer has run.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace anyshape::codegen {

#define GEN_PASS_DEF_SEEDEDCONSTANTSATLOAD
#include "codegen/Common/Passes.h.inc"

using namespace mlir;

namespace {

/// `(address: i64, count: i64, dtype: i32, seed: i64, low: f64, high: f64)`,
/// declared once.
func::FuncOp declareFill(ModuleOp module, OpBuilder &b) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(kFillSeededUniform))
    return existing;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  Type i64 = b.getI64Type(), f64 = b.getF64Type();
  auto fill = b.create<func::FuncOp>(
      module.getLoc(), kFillSeededUniform,
      b.getFunctionType({i64, i64, b.getI32Type(), i64, f64, f64}, {}));
  fill.setPrivate();
  return fill;
}

struct SeededConstantsAtLoadPass
    : impl::SeededConstantsAtLoadBase<SeededConstantsAtLoadPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<dhlo::SeededUniformOp> seeded;
    module.walk([&](dhlo::SeededUniformOp op) { seeded.push_back(op); });

    // Always defined (empty without seeded constants): the loader calls it
    // on every object.
    OpBuilder b(&getContext());
    b.setInsertionPointToEnd(module.getBody());
    auto initialize = b.create<func::FuncOp>(module.getLoc(), kInitializeSymbol,
                                             b.getFunctionType({}, {}));
    OpBuilder body = OpBuilder::atBlockEnd(initialize.addEntryBlock());
    SymbolTable symbols(module);
    for (dhlo::SeededUniformOp op : seeded) {
      Location loc = op.getLoc();
      RankedTensorType tensorType = op.getType();
      auto type =
          MemRefType::get(tensorType.getShape(), tensorType.getElementType());
      std::optional<v1::DType> dtype =
          dhlo::dtypeOf(tensorType.getElementType());
      if (!dtype) { // the op's verifier rules this out
        op.emitOpError("has no wire dtype");
        return signalPassFailure();
      }
      b.setInsertionPoint(initialize);
      auto global = b.create<memref::GlobalOp>(
          loc, "anyshape_seeded", b.getStringAttr("public"), type,
          /*initial_value=*/b.getUnitAttr(), /*constant=*/false,
          /*alignment=*/b.getI64IntegerAttr(64));
      symbols.insert(global); // uniquifies the name

      Value buffer =
          body.create<memref::GetGlobalOp>(loc, type, global.getSymName());
      Value address = body.create<arith::IndexCastOp>(
          loc, body.getI64Type(),
          body.create<memref::ExtractAlignedPointerAsIndexOp>(loc, buffer));
      auto i64 = [&](int64_t v) -> Value {
        return body.create<arith::ConstantIntOp>(loc, v, 64);
      };
      auto f64 = [&](APFloat v) -> Value {
        return body.create<arith::ConstantFloatOp>(loc, v, body.getF64Type());
      };
      body.create<func::CallOp>(
          loc, declareFill(module, b),
          ValueRange{address, i64(tensorType.getNumElements()),
                     body.create<arith::ConstantIntOp>(loc, *dtype, 32),
                     i64(static_cast<int64_t>(op.getSeed())), f64(op.getLow()),
                     f64(op.getHigh())});

      OpBuilder at(op);
      Value view =
          at.create<memref::GetGlobalOp>(loc, type, global.getSymName());
      // restrict: the only tensor view of this buffer; not writable, so a
      // consumer that would write in place gets a copy.
      op.replaceAllUsesWith(at.create<bufferization::ToTensorOp>(
                                  loc, tensorType, view, /*restrict=*/true)
                                .getResult());
      op.erase();
    }
    body.create<func::ReturnOp>(module.getLoc());
  }
};

} // namespace

} // namespace anyshape::codegen

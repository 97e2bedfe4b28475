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

/// The runtime's generator, declared once: abi::kFillSeededUniform `(address,
/// count, dtype, seed, low, high)`, or with `transposed`
/// abi::kFillSeededUniformTransposed `(address, rows, cols, dtype, seed, low,
/// high)`.
func::FuncOp declareFill(ModuleOp module, OpBuilder &b, bool transposed) {
  StringRef name =
      transposed ? abi::kFillSeededUniformTransposed : abi::kFillSeededUniform;
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  Type i64 = b.getI64Type(), f64 = b.getF64Type();
  SmallVector<Type> arguments{i64, i64};
  if (transposed)
    arguments.push_back(i64);
  arguments.append({b.getI32Type(), i64, f64, f64});
  auto fill = b.create<func::FuncOp>(module.getLoc(), name,
                                     b.getFunctionType(arguments, {}));
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
    auto initialize = b.create<func::FuncOp>(
        module.getLoc(), abi::kInitializeSymbol, b.getFunctionType({}, {}));
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
      // Written by the initializer only: a constant to every run.
      global->setAttr(kLoadTimeConstantAttr, b.getUnitAttr());

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
      // The wire constant's extent: [rows, cols] transposed, else flat.
      SmallVector<Value> arguments{address};
      if (op.getTransposed())
        arguments.append(
            {i64(tensorType.getDimSize(1)), i64(tensorType.getDimSize(0))});
      else
        arguments.push_back(i64(tensorType.getNumElements()));
      arguments.append({body.create<arith::ConstantIntOp>(loc, *dtype, 32),
                        i64(static_cast<int64_t>(op.getSeed())),
                        f64(op.getLow()), f64(op.getHigh())});
      body.create<func::CallOp>(loc, declareFill(module, b, op.getTransposed()),
                                arguments);

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

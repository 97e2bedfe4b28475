//===- ConstantWeights.h - library calls on constant weights ----*- C++ -*-===//
//
// What the passes that let a library keep its own form of a constant
// weight share (the GEMM's packs, the convolution's reorders): whether a
// buffer is a view of one of the executable's constants, a slot global
// the runtime keeps that form in, and the finalizer that frees it when the
// object is unloaded. Only the compiler knows a weight is constant; the
// runtime sees a buffer, and trusts the slot.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/Common/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace anyshape::codegen {

/// The view outside `fusion` (or `b` itself without one) that `b` is made
/// from, if `b` is a view of a constant global of the executable (a dense
/// constant, or one filled at load); null otherwise.
inline mlir::Value constantWeightView(mlir::Value b, mlir::Operation *fusion,
                                      mlir::SymbolTableCollection &symbols) {
  mlir::Value hostView;
  mlir::Value v = b;
  while (mlir::Operation *def = v.getDefiningOp()) {
    if (!hostView && (!fusion || !fusion->isAncestor(def)))
      hostView = v;
    if (auto get = llvm::dyn_cast<mlir::memref::GetGlobalOp>(def)) {
      auto global = symbols.lookupNearestSymbolFrom<mlir::memref::GlobalOp>(
          get, get.getNameAttr());
      bool constant = global && (global.getConstant() ||
                                 global->hasAttr(kLoadTimeConstantAttr));
      return constant ? hostView : mlir::Value();
    }
    if (auto kernel = llvm::dyn_cast<dhlo::FusionOp>(def)) {
      // A fusion that only passes the constant on (the plan makes one of
      // a constant no kernel reads, such as a convolution's weights).
      auto result = llvm::cast<mlir::OpResult>(v);
      v = kernel.getBody().front().getTerminator()->getOperand(
          result.getResultNumber());
      continue;
    }
    if (auto transpose = llvm::dyn_cast<mlir::memref::TransposeOp>(def))
      v = transpose.getIn();
    else if (auto view = llvm::dyn_cast<mlir::ViewLikeOpInterface>(def))
      v = view.getViewSource();
    else
      return {};
  }
  return {}; // a block argument: an input, or a kernel's operand
}

/// The object's finalizer, made if absent; its builder is placed before
/// the return.
inline mlir::OpBuilder finalizerBody(mlir::ModuleOp module) {
  auto finalize = module.lookupSymbol<mlir::func::FuncOp>(abi::kFinalizeSymbol);
  if (!finalize) {
    mlir::OpBuilder b = mlir::OpBuilder::atBlockEnd(module.getBody());
    finalize = b.create<mlir::func::FuncOp>(
        module.getLoc(), abi::kFinalizeSymbol, b.getFunctionType({}, {}));
    mlir::OpBuilder::atBlockEnd(finalize.addEntryBlock())
        .create<mlir::func::ReturnOp>(module.getLoc());
  }
  mlir::OpBuilder b(module.getContext());
  b.setInsertionPoint(finalize.getBody().back().getTerminator());
  return b;
}

/// The address of `slot`'s word as an i64, at `b`.
inline mlir::Value slotAddress(mlir::OpBuilder &b, mlir::memref::GlobalOp slot,
                               mlir::Location loc) {
  auto slotType = mlir::MemRefType::get({1}, b.getI64Type());
  return b.create<mlir::arith::IndexCastOp>(
      loc, b.getI64Type(),
      b.create<mlir::memref::ExtractAlignedPointerAsIndexOp>(
          loc, b.create<mlir::memref::GetGlobalOp>(loc, slotType,
                                                   slot.getSymName())));
}

/// A new zero-filled `memref<1xi64>` global named after `name` (made
/// unique in `table`, the module's, kept across calls), before `anchor`,
/// whose value the finalizer hands to `release` (`(slot address: i64) ->
/// ()`, declared if absent).
inline mlir::memref::GlobalOp
slotGlobal(mlir::ModuleOp module, mlir::SymbolTable &table,
           mlir::Operation *anchor, llvm::StringRef name,
           llvm::StringRef release, mlir::Location loc) {
  mlir::OpBuilder b(anchor);
  auto slotType = mlir::MemRefType::get({1}, b.getI64Type());
  auto releaseFn = module.lookupSymbol<mlir::func::FuncOp>(release);
  if (!releaseFn) {
    releaseFn = b.create<mlir::func::FuncOp>(
        loc, release, b.getFunctionType({b.getI64Type()}, {}));
    releaseFn.setPrivate();
  }
  auto slot = b.create<mlir::memref::GlobalOp>(
      loc, name, b.getStringAttr("private"), slotType,
      mlir::DenseElementsAttr::get(
          mlir::RankedTensorType::get({1}, b.getI64Type()),
          b.getI64IntegerAttr(0)),
      /*constant=*/false, /*alignment=*/b.getI64IntegerAttr(8));
  table.insert(slot); // uniquifies the name
  mlir::OpBuilder finalize = finalizerBody(module);
  finalize.create<mlir::func::CallOp>(
      loc, releaseFn, mlir::ValueRange{slotAddress(finalize, slot, loc)});
  return slot;
}

} // namespace anyshape::codegen

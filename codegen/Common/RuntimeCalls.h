//===- RuntimeCalls.h - the runtime a host flow calls -----------*- C++ -*-===//
//
// What the passes that turn buffer ops into calls of the runtime share
// (nonzero, scatter): a C-interface declaration, made once per module,
// and a buffer passed as an unranked view, whatever its rank and layout.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace anyshape::codegen {

/// `name`, taking `inputs` and returning `results`, declared in `module`
/// on first use (MLIR's C interface: `_mlir_ciface_<name>`).
inline mlir::func::FuncOp runtimeDeclaration(mlir::ModuleOp module,
                                             llvm::StringRef name,
                                             mlir::TypeRange inputs,
                                             mlir::TypeRange results) {
  if (auto existing = module.lookupSymbol<mlir::func::FuncOp>(name))
    return existing;
  auto b = mlir::OpBuilder::atBlockBegin(module.getBody());
  auto function = b.create<mlir::func::FuncOp>(
      module.getLoc(), name, b.getFunctionType(inputs, results));
  function.setPrivate();
  function->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  return function;
}

/// `buffer` as an unranked view, at `b`.
inline mlir::Value unrankedView(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value buffer) {
  auto type = llvm::cast<mlir::MemRefType>(buffer.getType());
  return b.create<mlir::memref::CastOp>(
      loc,
      mlir::UnrankedMemRefType::get(type.getElementType(),
                                    /*memorySpace=*/0),
      buffer);
}

} // namespace anyshape::codegen

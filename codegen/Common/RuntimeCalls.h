//===- RuntimeCalls.h - the runtime a host flow calls -----------*- C++ -*-===//
//
// What the passes that turn buffer ops into calls of the runtime share
// (nonzero, scatter, argsort): a C-interface declaration, made once per
// module, a buffer passed as an unranked view, whatever its rank and
// layout, and the code that names an element type to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/Common/Passes.h"
#include "runtime/Scatter.h"

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

/// The runtime's code for `element` (a ScatterElement: scatter and argsort
/// take it), with the declaration suffix naming it (abi::kElementSuffixes);
/// nullopt for a type no dtype has.
inline std::optional<std::pair<int64_t, const char *>>
runtimeElementOf(mlir::Type element) {
  using namespace anyshape::runtime;
  if (element.isInteger(1))
    return std::pair{int64_t(kScatterBool), abi::kElementSuffixes[0]};
  if (element.isInteger(32))
    return std::pair{int64_t(kScatterI32), abi::kElementSuffixes[1]};
  if (element.isInteger(64))
    return std::pair{int64_t(kScatterI64), abi::kElementSuffixes[2]};
  if (element.isF16())
    return std::pair{int64_t(kScatterF16), abi::kElementSuffixes[3]};
  if (element.isBF16())
    return std::pair{int64_t(kScatterBF16), abi::kElementSuffixes[4]};
  if (element.isF32())
    return std::pair{int64_t(kScatterF32), abi::kElementSuffixes[5]};
  return std::nullopt;
}

} // namespace anyshape::codegen

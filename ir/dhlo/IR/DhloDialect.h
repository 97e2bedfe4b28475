//===- DhloDialect.h - the dhlo dialect -------------------------*- C++ -*-===//
//
// The dhlo dialect, its #dhlo.shape attribute and its ops; and the bridge
// between dhlo types and the wire format's symbolic types (SymTensorType),
// through which the dialect reuses the wire format's shape rules.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/graph/TensorType.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "ir/dhlo/IR/DhloDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "ir/dhlo/IR/DhloAttrs.h.inc"

#define GET_OP_CLASSES
#include "ir/dhlo/IR/DhloOps.h.inc"

namespace anyshape::dhlo {

/// The wire dtype of an MLIR element type (f32, f16, bf16, i32, i64, i1).
std::optional<v1::DType> dtypeOf(mlir::Type elementType);
mlir::Type elementTypeOf(mlir::MLIRContext *context, v1::DType dtype);

/// A dhlo op that maps elements to elements (unary, binary, compare,
/// select: OpClass Unary, Binary or Select of the op table).
bool isElementwise(mlir::Operation *op);

/// Equal types mean equal shapes only when every dim is known: static, or
/// a symbol expression (equal expressions are equal sizes). Two `?` dims
/// may differ at run time.
bool fullyKnown(mlir::Type type);

/// Dim `d` of `type` as a polynomial: its static size or its encoding's
/// entry; nullopt when unknown.
std::optional<SymExpr> dimOf(mlir::RankedTensorType type, int64_t d);

/// The shape of `type` as an attribute (a broadcast target): its encoding,
/// or its static sizes; null when a dim is unknown (`?`) or holds a fresh
/// symbol.
ShapeAttr shapeAttrOf(mlir::RankedTensorType type);

/// Prefix of the fresh symbols the dialect's own shape inference makes; a
/// result dim that depends on one is unknown (`?`) in the result type.
inline constexpr const char *kLocalFreshPrefix = "?local";

/// The symbolic type of a dhlo tensor: its #dhlo.shape encoding where
/// present, its static sizes otherwise, and a fresh symbol from `ctx` for
/// any dim nothing is known about.
std::optional<SymTensorType> symbolicTypeOf(mlir::Type type, ShapeContext &ctx);

/// A ranked tensor type for `type`; symbolic dims go to the encoding (no
/// encoding when every dim is static). Dims over symbols starting with
/// kLocalFreshPrefix become unknown.
mlir::RankedTensorType tensorTypeOf(mlir::MLIRContext *context,
                                    const SymTensorType &type);

/// Builds index values for every result dim of a dhlo op from the dims of
/// its enclosing function's arguments (and, where a dim is derived in a way
/// no symbol names, from its operands' dims).
mlir::LogicalResult
reifyDhloResultShapes(mlir::Operation *op, mlir::OpBuilder &builder,
                      mlir::ReifiedRankedShapedTypeDims &shapes);

/// The value of `dim` (a polynomial over symbols) as an index, computed
/// from the dims of the arguments of the function enclosing `contextOp`;
/// null if a symbol is bound by no argument.
mlir::Value materializeSymExpr(mlir::Operation *contextOp,
                               mlir::OpBuilder &builder, const SymExpr &dim);

/// The identity of a reduction `kind` (sum, prod, max, min) in element
/// type `t`: what a reduction over no elements yields.
mlir::TypedAttr reductionIdentity(mlir::Builder &b, llvm::StringRef kind,
                                  mlir::Type t);

/// Reads a dhlo op's attributes (by op name) into a wire-format node, so the
/// wire format's shape rules can type it. Fails with a message on
/// attributes the wire format cannot express.
mlir::FailureOr<v1::Node> toWireNode(llvm::StringRef opName,
                                     mlir::DictionaryAttr attributes,
                                     std::string &error);

/// Whether the host flow computes `op` by a call of the runtime, in no
/// kernel: an index or size check, nonzero, scatter, argsort, cumulative
/// or convolution. The fusion plan leaves them out; every kernel around them
/// ends there.
inline bool isHostFlowCall(mlir::Operation *op) {
  return llvm::isa<CheckIndexOp, CheckSizesOp, NonZeroOp, ScatterOp, ArgsortOp,
                   CumulativeOp, ConvolutionOp>(op);
}

} // namespace anyshape::dhlo

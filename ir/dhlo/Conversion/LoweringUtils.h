//===- LoweringUtils.h - shared pieces of dhlo lowerings --------*- C++ -*-===//
//
// What every dhlo-to-linalg pattern needs: the result's dims as values,
// empty destination tensors, encoding-free types, and the scalar
// semantics of elementwise ops (ScalarOps.cpp) that linalg bodies and,
// later, fused kernels share.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace anyshape::dhlo {

/// `type` without its #dhlo.shape encoding.
mlir::RankedTensorType withoutEncoding(mlir::Type type);

/// Dim `d` of ranked tensor `tensor`: an attribute if static, else a
/// tensor.dim value.
mlir::OpFoldResult dimOf(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value tensor, int64_t d);

/// The same as an index value (a constant if static).
mlir::Value dimValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor,
                     int64_t d);

/// The op's single result dims (reified) as index values or attributes.
mlir::FailureOr<llvm::SmallVector<mlir::OpFoldResult>>
resultDims(mlir::Operation *op, mlir::OpBuilder &b);

/// tensor.empty with the op's result dims and element type `elementType`
/// (the result's own when null).
mlir::FailureOr<mlir::Value> emptyResult(mlir::Operation *op,
                                         mlir::OpBuilder &b,
                                         mlir::Type elementType = {});

/// Identity indexing maps and parallel iterators for rank `rank`.
llvm::SmallVector<mlir::utils::IteratorType> parallelIterators(int64_t rank);

/// The scalar computation of elementwise op `opName` on `args` (already
/// the operands' element values); `resultType` is the result element type.
/// f16/bf16 math is done in f32. Null if the op is not elementwise.
mlir::Value emitScalarOp(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::StringRef opName, mlir::ValueRange args,
                         mlir::Type resultType,
                         mlir::DictionaryAttr attributes);

/// `value` converted to `to` with the convert op's semantics.
mlir::Value emitConvert(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value value, mlir::Type to);

// Pattern sets, one per op family.
/// On a dhlo.reshape that splits or merges dims in order: its
/// reassociation groups (an array of i64 arrays), recorded before lowering
/// from the symbolic types.
inline constexpr const char *kReshapeGroupsAttr = "dhlo.reshape_groups";

void populateElementwiseToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateShapeOpsToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateContractionsToLinalgPatterns(mlir::RewritePatternSet &patterns);

} // namespace anyshape::dhlo

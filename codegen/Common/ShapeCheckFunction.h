//===- ShapeCheckFunction.h - run-time shape checks as code -----*- C++ -*-===//
//
// Turns a graph's run-time shape checks (GraphInfo::shapeChecks) into
// `func.func @anyshape_check_shapes(memref<?x...>...) -> i64`: it reads
// every input's dims from the same descriptors @main takes, evaluates the
// checks in order with overflow-checked integer arithmetic, and returns 0
// when all hold, else 1 + the index of the first that fails. The entry
// (ObjectCode.h) calls it before @main, so no kernel sees sizes that break
// a shape rule, and a new shape costs a few integer operations instead of
// a walk over the graph.
//
// The inputs are taken as fully dynamic memrefs even where @main's types
// have static dims: a static dim of the parameter type would fold its read
// to the declared size, which is exactly what must be checked.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/graph/ShapeChecks.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace anyshape::codegen {

inline constexpr const char *kShapeCheckFunction = "anyshape_check_shapes";

/// Whether the i64 sizes `a` and `b` break a condition of `kind`
/// (isCondition in ir/graph/ShapeChecks.h), as i1 built at `builder`;
/// null for any other kind. The entry's checks and the mid-run rules on
/// a count (anyshape-size-checks-to-runtime-calls) both evaluate so.
mlir::Value breaksCondition(ShapeCheck::Kind kind, mlir::Value a, mlir::Value b,
                            mlir::OpBuilder &builder, mlir::Location loc);

/// Adds @anyshape_check_shapes to `module`, whose @main is the import of
/// a graph with these run-time `checks`, with the C interface the entry
/// calls. anyshape-shape-check-function calls it with the checks the
/// importer recorded (ir/dhlo/IR/ShapeCheckAttr.h).
void addShapeCheckFunction(mlir::ModuleOp module,
                           const std::vector<ShapeCheck> &checks);

} // namespace anyshape::codegen

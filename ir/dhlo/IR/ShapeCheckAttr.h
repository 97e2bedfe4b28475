//===- ShapeCheckAttr.h - run-time shape checks in the IR --------*- C++
//-*-===//
//
// A graph's run-time shape checks (ir/graph/ShapeChecks.h) as a module
// attribute, `dhlo.shape_checks`: the importer writes what validation
// found, and anyshape-shape-check-function turns it into code. So the
// imported module alone is what the pipeline needs, and anyshape-opt
// reproduces a compile from `anyshape import` output.
//
// Each check is a dictionary of the fields its kind reads; an expression
// is an array of terms, each `[coefficient, symbol...]` (no symbol: the
// constant term), so fresh symbols ("?3") round-trip exactly. A check's
// message (`what`) and node stay with GraphInfo, which reports failures.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/graph/ShapeChecks.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <vector>

namespace anyshape::dhlo {

inline constexpr const char *kShapeChecksAttr = "dhlo.shape_checks";

/// The name of `kind` in the attribute ("equal", "less_equal", ...).
llvm::StringRef shapeCheckKindName(ShapeCheck::Kind kind);

/// The kind named `name`, if one is.
std::optional<ShapeCheck::Kind> shapeCheckKindNamed(llvm::StringRef name);

/// `checks` as the attribute.
mlir::ArrayAttr shapeChecksAttr(mlir::MLIRContext *context,
                                const std::vector<ShapeCheck> &checks);

/// The checks `attr` holds, or failure (with a diagnostic at `loc`) if it
/// is not one shapeChecksAttr wrote.
mlir::FailureOr<std::vector<ShapeCheck>>
shapeChecksFromAttr(mlir::Attribute attr, mlir::Location loc);

} // namespace anyshape::dhlo

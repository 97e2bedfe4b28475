//===- GraphImporter.h - wire Graph to a dhlo module -------------*- C++
//-*-===//
//
// Imports a wire-format graph as `func.func @main` over dhlo ops. The graph
// is validated first (ir/graph/Validate.h) and every value's type comes
// from that whole-graph view, so symbols (named, and fresh ones for
// anonymous and underivable dims) appear in every tensor type's #dhlo.shape
// encoding. Node names become NameLocs, so later diagnostics name nodes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/graph/ConstantData.h"
#include "ir/graph/Limits.h"
#include "ir/graph/Validate.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace anyshape {

struct ImportOptions {
  GraphLimits limits;
  const TensorLookup *tensors = nullptr; // for tensor_id constants
  /// The graph's validation, when the caller has it (the compiler): the
  /// import then trusts it instead of validating again (`limits` unused).
  const GraphInfo *validated = nullptr;
};

/// The module, or failure with diagnostics emitted on `context` (each
/// naming the input, node or output at fault).
mlir::OwningOpRef<mlir::ModuleOp>
importGraph(mlir::MLIRContext &context, const v1::Graph &graph,
            const ImportOptions &options = {});

/// Loads the dialects the importer produces into `context`.
void loadImportDialects(mlir::MLIRContext &context);

} // namespace anyshape

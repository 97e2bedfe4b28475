// Binding a graph's symbols to sizes: from the concrete shapes of its
// inputs (checking every declared static size, symbol and expression), or
// the other way round, the input shapes for given symbol sizes. Used by the
// reference evaluator, by executables before they touch any data, and by
// the CLI to make inputs.
#pragma once

#include "Limits.h"
#include "Validate.h"
#include "anyshape/v1/graph.pb.h"
#include "runtime/support/Status.h"

#include <map>
#include <string>
#include <vector>

namespace anyshape {

/// Binds every named symbol from concrete input shapes (in graph input
/// order) and checks each input against its declared type. Errors name the
/// input and dim.
StatusOr<std::map<std::string, int64_t>>
bindSymbols(const v1::Graph &graph,
            const std::vector<std::vector<int64_t>> &inputShapes);

/// The concrete shape of each graph input for the given symbol sizes,
/// checked against `limits` so callers may allocate them. Anonymous dims
/// cannot be sized this way and are an error.
StatusOr<std::vector<std::vector<int64_t>>>
inputShapesFor(const v1::Graph &graph,
               const std::map<std::string, int64_t> &symbols,
               const GraphLimits &limits = {});

/// The concrete sizes of every value for one call.
struct ConcreteShapes {
  std::map<std::string, int64_t> symbols;
  std::vector<std::vector<int64_t>> nodes; // indexed like graph.nodes()
  /// Per node: its shape depends on data (a nonzero, or a node reading one
  /// through its operands), so the walk left `nodes[i]` empty; the
  /// evaluator infers it once the values before it are known.
  std::vector<bool> fromData;
};

/// Binds the symbols and runs every node's shape rule on concrete sizes,
/// so every run-time condition of docs/ops.md (equal dims of elementwise
/// operands, broadcast dims 1 or equal, reshape element counts, slice and
/// pad bounds, contracting dims, element limits) is checked before any
/// kernel touches data. Errors name the input or node. Nodes whose shape
/// depends on data are skipped (ConcreteShapes::fromData).
StatusOr<ConcreteShapes>
concreteShapes(const v1::Graph &graph, const GraphInfo &info,
               const std::vector<std::vector<int64_t>> &inputShapes,
               const GraphLimits &limits = {});

/// The same checks as concreteShapes, without keeping the shapes. Decides
/// what an executable's generated shape checks decide (GraphInfo::
/// shapeChecks); the tests hold the two to the same answers.
Status checkConcreteShapes(const v1::Graph &graph, const GraphInfo &info,
                           const std::vector<std::vector<int64_t>> &inputShapes,
                           const GraphLimits &limits = {});

/// One line saying what run-time shape check `check` of `graph` requires
/// ("node 'out' (mul): operand dims 0 (n and m) must be equal").
std::string describeShapeCheck(const v1::Graph &graph, const ShapeCheck &check);

/// The error for run-time shape check `info.shapeChecks[index]` failing on
/// `inputShapes`: what the check requires, and the sizes of the input dims
/// it reads (each named by input and dim).
Status shapeCheckError(const v1::Graph &graph, const GraphInfo &info,
                       size_t index,
                       const std::vector<std::vector<int64_t>> &inputShapes);

/// The error for rule `info.countChecks[index]` (on a nonzero's count)
/// failing mid-run with sides `a` and `b`: what it requires and the sizes
/// its sides had.
Status countCheckError(const v1::Graph &graph, const GraphInfo &info,
                       size_t index, int64_t a, int64_t b);

} // namespace anyshape

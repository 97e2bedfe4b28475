// The reference evaluator: a plain, obviously correct interpreter of the
// whole op set, and the oracle of every numerical test in the project.
//
// It validates the graph, binds symbols from the concrete input shapes
// (checking every declared static size, symbol and expression), then walks
// the nodes in topological order computing concrete shapes with the same
// shape rules the compiler uses (ir/graph/ShapeInference.h) and values in
// double or int64, rounding once per op to the result dtype. Speed is not a
// goal beyond keeping the encoder example interactive.
#pragma once

#include "Literal.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/ConstantData.h"

#include <map>
#include <string>
#include <vector>

namespace anyshape {

struct EvalOptions {
  /// The evaluator holds every element as a double or int64 (8 bytes), so
  /// it caps tensors tighter than the service: 2^28 elements, 2 GiB.
  GraphLimits limits = [] {
    GraphLimits l;
    l.maxElementsPerTensor = int64_t(1) << 28;
    return l;
  }();
  const TensorLookup *tensors = nullptr; // for tensor_id constants
};

/// Evaluates the graph's outputs for `inputs` given in graph input order.
StatusOr<std::vector<Literal>> evaluateGraph(const v1::Graph &graph,
                                             const std::vector<Literal> &inputs,
                                             const EvalOptions &options = {});

} // namespace anyshape

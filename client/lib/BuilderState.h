// GraphBuilder's private state, shared by the primitive ops
// (GraphBuilder.cpp) and the composite layers (Layers.cpp).
#pragma once

#include "anyshape/client/GraphBuilder.h"
#include "ir/graph/ShapeInference.h"

#include <set>

namespace anyshape::client {

struct GraphBuilder::State {
  v1::Graph graph;
  // Per Value id: its type and its name in the graph.
  std::vector<SymTensorType> types;
  std::vector<std::string> names;
  /// Names the user chose (parameters, renamed outputs): generated node
  /// names skip them.
  std::set<std::string> userNames;
  /// Symbols parameters and nonzero counts bound: a generated count name
  /// skips them.
  std::set<std::string> symbols;
  GraphLimits limits;
  ShapeContext shapes = ShapeContext::symbolic(limits, {});
  Status error;
  int nextNodeNumber = 0;
  std::string nodeNamePrefix; // with its "/", or empty

  bool fail(Status status) {
    if (error.isOk())
      error = std::move(status);
    return false;
  }
  bool usable(std::initializer_list<Value> values) {
    if (!error.isOk())
      return false;
    for (Value v : values)
      if (!v.isValid() || v.id() >= static_cast<int>(types.size()))
        return fail(invalidArgument("use of an invalid Value"));
    return true;
  }
  const SymTensorType &type(Value v) const { return types[v.id()]; }
  Value valueAt(int id) const { return Value(id); }

  /// Appends `node` (named here, typed by the shape rules) with `operands`.
  Value addNode(v1::Node node, const std::vector<Value> &operands);
  /// `x` broadcast to `dims`, operand dim i going to result dim
  /// mapping[i] (numpy: aligned on the right when `mapping` is empty); `x`
  /// itself if it already has those dims.
  Value broadcastTo(Value x, const std::vector<SymExpr> &dims,
                    std::vector<int64_t> mapping = {});
  /// Wire dims for a reshape to `dims`; a dim with no wire name becomes -1
  /// (at most one may).
  bool reshapeDims(const std::vector<SymExpr> &dims,
                   google::protobuf::RepeatedPtrField<v1::Dim> *out);
};

} // namespace anyshape::client

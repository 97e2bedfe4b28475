// The op set of the wire format: one row per op with its operand count and
// the attribute message it takes. Validation, the evaluator, the builder and
// docs/ops.md all follow this table; adding an op starts here.
#pragma once

#include "anyshape/v1/graph.pb.h"

#include <string_view>
#include <vector>

namespace anyshape {

enum class OpClass {
  Source, // constant, iota
  Unary,  // abs ... not, convert
  Binary, // add ... or, compare
  Select,
  ShapeChanging, // broadcast_in_dim, reshape, transpose, slice, concat, pad
  Gather,
  Reduce,
  DotGeneral,
  DimSize,
  CheckIndex,
  NonZero, // a result dim known only from the data
  Scatter, // rows of updates combined into rows of the operand
  Convolution,
  Argsort,    // positions in sorted order along an axis
  Cumulative, // running folds along an axis
};

struct OpInfo {
  std::string_view name;
  OpClass opClass;
  int minOperands;
  int maxOperands; // -1: unbounded
  /// The attrs oneof case the op requires; ATTRS_NOT_SET if it takes none.
  v1::Node::AttrsCase attrs;
};

/// The row for `name`, or nullptr for an unknown op.
const OpInfo *lookupOp(std::string_view name);
const std::vector<OpInfo> &allOps();
/// A reduce or cumulative kind's name in dhlo ("sum", "max", "min",
/// "prod"); "" for an invalid one.
std::string_view reduceKindName(v1::ReduceKind kind);
/// A scatter reduction's name in dhlo and error text ("replace", "add",
/// "mul", "max", "min"); "" for an invalid one.
std::string_view scatterReductionName(v1::ScatterReduction reduction);

/// The attribute field name for an attrs case ("reshape", "dot_general").
std::string_view attrsName(v1::Node::AttrsCase attrs);

} // namespace anyshape

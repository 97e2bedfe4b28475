//===- OnnxSizeConditions.h - an If's condition on sizes --------*- C++ -*-===//
//
// The TorchScript exporter writes x.squeeze(d) of a dim it cannot see as
// If(size(x, d) == 1, Squeeze, Identity). Where the sizes do not decide
// such a condition at import, the importer takes one branch (the graph
// cannot hold both: their ranks differ) and has the graph require, at
// run time, that the condition picks it: a run where it would not fails
// naming the If, instead of computing the other branch's meaning.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "frontend/onnx/OnnxState.h"

#include <optional>
#include <string>

namespace anyshape::onnx {

/// lhs `relation` rhs on two dim expressions, or its negation.
struct SizeCondition {
  enum class Relation { Equal, Less, LessEqual };
  std::string lhs, rhs;
  Relation relation = Relation::Equal;
  bool negated = false;
};

/// Condition value `name` as a comparison of two sizes (Equal, Less,
/// LessOrEqual, Greater, GreaterOrEqual of one-element values known as
/// dims, under any number of Nots); nullopt for anything else.
std::optional<SizeCondition> sizeConditionOf(const ImportState &state,
                                             const std::string &name);

/// Has the graph check before it runs that `condition` is `holds`, the
/// check's nodes named `why`; false if the sizes cannot be written so.
bool requireSizeCondition(client::GraphBuilder &b,
                          const SizeCondition &condition, bool holds,
                          const std::string &why);

} // namespace anyshape::onnx

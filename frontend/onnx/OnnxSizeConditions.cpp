//===- OnnxSizeConditions.cpp - an If's condition on sizes ------*- C++ -*-===//
#include "frontend/onnx/OnnxSizeConditions.h"

#include "frontend/onnx/OnnxNode.h"

namespace anyshape::onnx {

namespace {

/// The one dim value `name` holds, if it is known as one.
std::optional<std::string> oneDim(const ImportState &state,
                                  const std::string &name) {
  auto value = state.values.find(name);
  if (value == state.values.end())
    return std::nullopt;
  std::optional<ImportState::KnownDims> known =
      knownDimsOf(state, name, value->second);
  if (!known || known->dims.size() != 1)
    return std::nullopt;
  return known->dims[0];
}

} // namespace

std::optional<SizeCondition> sizeConditionOf(const ImportState &state,
                                             const std::string &name) {
  using Relation = SizeCondition::Relation;
  bool negated = false;
  std::string at = name;
  // At most as many Nots as a graph has nodes; 64 is plenty for a shape.
  for (int depth = 0; depth < 64; ++depth) {
    auto producer = state.producers.find(at);
    if (producer == state.producers.end())
      return std::nullopt;
    const ::onnx::NodeProto &node = *producer->second;
    const std::string &op = node.op_type();
    if ((op == "Not" || op == "Identity") && node.input_size() == 1) {
      negated ^= op == "Not";
      at = node.input(0);
      continue;
    }
    if (node.input_size() != 2)
      return std::nullopt;
    std::optional<std::string> a = oneDim(state, node.input(0)),
                               b = oneDim(state, node.input(1));
    if (!a || !b)
      return std::nullopt;
    if (op == "Equal")
      return SizeCondition{*a, *b, Relation::Equal, negated};
    if (op == "Less")
      return SizeCondition{*a, *b, Relation::Less, negated};
    if (op == "LessOrEqual")
      return SizeCondition{*a, *b, Relation::LessEqual, negated};
    if (op == "Greater")
      return SizeCondition{*b, *a, Relation::Less, negated};
    if (op == "GreaterOrEqual")
      return SizeCondition{*b, *a, Relation::LessEqual, negated};
    return std::nullopt;
  }
  return std::nullopt;
}

bool requireSizeCondition(client::GraphBuilder &b,
                          const SizeCondition &condition, bool holds,
                          const std::string &why) {
  using Relation = SizeCondition::Relation;
  holds ^= condition.negated;
  const std::string &x = condition.lhs, &y = condition.rhs;
  // Each requirement as differences that must not be negative, or one
  // that must not be zero.
  std::vector<std::optional<std::string>> notNegative;
  std::optional<std::string> notZero;
  auto minus = [](const std::string &p, const std::string &q,
                  int64_t less) -> std::optional<std::string> {
    std::optional<std::string> d = arithmetic("Sub", p, q);
    return d && less ? arithmetic("Sub", *d, std::to_string(less)) : d;
  };
  switch (condition.relation) {
  case Relation::Equal:
    if (holds) {
      notNegative = {minus(x, y, 0), minus(y, x, 0)};
      break;
    }
    notZero = minus(x, y, 0);
    break;
  case Relation::Less: // x < y, or else x >= y
    notNegative = {holds ? minus(y, x, 1) : minus(x, y, 0)};
    break;
  case Relation::LessEqual: // x <= y, or else x > y
    notNegative = {holds ? minus(y, x, 0) : minus(x, y, 1)};
    break;
  }
  bool different = condition.relation == Relation::Equal && !holds;
  if (different ? !notZero : notNegative.empty())
    return false;
  for (const std::optional<std::string> &d : notNegative)
    if (!d)
      return false;
  b.setNodeNamePrefix(why);
  for (const std::optional<std::string> &d : notNegative)
    requireNotNegative(b, *d);
  if (different)
    requireNotZero(b, *notZero);
  return true;
}

} // namespace anyshape::onnx

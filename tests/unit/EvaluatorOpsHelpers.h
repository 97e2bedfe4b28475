// Helpers shared by the reference evaluator's op tests (EvaluatorOpsTest,
// EvaluatorShapeOpsTest): literal builders, single-node graphs, and an
// independent SplitMix64 for seeded constants.
#pragma once

#include "TestUtil.h"

#include "ir/graph/ConstantData.h"
#include "runtime/support/Half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace anyshape {
namespace evaltest {

using test::bytesOf;
using test::dimsText;
using test::exprText;
using test::failsWith;
using test::makeIntLiteral;
using test::makeLiteral;
using test::valuesNear;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

inline Literal f32(std::vector<int64_t> shape, std::vector<double> values) {
  return makeLiteral(v1::DTYPE_F32, std::move(shape), values);
}
inline Literal f16(std::vector<int64_t> shape, std::vector<double> values) {
  return makeLiteral(v1::DTYPE_F16, std::move(shape), values);
}
inline Literal bf16(std::vector<int64_t> shape, std::vector<double> values) {
  return makeLiteral(v1::DTYPE_BF16, std::move(shape), values);
}
inline Literal i32(std::vector<int64_t> shape, std::vector<double> values) {
  return makeLiteral(v1::DTYPE_I32, std::move(shape), values);
}
inline Literal i64(std::vector<int64_t> shape, std::vector<double> values) {
  return makeLiteral(v1::DTYPE_I64, std::move(shape), values);
}
inline Literal boolean(std::vector<int64_t> shape, std::vector<double> values) {
  return makeLiteral(v1::DTYPE_BOOL, std::move(shape), values);
}

/// A graph with one input per literal (in0, in1, ...; static shapes) and one
/// node "y" applying `op` with `attrs` to all of them.
inline v1::Graph opGraph(const std::string &op,
                         const std::vector<Literal> &inputs,
                         const std::string &attrs) {
  std::string text;
  std::vector<std::string> names;
  for (size_t k = 0; k < inputs.size(); ++k) {
    std::vector<std::string> dims;
    for (int64_t d : inputs[k].shape)
      dims.push_back(std::to_string(d));
    names.push_back("in" + std::to_string(k));
    text += test::inputText(names.back(), dtypeName(inputs[k].dtype), dims);
  }
  text += test::nodeText("y", op, names, attrs) + test::outputText("y");
  return test::parseGraph(text);
}

/// Evaluates `op` applied to `inputs`.
inline Literal apply(const std::string &op, const std::vector<Literal> &inputs,
                     const std::string &attrs = "") {
  return test::evaluateOne(opGraph(op, inputs, attrs), inputs);
}

/// The error evaluating `op` applied to `inputs` (OK if it succeeded).
inline Status applyError(const std::string &op,
                         const std::vector<Literal> &inputs,
                         const std::string &attrs = "") {
  return evaluateGraph(opGraph(op, inputs, attrs), inputs).status();
}

inline v1::ConstantAttrs constantAttrs(DType dtype,
                                       std::vector<int64_t> shape) {
  v1::ConstantAttrs attrs;
  attrs.set_dtype(dtype);
  for (int64_t d : shape)
    attrs.add_shape(d);
  return attrs;
}

inline v1::Graph constantGraph(const v1::ConstantAttrs &attrs) {
  v1::Graph graph;
  v1::Node *node = graph.add_nodes();
  node->set_name("c");
  node->set_op("constant");
  *node->mutable_constant() = attrs;
  graph.add_outputs("c");
  return graph;
}

inline Literal evalConstant(const v1::ConstantAttrs &attrs,
                            const EvalOptions &options = {}) {
  return test::evaluateOne(constantGraph(attrs), {}, options);
}

/// SplitMix64 as graph.proto specifies SeededUniform, written out here
/// independently of ConstantData.cpp.
inline double splitMixUnit(uint64_t seed, uint64_t i) {
  uint64_t z = seed + i * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z = z ^ (z >> 31);
  return static_cast<double>(z >> 11) / 9007199254740992.0; // 2^53
}

inline std::string compareAttrs(const char *direction) {
  return std::string("compare { direction: ") + direction + " }";
}

inline std::string broadcastAttrs(const std::vector<std::string> &shape,
                                  const std::vector<int64_t> &mapping) {
  std::string out = "broadcast_in_dim { " + dimsText(shape, "shape");
  for (int64_t m : mapping)
    out += "broadcast_dimensions: " + std::to_string(m) + " ";
  return out + "}";
}

inline std::string reduceAttrs(const char *kind,
                               const std::vector<int64_t> &dims) {
  std::string out = std::string("reduce { kind: ") + kind + " ";
  for (int64_t d : dims)
    out += "dimensions: " + std::to_string(d) + " ";
  return out + "}";
}

} // namespace evaltest
} // namespace anyshape

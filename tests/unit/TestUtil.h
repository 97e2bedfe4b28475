// Helpers shared by the unit tests: graphs written as protobuf text (whole
// or assembled from one-line pieces such as inputText and nodeText), literals
// made from plain vectors, evaluation through the reference evaluator, and
// element-by-element comparison of literals with a tolerance (NaN matching
// NaN, infinities matching exactly).
#pragma once

#include "ir/graph/DimText.h"
#include "ir/graph/GraphText.h"
#include "ir/graph/Validate.h"
#include "ir/reference/Evaluator.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace anyshape::test {

/// Parses a Graph from protobuf text; a parse error fails the test.
inline v1::Graph parseGraph(std::string_view text) {
  auto graph = parseGraphText(text);
  EXPECT_TRUE(graph.isOk()) << graph.status().toString() << "\n" << text;
  return graph.isOk() ? *graph : v1::Graph();
}

/// "f32" -> "DTYPE_F32" (unknown names pass through, e.g. "99").
inline std::string dtypeEnumText(const std::string &dtype) {
  if (auto d = parseDType(dtype))
    return v1::DType_Name(*d);
  return dtype;
}

/// One message as single-line protobuf text.
inline std::string shortText(const google::protobuf::Message &message) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  std::string text;
  printer.PrintToString(message, &text);
  return text;
}

/// `dims { ... }` pieces for dims written as text ("2", "seq", "seq + 1",
/// "?"); `field` names the repeated field ("dims", "shape").
inline std::string dimsText(const std::vector<std::string> &dims,
                            const std::string &field = "dims") {
  std::string out;
  for (const std::string &text : dims) {
    auto dim = parseDim(text);
    EXPECT_TRUE(dim.isOk()) << dim.status().toString();
    if (dim.isOk())
      out += field + " { " + shortText(*dim) + "} ";
  }
  return out;
}

/// A DimExpr field (`start_indices { ... }`) from text ("seq - 1", "2").
inline std::string exprText(const std::string &field, const std::string &text) {
  auto expr = parseDimExpr(text);
  EXPECT_TRUE(expr.isOk()) << expr.status().toString();
  return field + " { " + (expr.isOk() ? shortText(*expr) : "") + "} ";
}

/// `inputs { ... }` for a graph input.
/// `slice { start_indices {..} limit_indices {..} strides: .. }` text.
inline std::string sliceText(const std::vector<std::string> &starts,
                             const std::vector<std::string> &limits,
                             const std::vector<int64_t> &strides = {}) {
  std::string out = "slice { ";
  for (const std::string &s : starts)
    out += exprText("start_indices", s);
  for (const std::string &l : limits)
    out += exprText("limit_indices", l);
  for (int64_t s : strides)
    out += "strides: " + std::to_string(s) + " ";
  return out + "}";
}

inline std::string inputText(const std::string &name, const std::string &dtype,
                             const std::vector<std::string> &dims) {
  return "inputs { name: \"" + name +
         "\" type { dtype: " + dtypeEnumText(dtype) + " " + dimsText(dims) +
         "} }\n";
}

/// `nodes { ... }`; `attrs` is the attribute field in text, e.g.
/// "reduce { kind: REDUCE_SUM dimensions: 0 }".
inline std::string nodeText(const std::string &name, const std::string &op,
                            const std::vector<std::string> &operands,
                            const std::string &attrs = "") {
  std::string out = "nodes { name: \"" + name + "\" op: \"" + op + "\" ";
  for (const std::string &operand : operands)
    out += "operands: \"" + operand + "\" ";
  return out + attrs + " }\n";
}

inline std::string outputText(const std::string &name) {
  return "outputs: \"" + name + "\"\n";
}

/// Little-endian bytes of `values` as elements of type T.
template <typename T> std::string bytesOf(const std::vector<T> &values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty())
    std::memcpy(out.data(), values.data(), out.size());
  return out;
}

/// A literal of `dtype` and `shape` from values (floats round to the dtype,
/// integers are taken as integers and wrap, bool is != 0).
inline Literal makeLiteral(DType dtype, std::vector<int64_t> shape,
                           const std::vector<double> &values) {
  Literal lit = Literal::zeros(dtype, std::move(shape));
  EXPECT_EQ(lit.numElements(), static_cast<int64_t>(values.size()))
      << "makeLiteral: value count does not match the shape";
  for (size_t k = 0; k < values.size() && int64_t(k) < lit.numElements(); ++k) {
    if (lit.isFloat())
      lit.setDouble(k, values[k]);
    else
      lit.setInt(k, static_cast<int64_t>(values[k]));
  }
  return lit;
}

/// An integer literal from exact int64 values (beyond 2^53 too).
inline Literal makeIntLiteral(DType dtype, std::vector<int64_t> shape,
                              const std::vector<int64_t> &values) {
  Literal lit = Literal::zeros(dtype, std::move(shape));
  EXPECT_EQ(lit.numElements(), static_cast<int64_t>(values.size()));
  for (size_t k = 0; k < values.size() && int64_t(k) < lit.numElements(); ++k)
    lit.setInt(k, values[k]);
  return lit;
}

/// Evaluates `graph`; an error fails the test and yields no outputs.
inline std::vector<Literal> evaluate(const v1::Graph &graph,
                                     const std::vector<Literal> &inputs = {},
                                     const EvalOptions &options = {}) {
  auto result = evaluateGraph(graph, inputs, options);
  EXPECT_TRUE(result.isOk()) << result.status().toString();
  return result.isOk() ? *result : std::vector<Literal>();
}

/// The first output of `graph` (an empty literal on failure).
inline Literal evaluateOne(const v1::Graph &graph,
                           const std::vector<Literal> &inputs = {},
                           const EvalOptions &options = {}) {
  std::vector<Literal> outputs = evaluate(graph, inputs, options);
  EXPECT_FALSE(outputs.empty());
  return outputs.empty() ? Literal() : outputs.front();
}

inline std::string shapeString(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// True if a and b agree within `tolerance` (absolute, plus the same
/// relative to |b|); NaN equals NaN and infinities must match exactly.
inline bool nearlyEqual(double a, double b, double tolerance) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b))
    return a == b;
  return std::fabs(a - b) <= tolerance * (1.0 + std::fabs(b));
}

/// Checks dtype, shape and every element of `actual` against `expected`.
inline ::testing::AssertionResult literalsNear(const Literal &actual,
                                               const Literal &expected,
                                               double tolerance = 0.0) {
  if (actual.dtype != expected.dtype)
    return ::testing::AssertionFailure()
           << "dtype " << dtypeName(actual.dtype) << ", expected "
           << dtypeName(expected.dtype);
  if (actual.shape != expected.shape)
    return ::testing::AssertionFailure()
           << "shape " << shapeString(actual.shape) << ", expected "
           << shapeString(expected.shape);
  int64_t n = expected.numElements();
  if (int64_t(actual.isFloat() ? actual.f.size() : actual.i.size()) != n)
    return ::testing::AssertionFailure() << "element storage size differs";
  for (int64_t k = 0; k < n; ++k) {
    bool same = actual.isFloat()
                    ? nearlyEqual(actual.f[k], expected.f[k], tolerance)
                    : actual.i[k] == expected.i[k];
    if (!same)
      return ::testing::AssertionFailure()
             << "element " << k << " is " << actual.getDouble(k)
             << ", expected " << expected.getDouble(k);
  }
  return ::testing::AssertionSuccess();
}

/// literalsNear against a literal made from `dtype`, `shape` and `values`.
inline ::testing::AssertionResult valuesNear(const Literal &actual, DType dtype,
                                             std::vector<int64_t> shape,
                                             const std::vector<double> &values,
                                             double tolerance = 0.0) {
  return literalsNear(actual, makeLiteral(dtype, std::move(shape), values),
                      tolerance);
}

/// True if `status` failed and its message contains every one of `parts`.
inline ::testing::AssertionResult
failsWith(const Status &status, const std::vector<std::string> &parts) {
  if (status.isOk())
    return ::testing::AssertionFailure() << "expected an error, got OK";
  for (const std::string &part : parts)
    if (status.message().find(part) == std::string::npos)
      return ::testing::AssertionFailure()
             << "message '" << status.message() << "' lacks '" << part << "'";
  return ::testing::AssertionSuccess();
}

} // namespace anyshape::test

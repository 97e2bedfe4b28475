// One node being translated (OnnxOps.cpp, OnnxShapeOps.cpp): its proto,
// its inputs, attribute and error helpers; and the table entry each op
// has.
#pragma once

#include "frontend/onnx/OnnxState.h"
#include "ir/graph/Limits.h"
#include "ir/graph/SymExpr.h"

#include <cstdio>
#include <functional>
#include <map>
#include <set>

namespace anyshape::onnx {

using client::Dim;
using client::Value;

/// The dims of `x`, or, once the builder has failed (it then answers no
/// value's dims; its first error is what the importer reports), as many
/// anonymous dims as any value may have: translation code goes on reading
/// dims by position after a failed op, and reads placeholders instead of
/// past the end of an empty vector.
inline std::vector<Dim> dimsOf(const client::GraphBuilder &b, Value x) {
  if (b.rank(x) >= 0)
    return b.dims(x);
  return std::vector<Dim>(static_cast<size_t>(GraphLimits{}.maxRank), Dim("?"));
}

/// The known-dims text of dim `d` of `x` where the shape rules could not
/// write it (an anonymous "?", such as a reshape's -1 that no expression
/// divides): "?<value>:<d>". It equals only itself, and no rule takes it
/// for a size (knownDimsInput refuses it); Resize, given its own input's
/// shape, knows it as that input's dim.
inline std::string anonymousDimText(Value x, int64_t d) {
  return "?" + std::to_string(x.id()) + ":" + std::to_string(d);
}

/// The value id and dim anonymousDimText wrote into `text`, if it did.
inline std::optional<std::pair<int, int64_t>>
anonymousDimOf(const std::string &text) {
  int id = 0;
  long long d = 0;
  char end = 0;
  if (text.size() < 4 || text[0] != '?' ||
      std::sscanf(text.c_str(), "?%d:%lld%c", &id, &d, &end) != 2)
    return std::nullopt;
  return std::make_pair(id, static_cast<int64_t>(d));
}

struct Node {
  ImportState &state;
  const ::onnx::NodeProto &proto;
  int index; // the node's position in the graph
  const std::vector<Value> &inputs;
  client::GraphBuilder &b;

  const ::onnx::AttributeProto *attribute(const std::string &name) const {
    for (const auto &a : proto.attribute())
      if (a.name() == name)
        return &a;
    return nullptr;
  }
  int64_t attrInt(const std::string &name, int64_t fallback) const {
    const auto *a = attribute(name);
    return a ? a->i() : fallback;
  }
  float attrFloat(const std::string &name, float fallback) const {
    const auto *a = attribute(name);
    return a ? a->f() : fallback;
  }
  std::string attrString(const std::string &name,
                         const std::string &fallback) const {
    const auto *a = attribute(name);
    return a ? a->s() : fallback;
  }
  std::optional<std::vector<int64_t>> attrInts(const std::string &name) const {
    const auto *a = attribute(name);
    if (!a)
      return std::nullopt;
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  }
  Status error(const std::string &what) const {
    return invalidArgument(describe(proto, index) + ": " + what);
  }
  /// Input `k`, which must be present.
  StatusOr<Value> input(size_t k) const {
    if (k >= inputs.size() || !inputs[k].isValid())
      return error("input " + std::to_string(k) + " is missing");
    return inputs[k];
  }
  /// The elements of int64 input `k` as dims, known at import time
  /// (constants, or shapes computed from Shape). A float input holding
  /// whole numbers is accepted only `allowFloat` (Range's bounds).
  StatusOr<std::vector<Dim>> knownDimsInput(size_t k,
                                            bool allowFloat = false) const {
    if (k >= static_cast<size_t>(proto.input_size()))
      return error("input " + std::to_string(k) + " is missing");
    Value value = k < inputs.size() ? inputs[k] : Value();
    if (value.isValid() && !allowFloat &&
        (b.dtype(value) != v1::DTYPE_I64 && b.dtype(value) != v1::DTYPE_I32))
      return error("input '" + proto.input(k) + "' must be int64");
    std::optional<ImportState::KnownDims> known =
        knownDimsOf(state, proto.input(k), value);
    if (!known)
      return error("input '" + proto.input(k) +
                   "' must be known at import time (a constant, or "
                   "computed from Shape by Gather, Unsqueeze, Concat, "
                   "Add, Sub, Mul, Div, Mod by a number, Max, Min, or a "
                   "Floor, Ceil or Cast to int of a float product by a "
                   "binary fraction or quotient by a whole number; a "
                   "Cast keeps a size only where its type holds it "
                   "exactly, which float16 and bfloat16 do not)");
    for (size_t i = 0; i < known->dims.size(); ++i)
      if (anonymousDimOf(known->dims[i]))
        return error("input '" + proto.input(k) +
                     "' must be known at import time, but element " +
                     std::to_string(i) +
                     " is a size no dim expression writes (a reshape's -1 "
                     "that does not divide)");
    return std::vector<Dim>(known->dims.begin(), known->dims.end());
  }
  /// The elements of int64 input `k` as numbers, known at import time.
  StatusOr<std::vector<int64_t>> knownInput(size_t k,
                                            bool allowFloat = false) const {
    ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> dims,
                              knownDimsInput(k, allowFloat));
    std::vector<int64_t> ints;
    for (const Dim &d : dims) {
      std::optional<int64_t> v = dimNumber(d.text());
      if (!v)
        return error("input '" + proto.input(k) + "' must be constant, but " +
                     "holds the size " + d.text());
      ints.push_back(*v);
    }
    return ints;
  }
  Status define(Value value, size_t k = 0) {
    if (k >= static_cast<size_t>(proto.output_size()))
      return error("has no output " + std::to_string(k));
    state.values[proto.output(k)] = value;
    return Status::ok();
  }
  int64_t rank(Value x) const { return b.rank(x); }
  std::vector<Dim> dims(Value x) const { return dimsOf(b, x); }
  /// Axis `a` of a rank `r` tensor, in [0, r): a scalar has none.
  StatusOr<int64_t> axis(int64_t a, int64_t r) const {
    if (a < -r || a >= r)
      return error("axis " + std::to_string(a) + " is out of range for rank " +
                   std::to_string(r));
    return a < 0 ? a + r : a;
  }
};

using Translate = std::function<Status(Node &)>;

struct OpRule {
  std::set<std::string> attributes;
  Translate translate;
};

/// `x` broadcast numpy-style to `target` (ranks aligned on the right; a
/// dim of 1 stretches), for ops the builder does not broadcast itself.
StatusOr<Value> broadcastTo(Node &n, Value x, const std::vector<Dim> &target);
/// The numpy broadcast of several shapes. Dims that differ as written but
/// are not both numbers are taken to be equal (a number over a symbolic
/// size, else the later one), which broadcastTo then checks when it runs.
StatusOr<std::vector<Dim>> broadcastShape(Node &n,
                                          std::vector<std::vector<Dim>> all);

/// `a op b` on dim texts ("seq", "batch*seq", "8"): Add, Sub, Mul, and
/// Div where the quotient is exact (or both are numbers); nullopt when
/// the result is not a dim expression.
std::optional<std::string>
arithmetic(const std::string &op, const std::string &a, const std::string &b);

/// The product of `dims` as a dim text ("1" for none); nullopt where one
/// is anonymous ("?") or the product passes the expression bounds.
std::optional<std::string> dimProduct(const std::vector<Dim> &dims);

/// A dim's text ("seq", "(seq + 1) floordiv 2") as an expression; nullopt
/// for an anonymous "?".
std::optional<SymExpr> symExpr(const std::string &text);

/// What ONNX Slice keeps along an axis of a static `size` from `start` to
/// `end` every `step` (nonzero; bounds clamped as ONNX clamps them): the
/// first index and how many.
struct SliceRange {
  int64_t first;
  int64_t count;
};
SliceRange sliceRange(int64_t size, int64_t start, int64_t end, int64_t step);

/// Has the graph check, before it runs, that the dim expression `size`
/// is not negative: the shape check of a node shaped by it (never read),
/// whose error names the ONNX node being imported. For a size taken in a
/// form that keeps ONNX's meaning only where it is not negative.
void requireNotNegative(client::GraphBuilder &b, const std::string &size);
/// The same for `size` != 0 (an If that took two sizes to differ), and
/// for `size` != 1 (Squeeze without axes keeps a symbolic dim).
void requireNotZero(client::GraphBuilder &b, const std::string &size);
void requireNotOne(client::GraphBuilder &b, const std::string &size);

/// The number of elements of `x` over `dims` (all of them counted at run
/// time), as a scalar of x's dtype: what a mean divides by.
Value elementCount(Node &n, Value x, const std::vector<int64_t> &dims);

/// An i64 iota over `dims` along `axis`, broadcast where it is used.
Value indexAlong(Node &n, const std::vector<Dim> &dims, int64_t axis);

/// The row-major linear index into `data` of each element of `positions`
/// (i64, data's rank, each in range), its own coordinate along `axis`
/// replaced by the position there: take_along_axis is a gather of `data`
/// flattened at it (GatherElements, TopK's values).
Value linearIndexAlong(Node &n, Value data, Value positions, int64_t axis);

/// The coordinates of the nonzero elements of value `name` (`value`), i64
/// [rank, count]: found once per value, and built from those of the value
/// it comes from where the zeros correspond, so that every count of one
/// mask is one symbol (OnnxMaskCounts.cpp).
Value nonzeroCoordinates(ImportState &state, const std::string &name,
                         Value value);
/// ReduceSum's `sum`, which also records a sum of every element of a bool
/// mask cast to integers as a known dim: the mask's count.
Translate countingMaskSums(Translate sum);
/// The table of every op translated; OnnxShapeOps.cpp adds the ops on
/// shape tensors, OnnxIndexOps.cpp the gathers, OnnxMathOps.cpp the
/// activations and variadic arithmetic, OnnxTrigOps.cpp Tan and the
/// inverse and hyperbolic functions, OnnxLayoutOps.cpp the ops that
/// move elements (Split, Tile, Pad, Trilu, Einsum), OnnxSelectionOps.cpp
/// the ones that pick by value (ArgMax, TopK, CumSum, OneHot),
/// OnnxConvOps.cpp convolutions, pools and the normalisations around them,
/// OnnxResizeOps.cpp Resize.
const std::map<std::string, OpRule> &opRules();
void addShapeRules(std::map<std::string, OpRule> &rules);
void addIndexRules(std::map<std::string, OpRule> &rules);
void addMathRules(std::map<std::string, OpRule> &rules);
void addTrigRules(std::map<std::string, OpRule> &rules);
void addLayoutRules(std::map<std::string, OpRule> &rules);
void addSelectionRules(std::map<std::string, OpRule> &rules);
void addConvRules(std::map<std::string, OpRule> &rules);
void addConvTransposeRules(std::map<std::string, OpRule> &rules);
void addNormalizationRules(std::map<std::string, OpRule> &rules);
void addAttentionRules(std::map<std::string, OpRule> &rules);
void addResizeRules(std::map<std::string, OpRule> &rules);

} // namespace anyshape::onnx

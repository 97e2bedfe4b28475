// The ops that pick elements by value or position: ArgMax, ArgMin, TopK,
// Hardmax, CumSum and OneHot, as compositions of reductions, comparisons and
// selects over an iota, and the wire's argsort and cumulative.
//
// ArgMax is the first (or last) index where the element equals the
// reduced max; a NaN counts as the max, as numpy's argmax has it. TopK
// of the largest with a small constant k (routing, up to kMaxUnrolledTopK)
// is k rounds of that over the elements not yet taken (ties go to the
// lower index, as ONNX specifies; a NaN first, as PyTorch has it): kernels
// only, which a GPU runs without a trip to the host. Any other TopK, a k
// from Shape included (torch.sort and argsort export as TopK of the whole
// axis), is the first k of the wire's stable argsort, the values gathered
// at them; the smallest put a NaN last, as PyTorch does. CumSum is the
// wire's cumulative sum (linear, exclusive and reverse as attributes).
#include "frontend/onnx/OnnxNode.h"
#include "frontend/onnx/OnnxOpsetUpgrade.h"
#include "ir/graph/DType.h"

#include <limits>

namespace anyshape::onnx {
namespace {

using client::Comparison;
using client::Reduction;

constexpr int64_t kMaxUnrolledTopK = 4;

/// The value no element of `dtype` is below (`lowest`) or above.
Value extreme(Node &n, v1::DType dtype, bool lowest) {
  double v = isFloatDType(dtype) ? std::numeric_limits<double>::infinity()
             : dtype == v1::DTYPE_I32
                 ? static_cast<double>(std::numeric_limits<int32_t>::max())
                 : 9.2233720368547758e18; // saturates to INT64_MAX
  return n.b.scalar(lowest ? -v : v, dtype);
}

Value full(Node &n, Value scalar, const std::vector<Dim> &dims) {
  return n.b.broadcastInDim(scalar, dims, {});
}

/// Along `axis` of `x` (kept as a dim of 1): the first position (the last
/// with `last`) among those `candidate` allows where `x` equals its max
/// (min with `smallest`) over them, and that value. A NaN candidate is the
/// extreme. Where no candidate is left the position is the axis size.
struct Pick {
  Value value, index;
};
StatusOr<Pick> pickExtreme(Node &n, Value x, int64_t axis, bool smallest,
                           bool last, std::optional<Value> candidate) {
  std::vector<Dim> dims = n.dims(x);
  v1::DType dtype = n.b.dtype(x);
  Value eligible = x;
  if (candidate)
    eligible =
        n.b.select(*candidate, x, full(n, extreme(n, dtype, !smallest), dims));
  Value best =
      n.b.reduce(eligible, {axis}, smallest ? Reduction::Min : Reduction::Max);
  std::vector<Dim> kept = dims;
  kept[axis] = Dim(1);
  best = n.b.reshape(best, kept);
  Value hit = n.b.logicalOr(n.b.compare(x, best, Comparison::Eq),
                            n.b.compare(x, x, Comparison::Ne));
  if (candidate)
    hit = n.b.logicalAnd(hit, *candidate);
  Value position = indexAlong(n, dims, axis);
  Value none = last ? n.b.scalar(-1.0, v1::DTYPE_I64)
                    : n.b.convert(n.b.dimSize(x, axis), v1::DTYPE_I64);
  Value index = n.b.reduce(n.b.select(hit, position, full(n, none, dims)),
                           {axis}, last ? Reduction::Max : Reduction::Min);
  // An empty axis reduces to the init value (the i64 extreme); `none`
  // says as much in the error that reports it.
  index = last ? n.b.max(index, none) : n.b.min(index, none);
  return Pick{best, n.b.reshape(index, kept)};
}

Translate argExtreme(bool smallest) {
  return [smallest](Node &n) -> Status {
    ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
    if (n.b.dtype(x) == v1::DTYPE_BOOL)
      return n.error("needs a numeric input");
    ANYSHAPE_ASSIGN_OR_RETURN(int64_t axis,
                              n.axis(n.attrInt("axis", 0), n.rank(x)));
    ANYSHAPE_ASSIGN_OR_RETURN(
        Pick pick,
        pickExtreme(n, x, axis, smallest,
                    n.attrInt("select_last_index", 0) != 0, std::nullopt));
    Value index =
        n.b.checkIndex(pick.index, x, axis, /*allowNegative=*/false,
                       describe(n.proto, n.index) + " over an empty axis");
    if (!n.attrInt("keepdims", 1)) {
      std::vector<Dim> dims = n.dims(index);
      dims.erase(dims.begin() + axis);
      index = n.b.reshape(index, dims);
    }
    return n.define(index);
  };
}

/// TopK's first k positions of argsort along `axis`, and the values there.
Status sortedTopK(Node &n, Value x, int64_t axis, const Dim &k, bool smallest) {
  std::vector<Dim> dims = n.dims(x);
  std::vector<Dim> starts(dims.size(), Dim(0)), limits = dims;
  limits[axis] = k; // a slice: a k above the dim fails its shape check
  Value positions =
      n.b.slice(n.b.argsort(x, axis, /*descending=*/!smallest), starts, limits);
  Value values = n.b.gather(n.b.reshape(x, {Dim(-1)}),
                            linearIndexAlong(n, x, positions, axis), 0);
  ANYSHAPE_RETURN_IF_ERROR(n.define(values, 0));
  if (n.proto.output_size() > 1)
    ANYSHAPE_RETURN_IF_ERROR(n.define(positions, 1));
  return Status::ok();
}

Status topK(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  if (n.b.dtype(x) == v1::DTYPE_BOOL)
    return n.error("needs a numeric input");
  ANYSHAPE_ASSIGN_OR_RETURN(int64_t axis,
                            n.axis(n.attrInt("axis", -1), n.rank(x)));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> ks, n.knownDimsInput(1));
  if (ks.size() != 1)
    return n.error("k must be one number");
  std::optional<int64_t> known = dimNumber(ks[0].text());
  if (known && *known < 0)
    return n.error("k must be non-negative, got " + std::to_string(*known));
  std::vector<Dim> dims = n.dims(x);
  std::optional<int64_t> extent = dimNumber(dims[axis].text());
  if (known && extent && *known > *extent)
    return n.error("k = " + std::to_string(*known) + " exceeds the axis size " +
                   std::to_string(*extent));
  bool smallest = n.attrInt("largest", 1) == 0;
  if (smallest || !known || *known == 0 || *known > kMaxUnrolledTopK)
    return sortedTopK(n, x, axis, ks[0], smallest);
  int64_t k = *known;
  std::vector<Value> values, indices;
  std::optional<Value> untaken;
  Value position = indexAlong(n, dims, axis);
  for (int64_t round = 0; round < k; ++round) {
    ANYSHAPE_ASSIGN_OR_RETURN(Pick pick,
                              pickExtreme(n, x, axis, false, false, untaken));
    if (round == k - 1) // none left: the axis is shorter than k
      pick.index = n.b.checkIndex(pick.index, x, axis, false,
                                  describe(n.proto, n.index) +
                                      " with k = " + std::to_string(k));
    Value picked = n.b.compare(position, pick.index, Comparison::Ne);
    untaken = untaken ? n.b.logicalAnd(*untaken, picked) : picked;
    values.push_back(pick.value);
    indices.push_back(pick.index);
  }
  auto join = [&](const std::vector<Value> &parts) {
    return parts.size() == 1 ? parts[0] : n.b.concatenate(parts, axis);
  };
  ANYSHAPE_RETURN_IF_ERROR(n.define(join(values), 0));
  if (n.proto.output_size() > 1)
    ANYSHAPE_RETURN_IF_ERROR(n.define(join(indices), 1));
  return Status::ok();
}

/// Hardmax: 1 at the first position of each row's max along `axis`, 0
/// elsewhere.
Status hardmax(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  if (!isFloatDType(n.b.dtype(x)))
    return n.error("needs a floating-point input");
  auto over = [&](Value v, int64_t axis) -> StatusOr<Value> {
    std::vector<Dim> dims = n.dims(v);
    ANYSHAPE_ASSIGN_OR_RETURN(
        Pick pick, pickExtreme(n, v, axis, false, false, std::nullopt));
    ANYSHAPE_ASSIGN_OR_RETURN(Value index, broadcastTo(n, pick.index, dims));
    Value hit = n.b.compare(indexAlong(n, dims, axis), index, Comparison::Eq);
    v1::DType dtype = n.b.dtype(v);
    return n.b.select(hit, full(n, n.b.scalar(1.0, dtype), dims),
                      full(n, n.b.scalar(0.0, dtype), dims));
  };
  ANYSHAPE_ASSIGN_OR_RETURN(Value y, coercedAxisOp(n, x, over));
  return n.define(y);
}

Status cumSum(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, n.knownInput(1));
  if (axes.size() != 1)
    return n.error("axis must be one number");
  int64_t r = n.rank(x);
  ANYSHAPE_ASSIGN_OR_RETURN(int64_t axis, n.axis(axes[0], r));
  if (n.b.dtype(x) == v1::DTYPE_BOOL)
    return n.error("needs a numeric input");
  return n.define(n.b.cumulative(x, axis, Reduction::Sum,
                                 n.attrInt("exclusive", 0) != 0,
                                 n.attrInt("reverse", 0) != 0));
}

Status oneHot(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value indices, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> depth, n.knownDimsInput(1, true));
  ANYSHAPE_ASSIGN_OR_RETURN(Value values, n.input(2));
  if (depth.size() != 1)
    return n.error("depth must be one number");
  if (std::optional<int64_t> d = dimNumber(depth[0].text()); d && *d < 1)
    return n.error("depth " + depth[0].text() + " is not positive");
  if (n.dims(values).size() != 1 || n.dims(values)[0].text() != "2")
    return n.error("values must be a vector of 2 (off, on)");
  std::vector<Dim> dims = n.dims(indices);
  int64_t r = n.rank(indices);
  ANYSHAPE_ASSIGN_OR_RETURN(int64_t axis, n.axis(n.attrInt("axis", -1), r + 1));
  std::vector<Dim> out = dims;
  out.insert(out.begin() + axis, depth[0]);
  std::vector<int64_t> mapping;
  for (int64_t d = 0; d < r; ++d)
    mapping.push_back(d < axis ? d : d + 1);
  // ONNX counts a negative index from the end; one outside [-depth, depth)
  // selects nothing (a row of off values).
  Value index = n.b.convert(indices, v1::DTYPE_I64);
  Value size = n.b.convert(n.b.reshape(n.inputs[1], {}), v1::DTYPE_I64);
  Value negative =
      n.b.compare(index, n.b.scalar(0.0, v1::DTYPE_I64), Comparison::Lt);
  index = n.b.select(negative, n.b.add(index, size), index);
  Value hit =
      n.b.compare(indexAlong(n, out, axis),
                  n.b.broadcastInDim(index, out, mapping), Comparison::Eq);
  auto element = [&](int64_t k) {
    return full(n, n.b.reshape(n.b.slice(values, {Dim(k)}, {Dim(k + 1)}), {}),
                out);
  };
  return n.define(n.b.select(hit, element(1), element(0)));
}

} // namespace

void addSelectionRules(std::map<std::string, OpRule> &rules) {
  rules["ArgMax"] = {{"axis", "keepdims", "select_last_index"},
                     argExtreme(false)};
  rules["ArgMin"] = {{"axis", "keepdims", "select_last_index"},
                     argExtreme(true)};
  rules["TopK"] = {{"axis", "largest", "sorted"}, topK};
  rules["Hardmax"] = {{"axis"}, hardmax};
  rules["CumSum"] = {{"exclusive", "reverse"}, cumSum};
  rules["OneHot"] = {{"axis"}, oneHot};
}

} // namespace anyshape::onnx

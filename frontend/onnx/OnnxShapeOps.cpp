// The ops that make and take shapes: Shape and Size make them (their
// dims recorded as what the int64 tensor holds, OnnxKnownDims.cpp), and
// Reshape's kin — ConstantOfShape, Expand, Range, Slice — read their
// shapes from what the importer knows, so the imported graph stays fully
// symbolic and compiles once.
#include "frontend/onnx/OnnxNode.h"

#include "ir/graph/DimText.h"
#include "runtime/support/Half.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace anyshape::onnx {
namespace {
using KnownDims = ImportState::KnownDims;

Status shape(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  std::vector<Dim> dims = n.dims(x);
  auto r = static_cast<int64_t>(dims.size());
  auto clamp = [&](int64_t a) {
    return std::clamp<int64_t>(a < 0 ? a + r : a, 0, r);
  };
  int64_t start = clamp(n.attrInt("start", 0)),
          end = clamp(n.attrInt("end", r));
  std::vector<Value> parts;
  KnownDims k;
  for (int64_t d = start; d < end; ++d) {
    parts.push_back(n.b.reshape(n.b.dimSize(x, d), {1}));
    k.dims.push_back(dims[d].text() == "?" ? anonymousDimText(x, d)
                                           : dims[d].text());
  }
  Value value = parts.empty() ? n.b.constant(v1::DTYPE_I64, {0}, "")
                              : (parts.size() == 1 ? parts[0]
                                                   : n.b.concatenate(parts, 0));
  n.state.knownDims[n.proto.output(0)] = k;
  return n.define(value);
}

/// Size: the element count as an i64 scalar, known as the product of the
/// dims.
Status size(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  std::vector<Dim> dims = n.dims(x);
  Value count = n.b.scalar(1.0, v1::DTYPE_I64);
  for (size_t d = 0; d < dims.size(); ++d)
    count = n.b.mul(count, n.b.dimSize(x, static_cast<int64_t>(d)));
  if (std::optional<std::string> product = dimProduct(dims))
    n.state.knownDims[n.proto.output(0)] = KnownDims{{*product}, true};
  return n.define(count);
}

Status constantOfShape(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> dims, n.knownDimsInput(0));
  v1::DType dtype = v1::DTYPE_F32;
  double fill = 0;
  int64_t wholeFill = 0; // int64 fills exactly: a double rounds past 2^53
  if (const auto *value = n.attribute("value")) {
    const ::onnx::TensorProto &t = value->t();
    std::optional<v1::DType> type = wireDType(t.data_type());
    if (!type)
      return n.error("fill of element type " + std::to_string(t.data_type()) +
                     " is not supported");
    dtype = *type;
    // One element: raw bytes of the type's width, or one entry of its
    // typed field (int32_data for int32, bool, and f16 and bf16's bits).
    const std::string &raw = t.raw_data();
    bool half = dtype == v1::DTYPE_F16 || dtype == v1::DTYPE_BF16;
    size_t width = dtype == v1::DTYPE_I64    ? 8
                   : dtype == v1::DTYPE_BOOL ? 1
                   : half                    ? 2
                                             : 4;
    int typed = dtype == v1::DTYPE_F32   ? t.float_data_size()
                : dtype == v1::DTYPE_I64 ? t.int64_data_size()
                                         : t.int32_data_size();
    if (raw.empty() ? typed != 1 : raw.size() != width)
      return n.error("value must hold one element");
    if (dtype == v1::DTYPE_F32) {
      float f = raw.empty() ? t.float_data(0) : 0.0f;
      if (!raw.empty())
        std::memcpy(&f, raw.data(), 4);
      fill = f;
    } else if (dtype == v1::DTYPE_I64) {
      wholeFill = raw.empty() ? t.int64_data(0) : 0;
      if (!raw.empty())
        std::memcpy(&wholeFill, raw.data(), 8);
    } else {
      int32_t word = raw.empty() ? t.int32_data(0) : 0;
      if (!raw.empty())
        std::memcpy(&word, raw.data(), width);
      auto bits = static_cast<uint16_t>(word);
      fill = dtype == v1::DTYPE_BOOL   ? (word != 0)
             : dtype == v1::DTYPE_F16  ? halfToFloat(bits)
             : dtype == v1::DTYPE_BF16 ? bf16ToFloat(bits)
                                       : word;
    }
  }
  if (dtype == v1::DTYPE_I64) {
    // A short int64 vector of one value is a shape in the making (the
    // TorchScript exporter's expand: Where(Equal(shape, -1), ones, shape)).
    std::optional<int64_t> length =
        dims.size() == 1 ? dimNumber(dims[0].text()) : std::nullopt;
    if (length && *length >= 0 && *length <= 64)
      n.state.knownDims[n.proto.output(0)] =
          KnownDims{std::vector<std::string>(static_cast<size_t>(*length),
                                             std::to_string(wholeFill)),
                    false};
    constexpr int64_t kExactInDouble = int64_t{1} << 53;
    if (wholeFill >= -kExactInDouble && wholeFill <= kExactInDouble)
      fill = static_cast<double>(wholeFill); // a splat, as other fills
    else {
      std::string bytes(8, '\0');
      std::memcpy(bytes.data(), &wholeFill, 8);
      return n.define(n.b.broadcastInDim(
          n.b.constant(v1::DTYPE_I64, {}, std::move(bytes)), dims, {}));
    }
  }
  n.state.uniformFills[n.proto.output(0)] =
      dtype == v1::DTYPE_I64 ? wholeFill != 0 : fill != 0; // NaN is nonzero
  return n.define(n.b.broadcastInDim(n.b.scalar(fill, dtype), dims, {}));
}

Status expand(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> shape, n.knownDimsInput(1));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> target,
                            broadcastShape(n, {n.dims(x), shape}));
  ANYSHAPE_ASSIGN_OR_RETURN(Value y, broadcastTo(n, x, target));
  return n.define(y);
}

/// max(ceil(span / delta), 0) as a dim expression (arange(0, n, 2) has
/// (n + 1) floordiv 2 elements, fold's arange(0, height - 1, 2) has
/// height floordiv 2); nullopt when it cannot be written.
std::optional<std::string> rangeCount(const std::string &span, int64_t delta) {
  std::optional<SymExpr> s = symExpr(span);
  if (!s || delta == INT64_MIN)
    return std::nullopt;
  // ceil(s / d) = floor((s + d - 1) / d) for d > 0; for d < 0 it is
  // ceil(-s / -d).
  int64_t d = delta > 0 ? delta : -delta;
  std::optional<SymExpr> numerator =
      delta > 0 ? SymExpr::add(*s, SymExpr::constant(d - 1))
                : SymExpr::sub(SymExpr::constant(d - 1), *s);
  std::optional<SymExpr> quotient =
      numerator ? SymExpr::floorDiv(*numerator, d) : std::nullopt;
  std::optional<SymExpr> count =
      quotient ? SymExpr::extremum(*quotient, SymExpr::constant(0), true)
               : std::nullopt;
  return count ? std::optional<std::string>(count->toString()) : std::nullopt;
}

/// Range(start, limit, delta): the length is what must be known at import
/// time, as a dim; the values are computed from the inputs as they are
/// (so a start that is a run-time value, such as a cache's length, works
/// as long as limit - start is known: Range(past, past + seq, 1)).
Status range(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value first, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value step, n.input(2));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> start, n.knownDimsInput(0, true));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> limit, n.knownDimsInput(1, true));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<int64_t> delta, n.knownInput(2, true));
  if (start.size() != 1 || limit.size() != 1 || delta.size() != 1)
    return n.error("start, limit and delta must be scalars");
  if (delta[0] == 0)
    return n.error("delta is 0");
  std::optional<std::string> span =
      arithmetic("Sub", limit[0].text(), start[0].text());
  if (!span)
    return n.error("cannot take the length " + limit[0].text() + " - " +
                   start[0].text());
  // max(ceil(span / delta), 0) elements.
  std::optional<std::string> count;
  if (std::optional<int64_t> number = dimNumber(*span)) {
    if (*number == INT64_MIN && delta[0] == -1)
      return n.error("the length of the range overflows");
    int64_t d = delta[0], q = *number / d;
    if (q * d != *number && (*number > 0) == (d > 0))
      ++q;
    count = std::to_string(std::max<int64_t>(q, 0));
  } else {
    count = rangeCount(*span, delta[0]);
  }
  if (!count)
    return n.error("the length (" + limit[0].text() + " - " + start[0].text() +
                   ") / " + std::to_string(delta[0]) +
                   " has no dim expression (its ceiling overflows)");
  // From opset 27 half precision is computed in f32 and rounded once
  // (stash_type 1, the default; 0 keeps the input's own type).
  v1::DType dtype = n.b.dtype(first);
  bool half = dtype == v1::DTYPE_F16 || dtype == v1::DTYPE_BF16;
  v1::DType work = half && n.state.opset >= 27 && n.attrInt("stash_type", 1)
                       ? v1::DTYPE_F32
                       : dtype;
  Value iota = n.b.iota(work, {Dim(*count)}, 0);
  if (delta[0] != 1)
    iota = n.b.mul(iota, n.b.convert(step, work));
  Value values = n.b.add(iota, n.b.convert(first, work));
  return n.define(work == dtype ? values : n.b.convert(values, dtype));
}

/// Slice's negative step on `axis` of `x`: the elements from `start` down
/// to `end` (exclusive), every `step`th, gathered at start - step * i.
/// ONNX clamps start into [0, size - 1] and end into [-1, size - 1]; on a
/// static size so does this, on a symbolic one the bounds are taken as
/// written (negative ones from the end, INT64_MAX-like ones as the last
/// element, INT64_MIN-like ones as before the first), and a bound that
/// clamping would have moved is a run-time error naming the node: a
/// negative count, a start before the first element, or an index out of
/// range.
StatusOr<Value> backwardSlice(Node &n, Value x, int64_t axis, const Dim &start,
                              const Dim &end, int64_t step) {
  std::optional<int64_t> first = dimNumber(start.text()),
                         last = dimNumber(end.text());
  if (!first || !last)
    return n.error("the bounds of a negative step must be constants");
  constexpr int64_t kFar = int64_t{1} << 40;
  Dim size = n.dims(x)[axis];
  // Each bound as size + offset (relative) or as an index (absolute).
  auto place = [&](int64_t v, int64_t lowest) -> std::pair<bool, int64_t> {
    if (v >= kFar)
      return {true, -1};
    if (v <= -kFar)
      return {false, lowest};
    return {v < 0, v};
  };
  auto [startRelative, startOffset] = place(*first, 0);
  auto [endRelative, endOffset] = place(*last, -1);
  Value startIndex;
  std::string count;
  if (std::optional<int64_t> length = dimNumber(size.text())) {
    SliceRange range = sliceRange(*length, *first, *last, -step);
    count = std::to_string(range.count);
    startIndex = n.b.scalar(static_cast<double>(range.first), v1::DTYPE_I64);
  } else {
    std::optional<SymExpr> symbolic = symExpr(size.text());
    auto expr = [&](bool relative, int64_t v) -> std::optional<SymExpr> {
      if (!relative)
        return SymExpr::constant(v);
      return symbolic ? SymExpr::add(*symbolic, SymExpr::constant(v))
                      : std::nullopt;
    };
    std::optional<SymExpr> s = expr(startRelative, startOffset),
                           e = expr(endRelative, endOffset);
    std::optional<SymExpr> span = s && e ? SymExpr::sub(*s, *e) : std::nullopt;
    std::optional<SymExpr> rounded =
        span ? SymExpr::add(*span, SymExpr::constant(step - 1)) : std::nullopt;
    std::optional<SymExpr> quotient =
        rounded ? SymExpr::floorDiv(*rounded, step) : std::nullopt;
    if (!quotient)
      return n.error("cannot place the bounds of axis " + std::to_string(axis));
    count = quotient->toString();
    // Below -1 a start may fall before the first element on a short axis,
    // where ONNX would clamp it to 0 and keep more than the count says.
    if (startRelative && startOffset < -1)
      requireNotNegative(n.b, s->toString());
    startIndex = n.b.scalar(static_cast<double>(startOffset), v1::DTYPE_I64);
    if (startRelative)
      startIndex = n.b.add(n.b.dimSize(x, axis), startIndex);
  }
  Value positions = n.b.iota(v1::DTYPE_I64, {Dim(count)}, 0);
  Value indices = n.b.sub(
      startIndex,
      n.b.mul(positions, n.b.scalar(static_cast<double>(step), v1::DTYPE_I64)));
  indices =
      n.b.checkIndex(indices, x, axis, false,
                     "the negative-step slice of axis " + std::to_string(axis));
  return n.b.gather(x, indices, axis);
}

/// The size `d` as an i64 scalar (symbolic: the length of an iota that
/// long, which no kernel computes).
Value sizeValue(Node &n, const Dim &d) {
  if (std::optional<int64_t> number = dimNumber(d.text()))
    return n.b.scalar(static_cast<double>(*number), v1::DTYPE_I64);
  return n.b.convert(n.b.dimSize(n.b.iota(v1::DTYPE_I64, {d}, 0), 0),
                     v1::DTYPE_I64);
}

/// x[lo:hi:stride] on the axes with forward steps (every other axis
/// whole). The wire's slice names a bound for every axis, which an
/// anonymous dim ("?": a size the shape rules could not write, such as a
/// reshape's -1 that does not divide exactly) cannot give; with one among
/// the axes left whole, each sliced axis is instead a gather of the
/// positions it keeps (lo + stride * i, checked against the axis as the
/// slice's bounds would be).
StatusOr<Value> sliceForward(Node &n, Value x, const std::vector<int64_t> &axes,
                             const std::vector<int64_t> &steps,
                             const std::vector<Dim> &lo,
                             const std::vector<Dim> &hi,
                             const std::vector<int64_t> &stride) {
  std::vector<Dim> dims = n.dims(x);
  std::set<int64_t> sliced;
  for (size_t k = 0; k < axes.size(); ++k)
    if (steps[k] > 0)
      sliced.insert(axes[k] < 0 ? axes[k] + n.rank(x) : axes[k]);
  bool anonymousWhole = false;
  for (int64_t a = 0; a < n.rank(x); ++a)
    anonymousWhole |= !sliced.count(a) && dims[a].text() == "?";
  if (!anonymousWhole)
    return n.b.slice(x, lo, hi, stride);
  Value result = x;
  for (int64_t a : sliced) {
    std::optional<SymExpr> from = symExpr(lo[a].text()),
                           to = symExpr(hi[a].text());
    std::optional<SymExpr> span =
        from && to ? SymExpr::sub(*to, *from) : std::nullopt;
    std::optional<SymExpr> rounded =
        span ? SymExpr::add(*span, SymExpr::constant(stride[a] - 1))
             : std::nullopt;
    std::optional<SymExpr> count =
        rounded ? SymExpr::floorDiv(*rounded, stride[a]) : std::nullopt;
    if (!count)
      return n.error("cannot size axis " + std::to_string(a) + " from " +
                     lo[a].text() + " to " + hi[a].text());
    Dim kept(count->toString());
    Value positions = n.b.add(
        n.b.mul(n.b.iota(v1::DTYPE_I64, {kept}, 0),
                n.b.scalar(static_cast<double>(stride[a]), v1::DTYPE_I64)),
        n.b.broadcastInDim(sizeValue(n, lo[a]), {kept}, {}));
    positions =
        n.b.checkIndex(positions, result, a, false, describe(n.proto, n.index));
    result = n.b.gather(result, positions, a);
  }
  return result;
}

Status slice(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> starts, n.knownDimsInput(1));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> ends, n.knownDimsInput(2));
  std::vector<Dim> dims = n.dims(x);
  auto r = static_cast<int64_t>(dims.size());
  std::vector<int64_t> axes, steps(starts.size(), 1);
  if (n.proto.input_size() > 3 && !n.proto.input(3).empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(axes, n.knownInput(3));
  } else {
    for (size_t a = 0; a < starts.size(); ++a)
      axes.push_back(static_cast<int64_t>(a));
  }
  if (n.proto.input_size() > 4 && !n.proto.input(4).empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(steps, n.knownInput(4));
  }
  if (axes.size() != starts.size() || ends.size() != starts.size() ||
      steps.size() != starts.size())
    return n.error("starts, ends, axes and steps differ in length");
  std::vector<Dim> lo(dims.size(), Dim(0)), hi = dims;
  std::vector<int64_t> stride(dims.size(), 1);
  // A bound as a dim: negative counts from the end; past the end (exporters
  // write INT64_MAX for "to the end") is the end.
  auto bound = [&](const Dim &b, const Dim &size) -> std::optional<Dim> {
    std::optional<int64_t> number = dimNumber(b.text());
    if (!number) {
      // -n for a size n counts from the end (x[:, -n:]: the positions of
      // the new tokens, as transformers' generate() slices them): size - n.
      // At n = 0 ONNX would take the whole axis (-0 is 0), which size - n
      // is not; such a run fails (n >= 1 is checked) rather than give
      // another slice. Any other expression is taken as is.
      std::optional<SymExpr> e = symExpr(b.text()),
                             length = symExpr(size.text());
      std::optional<SymExpr> negated =
          e ? SymExpr::sub(SymExpr::constant(0), *e) : std::nullopt;
      if (!e || !length || !negated || e->isNonNegative() ||
          !negated->isNonNegative())
        return b;
      std::optional<SymExpr> atLeastOne =
          SymExpr::sub(*negated, SymExpr::constant(1));
      std::optional<SymExpr> from = SymExpr::add(*length, *e);
      if (!atLeastOne || !from)
        return std::nullopt;
      requireNotNegative(n.b, atLeastOne->toString());
      return Dim(from->toString());
    }
    int64_t v = *number;
    if (v >= (int64_t{1} << 40)) // INT64_MAX and the like: the end
      return size;
    if (v <= -(int64_t{1} << 40)) // INT64_MIN and the like: the start
      return Dim(0);
    if (std::optional<int64_t> staticSize = dimNumber(size.text()))
      return Dim(
          std::clamp(v < 0 ? *staticSize + v : v, int64_t{0}, *staticSize));
    std::optional<SymExpr> length = symExpr(size.text());
    if (v > 2 && length) {
      // Past a symbolic size ONNX clamps it (x[:, :512] of a shorter
      // sequence is all of it): min(v, size). Bounds up to 2, which
      // PyTorch's sizes always reach, stay numbers (checked at run time).
      std::optional<SymExpr> clamped =
          SymExpr::extremum(SymExpr::constant(v), *length, false);
      return clamped ? std::optional<Dim>(Dim(clamped->toString()))
                     : std::nullopt;
    }
    if (v < 0) {
      // From the end, clamped at 0 as ONNX clamps: max(0, size + v). As
      // PyTorch takes a symbolic size to be at least 2, a bound of -1 or
      // -2 is size + v (checked not negative), so that x[:, -1:] keeps
      // one static element; past that the max is kept (x[-4095:], a
      // sliding window's cache).
      auto from = arithmetic("Add", size.text(), std::to_string(v));
      std::optional<SymExpr> unclamped = from ? symExpr(*from) : std::nullopt;
      if (unclamped && v < -2) {
        std::optional<SymExpr> clamped =
            SymExpr::extremum(*unclamped, SymExpr::constant(0), true);
        return clamped ? std::optional<Dim>(Dim(clamped->toString()))
                       : std::nullopt;
      }
      return from ? std::optional<Dim>(Dim(*from)) : std::nullopt;
    }
    return Dim(static_cast<int64_t>(v));
  };
  std::vector<size_t> backward; // the axes (in `axes`) with negative steps
  for (size_t k = 0; k < axes.size(); ++k) {
    ANYSHAPE_ASSIGN_OR_RETURN(int64_t a, n.axis(axes[k], r));
    if (steps[k] == 0)
      return n.error("a step of 0 on axis " + std::to_string(a));
    if (steps[k] < 0) {
      backward.push_back(k);
      continue;
    }
    std::optional<Dim> s = bound(starts[k], dims[a]),
                       e = bound(ends[k], dims[a]);
    if (!s || !e)
      return n.error("cannot place the bounds of axis " + std::to_string(a));
    // An end before the start takes nothing, as ONNX says (x[3:1]), of
    // an axis of any size.
    std::optional<int64_t> first = dimNumber(s->text()),
                           last = dimNumber(e->text());
    if (first && last && *last < *first)
      s = e = Dim(0);
    // A bound clamped to the size (min(5, m), max(0, m - 7)) may pass the
    // other at some sizes: the end is then the start, max(start, end).
    auto clamped = [](const Dim &d) {
      return d.text().find("max(") != std::string::npos ||
             d.text().find("min(") != std::string::npos;
    };
    if ((!first || !last) && (clamped(*s) || clamped(*e))) {
      std::optional<SymExpr> from = symExpr(s->text()), to = symExpr(e->text());
      std::optional<SymExpr> end =
          from && to ? SymExpr::extremum(*from, *to, true) : std::nullopt;
      if (!end)
        return n.error("cannot place the bounds of axis " + std::to_string(a));
      e = Dim(end->toString());
    }
    lo[a] = *s;
    hi[a] = *e;
    stride[a] = steps[k];
  }
  ANYSHAPE_ASSIGN_OR_RETURN(Value result,
                            sliceForward(n, x, axes, steps, lo, hi, stride));
  for (size_t k : backward) {
    int64_t a = axes[k] < 0 ? axes[k] + r : axes[k];
    // A step of INT64_MIN has no negation; INT64_MAX takes the same one
    // element of any axis a tensor can have.
    int64_t stride = steps[k] == INT64_MIN ? INT64_MAX : -steps[k];
    ANYSHAPE_ASSIGN_OR_RETURN(
        result, backwardSlice(n, result, a, starts[k], ends[k], stride));
  }
  return n.define(result);
}

} // namespace

void addShapeRules(std::map<std::string, OpRule> &rules) {
  rules["Shape"] = {{"start", "end"}, shape};
  rules["Size"] = {{}, size};
  rules["ConstantOfShape"] = {{"value"}, constantOfShape};
  rules["Expand"] = {{}, expand};
  rules["Range"] = {{"stash_type"}, range};
  rules["Slice"] = {{}, slice};
}

} // namespace anyshape::onnx

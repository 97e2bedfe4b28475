// Shape computations as dim expressions. An exported model computes the
// shapes of its reshapes and masks at run time: Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape, with Add/Sub/Mul on the way. Each such
// int64 tensor is still built as a value (another op may read it as data),
// and what it holds is also recorded as dims (ImportState::knownDims):
// "batch", "seq", "batch*seq". The ops that take a shape (Reshape, Expand,
// ConstantOfShape, Range, Slice) read it from there, so the imported graph
// stays fully symbolic and compiles once.
#include "frontend/onnx/OnnxNode.h"

#include "ir/graph/DimText.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>

namespace anyshape::onnx {
namespace {
using KnownDims = ImportState::KnownDims;
} // namespace

std::optional<SymExpr> symExpr(const std::string &text) {
  auto expr = parseDimExpr(text);
  return expr.isOk() ? symExprOf(*expr) : std::nullopt;
}

std::optional<std::string>
arithmetic(const std::string &op, const std::string &a, const std::string &b) {
  std::optional<int64_t> na = dimNumber(a), nb = dimNumber(b);
  if (op == "Div" && na && nb) // sizes are not negative: trunc is floor
    return *nb == 0 || (*na == INT64_MIN && *nb == -1)
               ? std::nullopt
               : std::optional<std::string>(std::to_string(*na / *nb));
  std::optional<SymExpr> x = symExpr(a), y = symExpr(b);
  if (!x || !y)
    return std::nullopt;
  // Integer Div truncates, which is the floor where the dividend cannot be
  // negative; Mod (fmod = 0, the only form a shape value takes here) has
  // the divisor's sign, so it is the floor's remainder for any dividend.
  std::optional<int64_t> divisor = y->constantValue();
  bool positive = divisor && *divisor >= 1;
  std::optional<SymExpr> r =
      op == "Add"   ? SymExpr::add(*x, *y)
      : op == "Sub" ? SymExpr::sub(*x, *y)
      : op == "Mul" ? SymExpr::mul(*x, *y)
      : op == "Div"
          ? (positive && x->isNonNegative() ? SymExpr::floorDiv(*x, *divisor)
                                            : x->divideExact(*y))
      : op == "Mod" && positive ? SymExpr::mod(*x, *divisor)
                                : std::nullopt;
  return r ? std::optional<std::string>(r->toString()) : std::nullopt;
}

namespace {

Status shape(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  std::vector<Dim> dims = n.b.dims(x);
  auto r = static_cast<int64_t>(dims.size());
  auto clamp = [&](int64_t a) {
    return std::clamp<int64_t>(a < 0 ? a + r : a, 0, r);
  };
  int64_t start = clamp(n.attrInt("start", 0)),
          end = clamp(n.attrInt("end", r));
  std::vector<Value> parts;
  KnownDims k;
  bool allNamed = true;
  for (int64_t d = start; d < end; ++d) {
    parts.push_back(n.b.reshape(n.b.dimSize(x, d), {1}));
    k.dims.push_back(dims[d].text());
    allNamed &= dims[d].text() != "?";
  }
  Value value = parts.empty() ? n.b.constant(v1::DTYPE_I64, {0}, "")
                              : (parts.size() == 1 ? parts[0]
                                                   : n.b.concatenate(parts, 0));
  if (allNamed)
    n.state.knownDims[n.proto.output(0)] = k;
  return n.define(value);
}

/// Size: the element count as an i64 scalar, known as the product of the
/// dims.
Status size(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  std::vector<Dim> dims = n.b.dims(x);
  Value count = n.b.scalar(1.0, v1::DTYPE_I64);
  std::optional<std::string> product = "1";
  for (size_t d = 0; d < dims.size(); ++d) {
    count = n.b.mul(count, n.b.dimSize(x, static_cast<int64_t>(d)));
    if (product)
      product = dims[d].text() == "?"
                    ? std::nullopt
                    : arithmetic("Mul", *product, dims[d].text());
  }
  if (product)
    n.state.knownDims[n.proto.output(0)] = KnownDims{{*product}, true};
  return n.define(count);
}

Status constantOfShape(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> dims, n.knownDimsInput(0));
  v1::DType dtype = v1::DTYPE_F32;
  double fill = 0;
  if (const auto *value = n.attribute("value")) {
    const ::onnx::TensorProto &t = value->t();
    std::optional<v1::DType> type = wireDType(t.data_type());
    if (!type)
      return n.error("fill of element type " + std::to_string(t.data_type()) +
                     " is not supported");
    dtype = *type;
    std::string raw = t.raw_data();
    if (dtype == v1::DTYPE_F32)
      fill = raw.size() == 4 ? *reinterpret_cast<const float *>(raw.data())
             : t.float_data_size() ? t.float_data(0)
                                   : 0.0;
    else if (dtype == v1::DTYPE_I64)
      fill = raw.size() == 8
                 ? static_cast<double>(
                       *reinterpret_cast<const int64_t *>(raw.data()))
             : t.int64_data_size() ? static_cast<double>(t.int64_data(0))
                                   : 0.0;
    else
      fill = raw.size() >= 1       ? static_cast<double>(raw[0])
             : t.int32_data_size() ? t.int32_data(0)
                                   : 0.0;
  }
  // A short int64 vector of one value is a shape in the making (the
  // TorchScript exporter's expand: Where(Equal(shape, -1), ones, shape)).
  std::optional<int64_t> length =
      dims.size() == 1 ? dimNumber(dims[0].text()) : std::nullopt;
  if (dtype == v1::DTYPE_I64 && length && *length >= 0 && *length <= 64)
    n.state.knownDims[n.proto.output(0)] = KnownDims{
        std::vector<std::string>(static_cast<size_t>(*length),
                                 std::to_string(static_cast<int64_t>(fill))),
        false};
  return n.define(n.b.broadcastInDim(n.b.scalar(fill, dtype), dims, {}));
}

Status expand(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> shape, n.knownDimsInput(1));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> target,
                            broadcastShape(n, {n.b.dims(x), shape}));
  ANYSHAPE_ASSIGN_OR_RETURN(Value y, broadcastTo(n, x, target));
  return n.define(y);
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
    count = arithmetic("Div", *span, std::to_string(delta[0]));
  }
  if (!count)
    return n.error("the length (" + limit[0].text() + " - " + start[0].text() +
                   ") / " + std::to_string(delta[0]) +
                   " is not a whole dim expression");
  v1::DType dtype = n.b.dtype(first);
  Value iota = n.b.iota(dtype, {Dim(*count)}, 0);
  if (delta[0] != 1)
    iota = n.b.mul(iota, n.b.convert(step, dtype));
  return n.define(n.b.add(iota, n.b.convert(first, dtype)));
}

Status slice(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> starts, n.knownDimsInput(1));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> ends, n.knownDimsInput(2));
  std::vector<Dim> dims = n.b.dims(x);
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
    if (!number) // symbolic: taken as is
      return b;
    int64_t v = *number;
    if (v >= (int64_t{1} << 40)) // INT64_MAX and the like: the end
      return size;
    if (v <= -(int64_t{1} << 40)) // INT64_MIN and the like: the start
      return Dim(0);
    if (v < 0) {
      auto from = arithmetic("Add", size.text(), std::to_string(v));
      return from ? std::optional<Dim>(Dim(*from)) : std::nullopt;
    }
    return Dim(static_cast<int64_t>(v));
  };
  for (size_t k = 0; k < axes.size(); ++k) {
    ANYSHAPE_ASSIGN_OR_RETURN(int64_t a, n.axis(axes[k], r));
    if (steps[k] < 1)
      return n.error("a step of " + std::to_string(steps[k]) +
                     " is not supported (only positive steps)");
    std::optional<Dim> s = bound(starts[k], dims[a]),
                       e = bound(ends[k], dims[a]);
    if (!s || !e)
      return n.error("cannot place the bounds of axis " + std::to_string(a));
    lo[a] = *s;
    hi[a] = *e;
    stride[a] = steps[k];
  }
  return n.define(n.b.slice(x, lo, hi, stride));
}

} // namespace

std::optional<KnownDims> knownDimsOf(const ImportState &state,
                                     const std::string &name, Value value) {
  if (auto ints = state.knownInts.find(name); ints != state.knownInts.end()) {
    KnownDims k;
    for (int64_t v : ints->second)
      k.dims.push_back(std::to_string(v));
    k.scalar = value.isValid() && state.builder.rank(value) == 0;
    return k;
  }
  if (auto dims = state.knownDims.find(name); dims != state.knownDims.end())
    return dims->second;
  return std::nullopt;
}

std::optional<int64_t> dimNumber(const std::string &text) {
  if (text.empty())
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || errno != 0)
    return std::nullopt;
  return static_cast<int64_t>(v);
}

namespace {

/// `f` of the elements of `a` and `b` (one of them may have a single
/// element, which broadcasts); nullopt if `f` is, for any element.
std::optional<KnownDims> elementwise(
    const KnownDims &a, const KnownDims &b,
    const std::function<std::optional<std::string>(const std::string &,
                                                   const std::string &)> &f) {
  size_t count = std::max(a.dims.size(), b.dims.size());
  if ((a.dims.size() != count && a.dims.size() != 1) ||
      (b.dims.size() != count && b.dims.size() != 1))
    return std::nullopt;
  KnownDims out;
  out.scalar = a.scalar && b.scalar;
  for (size_t i = 0; i < count; ++i) {
    std::optional<std::string> v = f(a.dims[a.dims.size() == 1 ? 0 : i],
                                     b.dims[b.dims.size() == 1 ? 0 : i]);
    if (!v)
      return std::nullopt;
    out.dims.push_back(*v);
  }
  return out;
}

/// Whether two known dims are equal, as "1" or "0"; nullopt when that
/// depends on the sizes. Sizes are never negative, so an expression whose
/// terms all have positive coefficients ("seq", "past + seq") never equals
/// a negative number such as -1 (the TorchScript exporter's expand tests
/// every dim of a shape against -1); two expressions that differ by a
/// nonzero constant are never equal.
std::optional<std::string> knownEqual(const std::string &x,
                                      const std::string &y) {
  std::optional<int64_t> nx = dimNumber(x), ny = dimNumber(y);
  if (nx && ny)
    return *nx == *ny ? "1" : "0";
  if (x == y)
    return "1";
  std::optional<SymExpr> ex = symExpr(x), ey = symExpr(y);
  if (!ex || !ey)
    return std::nullopt;
  if ((nx && *nx < 0 && ey->isNonNegative()) ||
      (ny && *ny < 0 && ex->isNonNegative()))
    return "0";
  std::optional<SymExpr> difference = SymExpr::sub(*ex, *ey);
  if (difference && difference->isConstant())
    return difference->constantValue() == 0 ? "1" : "0";
  return std::nullopt;
}

} // namespace

void addShapeRules(std::map<std::string, OpRule> &rules) {
  rules["Shape"] = {{"start", "end"}, shape};
  rules["Size"] = {{}, size};
  rules["ConstantOfShape"] = {{"value"}, constantOfShape};
  rules["Expand"] = {{}, expand};
  rules["Range"] = {{}, range};
  rules["Slice"] = {{}, slice};
}

namespace {
/// Mod with fmod = 1 (C's fmod, the dividend's sign) rather than the
/// integer default (the divisor's).
bool truncatingMod(const ::onnx::NodeProto &node) {
  for (const auto &attr : node.attribute())
    if (attr.name() == "fmod")
      return attr.i() != 0;
  return false;
}
} // namespace

void propagateKnownDims(ImportState &state, const ::onnx::NodeProto &node,
                        const std::vector<Value> &inputs) {
  const std::string &op = node.op_type();
  if (node.output_size() < 1 || inputs.empty() || op == "Shape" || op == "Size")
    return;
  auto in = [&](size_t k) -> std::optional<KnownDims> {
    if (k >= inputs.size() || !inputs[k].isValid())
      return std::nullopt;
    return knownDimsOf(state, node.input(static_cast<int>(k)), inputs[k]);
  };
  std::optional<KnownDims> result;
  std::optional<KnownDims> a = in(0);
  if (!a)
    return;
  if (op == "Identity" || op == "Cast") {
    result = a;
  } else if (op == "Reshape") { // e.g. a size as a 1-element vector
    auto out = state.values.find(node.output(0));
    int64_t rank =
        out == state.values.end() ? -1 : state.builder.rank(out->second);
    if (rank == 0 && a->dims.size() == 1)
      result = KnownDims{a->dims, true};
    else if (rank == 1)
      result = KnownDims{a->dims, false};
  } else if (op == "Gather" && !a->scalar) {
    std::optional<KnownDims> indices = in(1);
    if (indices && !indices->dims.empty()) {
      KnownDims picked;
      picked.scalar = indices->scalar;
      for (const std::string &text : indices->dims) {
        std::optional<int64_t> i = dimNumber(text);
        auto size = static_cast<int64_t>(a->dims.size());
        if (!i || *i < -size || *i >= size)
          return;
        picked.dims.push_back(a->dims[*i < 0 ? *i + size : *i]);
      }
      result = picked;
    }
  } else if (op == "Slice" && !a->scalar) { // a part of a shape
    std::optional<KnownDims> starts = in(1), ends = in(2);
    auto number = [](const KnownDims &k) -> std::optional<int64_t> {
      return k.dims.size() == 1 ? dimNumber(k.dims[0]) : std::nullopt;
    };
    bool plain = node.input_size() <= 3 ||
                 (node.input_size() == 4 && in(3) && number(*in(3)) == 0);
    if (!starts || !ends || !plain || !number(*starts) || !number(*ends))
      return;
    auto size = static_cast<int64_t>(a->dims.size());
    auto place = [&](int64_t v) {
      return std::clamp<int64_t>(v < 0 ? v + size : v, 0, size);
    };
    int64_t first = place(*number(*starts)), last = place(*number(*ends));
    KnownDims part;
    for (int64_t i = first; i < last; ++i)
      part.dims.push_back(a->dims[i]);
    result = part;
  } else if (op == "Unsqueeze" && a->scalar) {
    result = KnownDims{a->dims, false};
  } else if (op == "Squeeze" && !a->scalar && a->dims.size() == 1) {
    result = KnownDims{a->dims, true};
  } else if (op == "Concat") {
    KnownDims joined;
    for (size_t k = 0; k < inputs.size(); ++k) {
      std::optional<KnownDims> part = in(k);
      if (!part)
        return;
      joined.dims.insert(joined.dims.end(), part->dims.begin(),
                         part->dims.end());
    }
    result = joined;
  } else if (op == "Pow" && a->dims.size() == 1) {
    // A size computed from constants in floats: TorchScript's export of
    // int(num_positions ** 0.5) (a ViT's position grid).
    auto exponent = state.knownFloats.find(node.input(1));
    std::optional<int64_t> base = dimNumber(a->dims[0]);
    if (base && exponent != state.knownFloats.end() &&
        exponent->second.size() == 1) {
      double v = std::pow(static_cast<double>(*base), exponent->second[0]);
      if (std::nearbyint(v) == v && std::fabs(v) < 9.0e15)
        result =
            KnownDims{{std::to_string(static_cast<int64_t>(v))}, a->scalar};
    }
  } else if (op == "Equal") { // "1" or "0" per element
    if (std::optional<KnownDims> b = in(1))
      result = elementwise(*a, *b, knownEqual);
  } else if (op == "Where") {
    std::optional<KnownDims> x = in(1), y = in(2);
    if (!x || !y)
      return;
    std::optional<KnownDims> picked =
        elementwise(*a, *x, [](const std::string &c, const std::string &v) {
          return c == "1"   ? std::optional<std::string>(v)
                 : c == "0" ? std::optional<std::string>("")
                            : std::nullopt;
        });
    if (!picked)
      return;
    result = elementwise(*picked, *y,
                         [](const std::string &p, const std::string &v) {
                           return std::optional<std::string>(p.empty() ? v : p);
                         });
  } else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" ||
             (op == "Mod" && !truncatingMod(node))) {
    std::optional<KnownDims> b = in(1);
    auto out = state.values.find(node.output(0));
    bool integer = out != state.values.end() &&
                   (state.builder.dtype(out->second) == v1::DTYPE_I64 ||
                    state.builder.dtype(out->second) == v1::DTYPE_I32);
    if (b && (integer || op != "Div")) // a float quotient is not truncated
      result =
          elementwise(*a, *b, [&](const std::string &x, const std::string &y) {
            return arithmetic(op, x, y);
          });
  }
  if (result)
    state.knownDims[node.output(0)] = *result;
}

} // namespace anyshape::onnx

// What an exported model's shape computations hold, as dims. A model
// computes its shapes at run time (Shape -> Gather -> Unsqueeze -> Concat,
// with Add/Sub/Mul/Div/Neg on the way, Ceil and Floor of a quotient,
// OneHot of known indices, and conditions of Equal, Not, And,
// Or picked by Where); the importer follows each such int64 tensor as it
// is built (ImportState::knownDims, and knownMatrices for
// the [n, 2] pads TorchScript's F.pad reverses and flattens) and folds
// the arithmetic into dim expressions, so the shapes the model makes of
// them stay symbolic and the graph compiles once.
#include "frontend/onnx/OnnxNode.h"

#include "ir/graph/DimText.h"

#include <algorithm>
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

SliceRange sliceRange(int64_t size, int64_t start, int64_t end, int64_t step) {
  if (size <= 0)
    return {0, 0};
  auto place = [&](int64_t v, int64_t lowest, int64_t highest) {
    if (v < 0)
      v = v < -size ? -1 : v + size; // a far negative bound: before 0
    return std::clamp(v, lowest, highest);
  };
  if (step > 0) {
    int64_t first = place(start, 0, size), last = place(end, 0, size);
    return {first, first < last ? (last - first - 1) / step + 1 : 0};
  }
  int64_t first = place(start, 0, size - 1), last = place(end, -1, size - 1);
  int64_t stride = step == INT64_MIN ? INT64_MAX : -step;
  return {first, first > last ? (first - last - 1) / stride + 1 : 0};
}

void requireNotNegative(client::GraphBuilder &b, const std::string &size) {
  b.broadcastInDim(b.scalar(0, v1::DTYPE_I64), {Dim(size)}, {});
}

void requireNotZero(client::GraphBuilder &b, const std::string &size) {
  // Reshaping no elements to [size^2, -1] requires the square, never
  // negative, to be nonzero: exactly size != 0.
  std::string square = "(" + size + ") * (" + size + ")";
  Value none = b.broadcastInDim(b.scalar(0, v1::DTYPE_I64), {Dim(0)}, {});
  b.reshape(none, {Dim(square), Dim(-1)});
}

void requireNotOne(client::GraphBuilder &b, const std::string &size) {
  requireNotZero(b, "(" + size + ") - 1");
}

std::optional<std::string> dimProduct(const std::vector<Dim> &dims) {
  std::optional<std::string> product = "1";
  for (const Dim &d : dims)
    if (product)
      product = arithmetic("Mul", *product, d.text());
  return product;
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

namespace {
/// Integer Div of a size less a constant by a positive constant, as a
/// convolution's output size is exported (`(height - 1) / 4 + 1`): Div
/// truncates and the floor quotient differs where the dividend is
/// negative, which the size of a valid input never makes it (PyTorch
/// computed a floor). So the quotient is the floor, and the dividend
/// must not be negative at run time.
std::optional<std::string> sizeLessConstantQuotient(ImportState &state,
                                                    const std::string &a,
                                                    const std::string &b) {
  std::optional<SymExpr> x = symExpr(a), y = symExpr(b);
  std::optional<int64_t> divisor = y ? y->constantValue() : std::nullopt;
  if (!x || !divisor || *divisor < 1 || x->isConstant())
    return std::nullopt;
  std::map<SymExpr::Monomial, int64_t> terms = x->terms();
  for (const auto &[monomial, coefficient] : terms)
    if (!monomial.empty() && coefficient < 0)
      return std::nullopt;
  std::optional<SymExpr> quotient = SymExpr::floorDiv(*x, *divisor);
  if (!quotient)
    return std::nullopt;
  requireNotNegative(state.builder, a);
  return quotient->toString();
}
} // namespace

namespace {
/// Mod (fmod = 0) of a constant by a size, as torch.export writes
/// torch.roll's split point (`shift % size`): no dim expression divides
/// by a size, but the remainder is the constant itself where the size is
/// larger (c >= 0), and the size plus the constant where the constant is
/// negative and no longer than the size. Those sizes are required at run
/// time (a smaller one fails naming the node: a roll by more than the
/// axis, which ONNX Runtime would wrap).
std::optional<std::string> constantModSize(ImportState &state,
                                           const std::string &a,
                                           const std::string &b) {
  std::optional<int64_t> c = dimNumber(a);
  std::optional<SymExpr> size = symExpr(b);
  if (!c || !size || size->isConstant() || !size->isNonNegative() ||
      *c == INT64_MIN)
    return std::nullopt;
  if (*c == 0)
    return std::string("0");
  // c >= 1: size - c - 1 >= 0; c < 0: size + c >= 0.
  std::optional<SymExpr> slack =
      SymExpr::add(*size, SymExpr::constant(*c > 0 ? -*c - 1 : *c));
  std::optional<SymExpr> remainder =
      *c > 0 ? SymExpr::constant(*c)
             : SymExpr::add(*size, SymExpr::constant(*c));
  if (!slack || !remainder)
    return std::nullopt;
  requireNotNegative(state.builder, slack->toString());
  return remainder->toString();
}
} // namespace

namespace {
using KnownMatrix = ImportState::KnownMatrix;

/// The indices along an axis of `size` that Slice keeps from `start` to
/// `end` every `step` (nonzero), clamped as ONNX clamps them.
std::vector<int64_t> slicePositions(int64_t size, int64_t start, int64_t end,
                                    int64_t step) {
  SliceRange range = sliceRange(size, start, end, step);
  std::vector<int64_t> kept;
  for (int64_t k = 0; k < range.count; ++k)
    kept.push_back(range.first + k * step);
  return kept;
}

/// Slice of known dims laid out as `shape` (rank 1 or 2; starts, ends,
/// axes and steps all constants): the kept elements, row-major, and the
/// kept shape; nullopt where an input is not known.
std::optional<std::pair<std::vector<std::string>, std::vector<int64_t>>>
sliceKnown(const std::vector<std::string> &dims, std::vector<int64_t> shape,
           const std::function<std::optional<KnownDims>(size_t)> &in,
           int inputCount) {
  auto numbers = [&](size_t k) -> std::optional<std::vector<int64_t>> {
    std::optional<KnownDims> known = in(k);
    if (!known)
      return std::nullopt;
    std::vector<int64_t> values;
    for (const std::string &text : known->dims) {
      std::optional<int64_t> v = dimNumber(text);
      if (!v)
        return std::nullopt;
      values.push_back(*v);
    }
    return values;
  };
  auto rank = static_cast<int64_t>(shape.size());
  std::optional<std::vector<int64_t>> starts = numbers(1), ends = numbers(2);
  if (!starts || !ends || starts->size() != ends->size())
    return std::nullopt;
  std::vector<int64_t> axes(starts->size()), steps(starts->size(), 1);
  for (size_t k = 0; k < axes.size(); ++k)
    axes[k] = static_cast<int64_t>(k);
  for (int k : {3, 4}) {
    if (inputCount <= k)
      continue;
    std::optional<std::vector<int64_t>> given = numbers(k);
    if (!given || given->size() != starts->size())
      return std::nullopt;
    (k == 3 ? axes : steps) = *given;
  }
  std::vector<std::vector<int64_t>> kept(shape.size());
  for (int64_t d = 0; d < rank; ++d)
    for (int64_t i = 0; i < shape[d]; ++i)
      kept[d].push_back(i);
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t axis = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (axis < 0 || axis >= rank || steps[k] == 0)
      return std::nullopt;
    kept[axis] =
        slicePositions(shape[axis], (*starts)[k], (*ends)[k], steps[k]);
  }
  std::vector<std::string> picked;
  int64_t columns = rank == 2 ? shape[1] : 1;
  std::vector<int64_t> rows = rank == 2 ? kept[0] : std::vector<int64_t>{0};
  for (int64_t row : rows)
    for (int64_t column : kept[rank - 1])
      picked.push_back(dims[row * columns + column]);
  std::vector<int64_t> keptShape;
  for (const auto &positions : kept)
    keptShape.push_back(static_cast<int64_t>(positions.size()));
  return std::make_pair(picked, keptShape);
}

/// Whether the integer `v` is a value of a float type with `digits`
/// significant bits and largest finite value `largest`.
bool floatHolds(int64_t v, int digits, double largest) {
  uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : v;
  if (static_cast<double>(magnitude) > largest)
    return false;
  while (magnitude >= (uint64_t{1} << digits) && magnitude % 2 == 0)
    magnitude /= 2;
  return magnitude < (uint64_t{1} << digits);
}

/// What a Cast leaves of known values `values`: each one where the target
/// type holds it exactly; a number a bool turns into 0 or 1; nullopt
/// where some value might not come through unchanged (a size cast to
/// float16, which holds whole numbers exactly only to 2048), so that no
/// shape is read from a value the Cast changed.
std::optional<std::vector<std::string>>
castKnown(const ::onnx::NodeProto &node,
          const std::vector<std::string> &values) {
  int64_t to = -1;
  for (const auto &attr : node.attribute())
    if (attr.name() == "to")
      to = attr.i();
  using T = ::onnx::TensorProto;
  std::function<bool(int64_t)> holds;
  bool symbols = true; // whether a symbolic size survives
  switch (to) {
  case T::INT64:
    holds = [](int64_t) { return true; };
    break;
  case T::INT32:
    holds = [](int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
    break;
  case T::UINT64:
  case T::UINT32:
    holds = [to](int64_t v) {
      return v >= 0 && (to == T::UINT64 || v <= UINT32_MAX);
    };
    break;
  case T::DOUBLE:
    holds = [](int64_t v) { return floatHolds(v, 53, 1.8e308); };
    break;
  case T::FLOAT:
    // A symbolic size is taken to stay below 2^24, where float holds it
    // exactly (a single dim that long is a 64 MiB row of floats), so
    // that exported float size arithmetic (int(h * 0.5)) is followed.
    holds = [](int64_t v) { return floatHolds(v, 24, 3.4e38); };
    break;
  case T::FLOAT16:
    holds = [](int64_t v) { return floatHolds(v, 11, 65504); };
    symbols = false;
    break;
  case T::BFLOAT16:
    holds = [](int64_t v) { return floatHolds(v, 8, 3.38e38); };
    symbols = false;
    break;
  case T::BOOL: { // nonzero is 1: min(size, 1) of a size
    std::vector<std::string> bools;
    for (const std::string &value : values) {
      std::optional<int64_t> v = dimNumber(value);
      std::optional<SymExpr> size = v ? std::nullopt : symExpr(value);
      std::optional<SymExpr> one =
          size && size->isNonNegative()
              ? SymExpr::extremum(*size, SymExpr::constant(1), false)
              : std::nullopt;
      if (!v && !one)
        return std::nullopt;
      bools.push_back(v ? (*v != 0 ? "1" : "0") : one->toString());
    }
    return bools;
  }
  default:
    return std::nullopt;
  }
  for (const std::string &value : values) {
    std::optional<int64_t> v = dimNumber(value);
    if (v ? !holds(*v) : !symbols)
      return std::nullopt;
  }
  return values;
}

/// What Identity, Cast, Transpose, Slice and Reshape make of a matrix of
/// known dims `m`: another matrix, or (Reshape to rank 1) known dims.
void propagateKnownMatrix(
    ImportState &state, const ::onnx::NodeProto &node, const KnownMatrix &m,
    const std::function<std::optional<KnownDims>(size_t)> &in) {
  const std::string &op = node.op_type();
  const std::string &out = node.output(0);
  int64_t rows = static_cast<int64_t>(m.dims.size()) / m.columns;
  if (rows == 0) // an empty matrix: nothing a shape is made of
    return;
  if (op == "Identity") {
    state.knownMatrices[out] = m;
  } else if (op == "Cast") {
    if (std::optional<std::vector<std::string>> cast = castKnown(node, m.dims))
      state.knownMatrices[out] = KnownMatrix{*cast, m.columns};
  } else if (op == "Transpose") {
    for (const auto &attr : node.attribute())
      if (attr.name() == "perm" &&
          (attr.ints_size() != 2 || attr.ints(0) != 1 || attr.ints(1) != 0))
        return;
    KnownMatrix t{{}, rows};
    for (int64_t c = 0; c < m.columns; ++c)
      for (int64_t r = 0; r < rows; ++r)
        t.dims.push_back(m.dims[r * m.columns + c]);
    state.knownMatrices[out] = t;
  } else if (op == "Slice") {
    auto sliced = sliceKnown(m.dims, {rows, m.columns}, in, node.input_size());
    if (sliced && sliced->second[1] > 0)
      state.knownMatrices[out] = KnownMatrix{sliced->first, sliced->second[1]};
  } else if (op == "Reshape") {
    auto value = state.values.find(out);
    if (value == state.values.end())
      return;
    std::vector<Dim> dims = dimsOf(state.builder, value->second);
    std::optional<int64_t> columns =
        dims.size() == 2 ? dimNumber(dims[1].text()) : std::nullopt;
    auto count = static_cast<int64_t>(m.dims.size());
    if (dims.size() == 1)
      state.knownDims[out] = KnownDims{m.dims, false};
    else if (columns && *columns > 0 && count % *columns == 0)
      state.knownMatrices[out] = KnownMatrix{m.dims, *columns};
  }
}
/// `c` as p / q with q a power of two up to 2^8 and p >= 1: a float
/// scale whose product with a size is exact in f32 while size * p <
/// 2^24 (0.5, 1.5, 2.0, 0.25: every image size), so that its rounding is
/// floor(size * p / q); nullopt for any other (1/3 rounds, and a
/// rounding of its product could land on either side of a whole number).
std::optional<std::pair<int64_t, int64_t>> dyadicRatio(double c) {
  constexpr int64_t kMaxDenominator = int64_t{1} << 8;
  if (!(c > 0) || c > 1.0e9)
    return std::nullopt;
  for (int64_t q = 1; q <= kMaxDenominator; q *= 2) {
    double p = c * static_cast<double>(q);
    if (std::nearbyint(p) == p)
      return std::make_pair(static_cast<int64_t>(p), q);
  }
  return std::nullopt;
}

/// A rounding of a float product or quotient of known sizes, as sizes:
/// Ceil, Floor, or a Cast to an integer (which truncates, the floor of a
/// size), of a Div by a positive whole number (MobileViT's
/// int(ceil(w / 2) * 2) // 2 after a Cast to float) or of a Mul by a
/// dyadic scale (torch.export's nearest-exact interpolation:
/// int(height * 0.5)). The product or quotient itself is no size, so the
/// rounding is read off the node that made it.
void propagateRoundedSize(ImportState &state, const ::onnx::NodeProto &node,
                          bool ceil) {
  auto producer = state.producers.find(node.input(0));
  if (producer == state.producers.end() ||
      (producer->second->op_type() != "Div" &&
       producer->second->op_type() != "Mul") ||
      producer->second->input_size() != 2)
    return;
  const ::onnx::NodeProto &made = *producer->second;
  auto known = [&](int k) -> std::optional<KnownDims> {
    auto value = state.values.find(made.input(k));
    return value == state.values.end()
               ? std::nullopt
               : knownDimsOf(state, made.input(k), value->second);
  };
  auto scale = [&](int k) -> std::optional<std::pair<int64_t, int64_t>> {
    auto floats = state.knownFloats.find(made.input(k));
    return floats == state.knownFloats.end() || floats->second.size() != 1
               ? std::nullopt
               : dyadicRatio(floats->second[0]);
  };
  // The sizes times p / q.
  std::optional<KnownDims> sizes;
  std::optional<std::pair<int64_t, int64_t>> ratio;
  if (made.op_type() == "Div") {
    std::optional<KnownDims> divisor = known(1);
    std::optional<int64_t> by = divisor && divisor->dims.size() == 1
                                    ? dimNumber(divisor->dims[0])
                                    : std::nullopt;
    if (by && *by > 0) {
      sizes = known(0);
      ratio = std::make_pair(int64_t{1}, *by);
    }
  } else {
    for (int k : {0, 1})
      if (!sizes && (ratio = scale(1 - k)))
        sizes = known(k);
  }
  if (!sizes || !ratio)
    return;
  auto [p, q] = *ratio;
  KnownDims rounded{{}, sizes->scalar};
  for (const std::string &text : sizes->dims) {
    std::optional<SymExpr> x = symExpr(text);
    std::optional<SymExpr> product =
        x && x->isNonNegative() ? SymExpr::mul(*x, SymExpr::constant(p))
                                : std::nullopt;
    std::optional<SymExpr> up =
        product && ceil ? SymExpr::add(*product, SymExpr::constant(q - 1))
                        : product;
    std::optional<SymExpr> r = up ? SymExpr::floorDiv(*up, q) : std::nullopt;
    if (!r)
      return;
    rounded.dims.push_back(r->toString());
  }
  state.knownDims[node.output(0)] = rounded;
}

/// Whether `node` is a Cast to an integer type.
bool castsToInteger(const ::onnx::NodeProto &node) {
  if (node.op_type() != "Cast")
    return false;
  for (const auto &attr : node.attribute())
    if (attr.name() == "to")
      return attr.i() == ::onnx::TensorProto::INT64 ||
             attr.i() == ::onnx::TensorProto::INT32;
  return false;
}

/// OneHot of known indices (a scalar or a vector), depth and [off, on]
/// values, along the last axis: TorchScript's repeat_interleave makes its
/// Tile repeats so ([1, k, 1]: index 1 of depth 3, values [1, k]).
void propagateOneHot(ImportState &state, const ::onnx::NodeProto &node,
                     const KnownDims &indices,
                     const std::optional<KnownDims> &depth,
                     const std::optional<KnownDims> &values) {
  if (!depth || !values || depth->dims.size() != 1 || values->dims.size() != 2)
    return;
  std::optional<int64_t> d = dimNumber(depth->dims[0]);
  constexpr int64_t kMaxDepth = 64; // a shape's rank, not a class count
  if (!d || *d <= 0 || *d > kMaxDepth)
    return;
  int64_t rank = indices.scalar ? 1 : 2;
  for (const auto &attr : node.attribute())
    if (attr.name() == "axis" && attr.i() != -1 && attr.i() != rank - 1)
      return;
  std::vector<std::string> flat;
  for (const std::string &index : indices.dims) {
    std::optional<int64_t> i = dimNumber(index);
    if (!i)
      return;
    int64_t hot = *i < 0 ? *i + *d : *i; // out of range: none is hot
    for (int64_t k = 0; k < *d; ++k)
      flat.push_back(k == hot ? values->dims[1] : values->dims[0]);
  }
  if (indices.scalar)
    state.knownDims[node.output(0)] = KnownDims{flat, false};
  else if (!flat.empty())
    state.knownMatrices[node.output(0)] = KnownMatrix{flat, *d};
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
  if (auto m = state.knownMatrices.find(node.input(0));
      m != state.knownMatrices.end()) {
    propagateKnownMatrix(state, node, m->second, in);
    return;
  }
  if (node.op_type() == "Ceil" || node.op_type() == "Floor") {
    propagateRoundedSize(state, node, node.op_type() == "Ceil");
    return;
  }
  std::optional<KnownDims> result;
  std::optional<KnownDims> a = in(0);
  if (!a && castsToInteger(node))
    propagateRoundedSize(state, node, false);
  if (!a)
    return;
  if (op == "Identity") {
    result = a;
  } else if (op == "Cast") {
    if (std::optional<std::vector<std::string>> cast = castKnown(node, a->dims))
      result = KnownDims{*cast, a->scalar};
  } else if (op == "OneHot") {
    propagateOneHot(state, node, *a, in(1), in(2));
  } else if (op == "Reshape") { // e.g. a size as a 1-element vector
    auto out = state.values.find(node.output(0));
    int64_t rank =
        out == state.values.end() ? -1 : state.builder.rank(out->second);
    std::optional<int64_t> columns =
        rank == 2 ? dimNumber(dimsOf(state.builder, out->second)[1].text())
                  : std::nullopt;
    if (rank == 0 && a->dims.size() == 1)
      result = KnownDims{a->dims, true};
    else if (rank == 1)
      result = KnownDims{a->dims, false};
    else if (columns && *columns > 0 && !a->scalar && !a->dims.empty() &&
             static_cast<int64_t>(a->dims.size()) % *columns == 0)
      state.knownMatrices[node.output(0)] = KnownMatrix{a->dims, *columns};
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
    auto size = static_cast<int64_t>(a->dims.size());
    if (auto sliced = sliceKnown(a->dims, {size}, in, node.input_size()))
      result = KnownDims{sliced->first, false};
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
  } else if (op == "Neg") { // -n: a slice from the end (x[:, -n:])
    KnownDims negated{{}, a->scalar};
    for (const std::string &x : a->dims) {
      std::optional<std::string> r = arithmetic("Sub", "0", x);
      if (!r)
        return;
      negated.dims.push_back(*r);
    }
    result = negated;
  } else if (op == "Equal") { // "1" or "0" per element
    if (std::optional<KnownDims> b = in(1))
      result = elementwise(*a, *b, knownEqual);
  } else if (op == "Not") { // of a known condition ("1" or "0")
    KnownDims flipped{{}, a->scalar};
    for (const std::string &c : a->dims) {
      if (c != "0" && c != "1")
        return;
      flipped.dims.push_back(c == "1" ? "0" : "1");
    }
    result = flipped;
  } else if (op == "And" || op == "Or") {
    if (std::optional<KnownDims> b = in(1))
      result = elementwise(
          *a, *b,
          [&](const std::string &x,
              const std::string &y) -> std::optional<std::string> {
            bool known = (x == "0" || x == "1") && (y == "0" || y == "1");
            if (!known)
              return std::nullopt;
            bool v = op == "And" ? x == "1" && y == "1" : x == "1" || y == "1";
            return v ? "1" : "0";
          });
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
  } else if ((op == "Max" || op == "Min") && inputs.size() == 2) {
    // PyTorch's sym_max / sym_min: a sliding window's length.
    if (std::optional<KnownDims> b = in(1))
      result = elementwise(
          *a, *b,
          [&](const std::string &x,
              const std::string &y) -> std::optional<std::string> {
            std::optional<SymExpr> ex = symExpr(x), ey = symExpr(y);
            std::optional<SymExpr> e =
                ex && ey ? SymExpr::extremum(*ex, *ey, op == "Max")
                         : std::nullopt;
            return e ? std::optional<std::string>(e->toString()) : std::nullopt;
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
            std::optional<std::string> r = arithmetic(op, x, y);
            if (r)
              return r;
            return op == "Div"   ? sizeLessConstantQuotient(state, x, y)
                   : op == "Mod" ? constantModSize(state, x, y)
                                 : std::nullopt;
          });
  }
  if (result)
    state.knownDims[node.output(0)] = *result;
}

} // namespace anyshape::onnx

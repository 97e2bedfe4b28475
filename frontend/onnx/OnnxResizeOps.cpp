// Resize by composition, one axis at a time (every mode ONNX has is
// separable). Along an axis of size `in` resized to `out` (a dim: the
// sizes input, or the input's size times a scale, floored), each output
// position's source coordinate is computed from an iota by the coordinate
// transformation, in f32 as ONNX Runtime does; its taps (1 nearest,
// 2 linear, 4 cubic) are gathers at the tap indices, which the wire
// gather clamps into the axis (the border value beyond it, as ONNX
// Runtime and PyTorch read with exclude_outside 0), weighted and summed.
// So a ViT's position embeddings resized to the patch grid of any
// resolution stay one compile.
#include "frontend/onnx/OnnxNode.h"
#include "ir/graph/DType.h"

#include <cmath>

namespace anyshape::onnx {
namespace {

/// What one axis is resized to: its output size, and the scale the
/// coordinates use when the node gives one (else out / in at run time).
struct AxisResize {
  int64_t axis;
  Dim out;
  std::optional<float> scale;
};

/// floor(in * scale) as a dim, where the scale is a ratio p / q of small
/// integers (2, 0.5, 1.5): nullopt for any other scale.
std::optional<SymExpr> scaled(const SymExpr &in, float scale) {
  for (int64_t q = 1; q <= 256; ++q) {
    double p = std::nearbyint(static_cast<double>(scale) * q);
    if (!(p >= 1 && p <= (1 << 20)) || // and a NaN scale
        std::fabs(static_cast<double>(scale) * q - p) > 1e-6 * q)
      continue;
    std::optional<SymExpr> product =
        SymExpr::mul(in, SymExpr::constant(static_cast<int64_t>(p)));
    return product ? SymExpr::floorDiv(*product, q) : std::nullopt;
  }
  return std::nullopt;
}

/// The source coordinate of each output position (f32 [out]).
StatusOr<Value> sourceCoordinates(Node &n, Value x, const AxisResize &r,
                                  const std::string &transform) {
  client::GraphBuilder &b = n.b;
  auto f32 = v1::DTYPE_F32;
  auto c = [&](double v) { return b.scalar(v, f32); };
  Value position = b.convert(b.iota(v1::DTYPE_I64, {r.out}, 0), f32);
  Value in = b.convert(b.dimSize(x, r.axis), f32);
  Value out = b.convert(b.dimSize(position, 0), f32);
  auto vector = [&](Value scalar) {
    return b.broadcastInDim(scalar, {r.out}, {});
  };
  Value scale = r.scale ? c(*r.scale) : b.div(out, in);
  Value halfPixel = b.sub(b.div(b.add(position, vector(c(0.5))), vector(scale)),
                          vector(c(0.5)));
  if (transform == "half_pixel")
    return halfPixel;
  if (transform == "pytorch_half_pixel")
    return b.select(vector(b.compare(out, c(1), client::Comparison::Gt)),
                    halfPixel, vector(c(0)));
  if (transform == "align_corners") {
    Value step = b.div(b.sub(in, c(1)), b.sub(out, c(1)));
    return b.select(vector(b.compare(out, c(1), client::Comparison::Eq)),
                    vector(c(0)), b.mul(position, vector(step)));
  }
  if (transform == "asymmetric")
    return b.div(position, vector(scale));
  if (transform == "half_pixel_symmetric") {
    Value adjustment = b.div(out, b.mul(scale, in));
    Value offset =
        b.mul(b.div(in, c(2)), b.sub(c(1), adjustment)); // center * (1 - adj)
    return b.add(halfPixel, vector(offset));
  }
  return n.error("coordinate_transformation_mode '" + transform +
                 "' is not supported");
}

/// `x` resized along `r.axis`.
StatusOr<Value> resizeAxis(Node &n, Value x, const AxisResize &r,
                           const std::string &mode) {
  client::GraphBuilder &b = n.b;
  auto f32 = v1::DTYPE_F32;
  ANYSHAPE_ASSIGN_OR_RETURN(
      Value coordinate,
      sourceCoordinates(
          n, x, r,
          n.attrString("coordinate_transformation_mode", "half_pixel")));
  auto index = [&](Value position) {
    return b.convert(position, v1::DTYPE_I64);
  };
  if (mode == "nearest") {
    std::string rounding = n.attrString("nearest_mode", "round_prefer_floor");
    Value half = b.broadcastInDim(b.scalar(0.5, f32), {r.out}, {});
    Value picked =
        rounding == "round_prefer_floor"  ? b.ceil(b.sub(coordinate, half))
        : rounding == "round_prefer_ceil" ? b.floor(b.add(coordinate, half))
        : rounding == "floor"             ? b.floor(coordinate)
        : rounding == "ceil"              ? b.ceil(coordinate)
                                          : Value();
    if (!picked.isValid())
      return n.error("nearest_mode '" + rounding + "' is not supported");
    return b.gather(x, index(picked), r.axis);
  }
  Value first = b.floor(coordinate);
  Value t = b.sub(coordinate, first);
  // The weights along the axis, broadcast over the gathered taps (x is
  // f32 here: resize widens narrower floats).
  std::vector<Dim> resized = dimsOf(b, x);
  resized[r.axis] = r.out;
  auto along = [&](Value weights) {
    return b.broadcastInDim(weights, resized, {r.axis});
  };
  auto tap = [&](int64_t offset) {
    Value at =
        b.add(index(first),
              b.broadcastInDim(b.scalar(offset, v1::DTYPE_I64), {r.out}, {}));
    return b.gather(x, at, r.axis);
  };
  if (mode == "linear") {
    Value low = tap(0), high = tap(1);
    return b.add(low, b.mul(b.sub(high, low), along(t)));
  }
  if (mode != "cubic")
    return n.error("mode '" + mode + "' is not nearest, linear or cubic");
  // Keys' cubic convolution kernel with coefficient a, at the distances
  // 1 + t, t, 1 - t and 2 - t of the four taps.
  double a = n.attrFloat("cubic_coeff_a", -0.75f);
  auto scalar = [&](double v) {
    return b.broadcastInDim(b.scalar(v, f32), {r.out}, {});
  };
  auto near = [&](Value d) { // |d| <= 1
    Value d2 = b.mul(d, d);
    return b.add(
        b.sub(b.mul(scalar(a + 2), b.mul(d2, d)), b.mul(scalar(a + 3), d2)),
        scalar(1));
  };
  auto far = [&](Value d) { // 1 < |d| < 2
    Value d2 = b.mul(d, d);
    return b.sub(
        b.add(b.sub(b.mul(scalar(a), b.mul(d2, d)), b.mul(scalar(5 * a), d2)),
              b.mul(scalar(8 * a), d)),
        scalar(4 * a));
  };
  Value one = scalar(1), two = scalar(2);
  Value weights[4] = {far(b.add(one, t)), near(t), near(b.sub(one, t)),
                      far(b.sub(two, t))};
  Value y;
  for (int64_t k = 0; k < 4; ++k) {
    Value term = b.mul(tap(k - 1), along(weights[k]));
    y = y.isValid() ? b.add(y, term) : term;
  }
  return y;
}

/// Resize's sizes (input 3) for `axes` of `x`. A size no expression
/// writes may stand for x's own dim on its axis, read by Shape of x
/// itself (BEiT's and PVT's position tables, reshaped by a -1 that does
/// not divide): that axis keeps its size. Any other is refused, as
/// knownDimsInput refuses it.
StatusOr<std::vector<Dim>> sizesInput(Node &n, Value x,
                                      const std::vector<int64_t> &axes) {
  Value given = n.inputs.size() > 3 ? n.inputs[3] : Value();
  std::optional<ImportState::KnownDims> known =
      given.isValid() && n.b.dtype(given) == v1::DTYPE_I64
          ? knownDimsOf(n.state, n.proto.input(3), given)
          : std::nullopt;
  if (!known)
    return n.knownDimsInput(3); // its refusal
  std::vector<Dim> dims = n.dims(x), sizes;
  for (size_t k = 0; k < known->dims.size(); ++k) {
    std::optional<std::pair<int, int64_t>> own = anonymousDimOf(known->dims[k]);
    if (!own) {
      sizes.emplace_back(known->dims[k]);
    } else if (own->first == x.id() && k < axes.size() &&
               own->second == axes[k]) {
      sizes.push_back(dims[axes[k]]); // as it is: not resized
    } else {
      return n.knownDimsInput(3); // its refusal
    }
  }
  return sizes;
}

Status resize(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  std::string mode = n.attrString("mode", "nearest");
  // Nearest only gathers, in any type. Interpolation weighs taps in f32:
  // f16 and bf16 are rounded once at the end (as PyTorch and ONNX Runtime
  // do); integers are not interpolated.
  v1::DType type = n.b.dtype(x);
  bool narrowFloat = type == v1::DTYPE_F16 || type == v1::DTYPE_BF16;
  if (mode != "nearest" && !narrowFloat && type != v1::DTYPE_F32)
    return n.error("mode '" + mode + "' interpolates float tensors only, not " +
                   dtypeName(type));
  bool widen = mode != "nearest" && narrowFloat;
  if (n.attrInt("antialias", 0) != 0)
    return n.error("antialias is not supported");
  if (n.attrInt("exclude_outside", 0) != 0)
    return n.error("exclude_outside is not supported");
  if (n.attrString("keep_aspect_ratio_policy", "stretch") != "stretch")
    return n.error("keep_aspect_ratio_policy other than stretch is not "
                   "supported");
  std::vector<Dim> dims = n.dims(x);
  auto r = static_cast<int64_t>(dims.size());
  std::vector<int64_t> axes;
  if (std::optional<std::vector<int64_t>> given = n.attrInts("axes")) {
    for (int64_t a : *given) {
      ANYSHAPE_ASSIGN_OR_RETURN(int64_t axis, n.axis(a, r));
      axes.push_back(axis);
    }
  } else {
    for (int64_t a = 0; a < r; ++a)
      axes.push_back(a);
  }
  // Scales (input 2) or sizes (input 3): an empty scales tensor is absent.
  auto present = [&](int k) {
    return n.proto.input_size() > k && !n.proto.input(k).empty();
  };
  std::optional<std::vector<float>> scales;
  if (present(2)) {
    auto known = n.state.knownFloats.find(n.proto.input(2));
    if (known == n.state.knownFloats.end())
      return n.error("scales must be a constant");
    if (!known->second.empty())
      scales = known->second;
  }
  std::vector<AxisResize> resizes;
  if (scales) {
    if (scales->size() != axes.size())
      return n.error("has " + std::to_string(scales->size()) + " scales for " +
                     std::to_string(axes.size()) + " axes");
    for (size_t k = 0; k < axes.size(); ++k) {
      std::optional<SymExpr> in = symExpr(dims[axes[k]].text());
      std::optional<SymExpr> out =
          in ? scaled(*in, (*scales)[k]) : std::nullopt;
      if (!out)
        return n.error("scale " + std::to_string((*scales)[k]) + " of dim " +
                       dims[axes[k]].text() +
                       " is not a ratio of integers up to 256");
      if ((*scales)[k] != 1.0f)
        resizes.push_back({axes[k], Dim(out->toString()), (*scales)[k]});
    }
  } else if (present(3)) {
    ANYSHAPE_ASSIGN_OR_RETURN(std::vector<Dim> sizes, sizesInput(n, x, axes));
    if (sizes.size() != axes.size())
      return n.error("has " + std::to_string(sizes.size()) + " sizes for " +
                     std::to_string(axes.size()) + " axes");
    for (size_t k = 0; k < axes.size(); ++k)
      if (sizes[k].text() != dims[axes[k]].text())
        resizes.push_back({axes[k], sizes[k], std::nullopt});
  } else {
    return n.error("needs scales or sizes");
  }
  if (widen && !resizes.empty())
    x = n.b.convert(x, v1::DTYPE_F32);
  for (const AxisResize &axis : resizes) {
    ANYSHAPE_ASSIGN_OR_RETURN(x, resizeAxis(n, x, axis, mode));
  }
  if (widen && !resizes.empty())
    x = n.b.convert(x, type);
  return n.define(x);
}

} // namespace

void addResizeRules(std::map<std::string, OpRule> &rules) {
  rules["Resize"] = {{"mode", "coordinate_transformation_mode", "nearest_mode",
                      "cubic_coeff_a", "exclude_outside", "extrapolation_value",
                      "antialias", "keep_aspect_ratio_policy", "axes"},
                     resize};
}

} // namespace anyshape::onnx

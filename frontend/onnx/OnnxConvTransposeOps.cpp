// ONNX's ConvTranspose as the convolution it is. With strides above 1
// (and no dilation), in the phases of its output: output position m*s + p
// meets only taps p, p + s, ..., so the prod(s) phases are the output
// channels of one stride-1 Conv of the undilated input, interleaved back
// (depth to space) and cropped by the pads; its work is the transposed
// convolution's own. Otherwise a Conv of the input dilated by its stride,
// with the kernel flipped, whose work is prod(s) times that. Output sizes
// are the ONNX formula's, s*(L - 1) + output_padding + extent - pads.
#include "frontend/onnx/OnnxConvolution.h"
#include "ir/graph/DType.h"
#include "ir/graph/DimText.h"

#include <algorithm>
#include <optional>

namespace anyshape::onnx {
namespace {

using convolution::checkComposable;
using convolution::checkedWeights;
using convolution::convolve;
using convolution::perSpatialDim;
using convolution::Window;

/// `v` with its `axis` (of `size` elements) in reverse order.
Value reversedAlong(Node &n, Value v, int64_t axis, int64_t size) {
  std::vector<int64_t> reversed(static_cast<size_t>(size));
  for (int64_t j = 0; j < size; ++j)
    reversed[j] = size - 1 - j;
  std::string bytes(reinterpret_cast<const char *>(reversed.data()),
                    reversed.size() * sizeof(int64_t));
  return n.b.gather(v, n.b.constant(v1::DTYPE_I64, {size}, std::move(bytes)),
                    axis);
}

/// What a ConvTranspose node asks for, checked: its weights [C, M/g, k...]
/// and the geometry along each spatial dim.
struct Transposed {
  std::vector<int64_t> weights; // [C, M/g, k...]
  int64_t group = 1;
  std::vector<int64_t> kernel, strides, dilations, padLow, padHigh, extra;
  std::vector<SymExpr> out; // s*(L - 1) + extra + extent - pads
};

StatusOr<Transposed> transposedOf(Node &n, Value x, Value weights) {
  Transposed t;
  t.group = n.attrInt("group", 1);
  ANYSHAPE_ASSIGN_OR_RETURN(t.weights,
                            checkedWeights(n, x, weights, t.group, 0));
  if (n.attribute("output_shape"))
    return n.error("output_shape is not supported; export with pads and "
                   "output_padding");
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID")
    return n.error("auto_pad " + autoPad + " is not supported");
  std::vector<Dim> dims = n.dims(x);
  size_t r = dims.size() - 2;
  t.kernel.assign(t.weights.begin() + 2, t.weights.end());
  ANYSHAPE_ASSIGN_OR_RETURN(t.strides, perSpatialDim(n, "strides", r, 1));
  ANYSHAPE_ASSIGN_OR_RETURN(t.dilations, perSpatialDim(n, "dilations", r, 1));
  std::vector<int64_t> pads =
      n.attrInts("pads").value_or(std::vector<int64_t>(2 * r, 0));
  t.extra = n.attrInts("output_padding").value_or(std::vector<int64_t>(r, 0));
  if (pads.size() != 2 * r || t.extra.size() != r)
    return n.error("needs 2 pads and 1 output_padding per spatial dim");
  for (size_t i = 0; i < r; ++i) {
    int64_t extent = (t.kernel[i] - 1) * t.dilations[i] + 1;
    if (pads[i] < 0 || pads[i + r] < 0 || t.extra[i] < 0 ||
        t.extra[i] >= std::max(t.strides[i], t.dilations[i]) ||
        pads[i] > extent || pads[i + r] > extent)
      return n.error("pads and output_padding must be in [0, kernel extent] "
                     "and [0, max(stride, dilation))");
    t.padLow.push_back(pads[i]);
    t.padHigh.push_back(pads[i + r]);
    std::optional<SymExpr> length = symExpr(dims[2 + i].text());
    std::optional<SymExpr> dilated =
        length ? SymExpr::mul(*length, SymExpr::constant(t.strides[i]))
               : std::nullopt;
    std::optional<SymExpr> out =
        dilated ? SymExpr::add(*dilated,
                               SymExpr::constant(t.extra[i] + extent - pads[i] -
                                                 pads[i + r] - t.strides[i]))
                : std::nullopt;
    if (!out)
      return n.error("spatial dim " + dims[2 + i].text() +
                     " must be static or named by a dim_param");
    t.out.push_back(*out);
  }
  return t;
}

/// ConvTranspose as a convolution: the input dilated by the stride
/// (interior padding), padded by the kernel's extent less the node's pads
/// (and output_padding at the end), convolved at stride 1 with the kernel
/// flipped and its channel dims swapped per group. Its work is the dilated
/// input's: stride^r times the transposed convolution's own.
StatusOr<Value> convTransposeDilated(Node &n, Value x, Value weights,
                                     const Transposed &t, Value bias) {
  std::vector<Dim> dims = n.dims(x);
  size_t r = t.kernel.size();
  Window win;
  win.kernel = t.kernel;
  win.strides.assign(r, 1);
  win.dilations = t.dilations;
  win.padLow.assign(r, 0);
  win.padHigh.assign(r, 0);
  win.out = t.out;
  std::vector<int64_t> low{0, 0}, high{0, 0}, interior{0, 0};
  std::vector<Dim> dilated{dims[0], dims[1]};
  for (size_t i = 0; i < r; ++i) {
    int64_t extent = (t.kernel[i] - 1) * t.dilations[i] + 1;
    low.push_back(extent - 1 - t.padLow[i]);
    high.push_back(extent - 1 - t.padHigh[i] + t.extra[i]);
    interior.push_back(t.strides[i] - 1);
    // The dilated input's sizes as the formula writes them (the pad's own
    // are fresh symbols, defined only at run time), so the convolution's
    // sizes are expressions of the graph's symbols too.
    std::optional<SymExpr> spread =
        SymExpr::add(t.out[i], SymExpr::constant(extent - 1));
    if (!spread)
      return n.error("the output size of spatial dim " + dims[2 + i].text() +
                     " overflows");
    dilated.push_back(spread->toString());
  }
  Value in = n.b.reshape(
      n.b.pad(x, n.b.scalar(0.0, n.b.dtype(x)), low, high, interior), dilated);
  // Weights [C, M/g, k...] -> flipped -> [g, C/g, M/g, k...] -> [M, C/g, k].
  int64_t channels = t.weights[0], perGroup = t.weights[1];
  for (size_t i = 0; i < r; ++i)
    weights =
        reversedAlong(n, weights, static_cast<int64_t>(2 + i), t.kernel[i]);
  std::vector<Dim> split{t.group, channels / t.group, perGroup};
  std::vector<Dim> swapped{t.group * perGroup, channels / t.group};
  std::vector<int64_t> order{0, 2, 1};
  for (size_t i = 0; i < r; ++i) {
    split.push_back(t.kernel[i]);
    swapped.push_back(t.kernel[i]);
    order.push_back(static_cast<int64_t>(3 + i));
  }
  weights =
      n.b.reshape(n.b.transpose(n.b.reshape(weights, split), order), swapped);
  return convolve(n, in, weights, t.group, win, bias);
}

/// A reshape into named axes, each of a static size, and the transpose
/// that brings them into another order; an axis of size 1 is left out,
/// which keeps the ranks within the wire's 8.
struct NamedAxes {
  std::vector<std::pair<std::string, int64_t>> axes;
  void add(std::string name, int64_t size) {
    if (size != 1)
      axes.emplace_back(std::move(name), size);
  }
  std::vector<Dim> dims() const {
    std::vector<Dim> out;
    for (const auto &[name, size] : axes)
      out.push_back(size);
    return out;
  }
  int64_t position(const std::string &name) const {
    for (size_t a = 0; a < axes.size(); ++a)
      if (axes[a].first == name)
        return static_cast<int64_t>(a);
    return -1;
  }
  /// The permutation to `order` (names; those left out are skipped).
  std::vector<int64_t> to(const std::vector<std::string> &order) const {
    std::vector<int64_t> permutation;
    for (const std::string &name : order)
      if (int64_t p = position(name); p >= 0)
        permutation.push_back(p);
    return permutation;
  }
};

/// ConvTranspose with strides above 1 (dilation 1) in the phases of its
/// output: position o = m*s + p meets only taps p, p + s, p + 2s, ..., so
/// each phase p is a direct convolution of the undilated input with every
/// s-th tap, flipped. With the kernel padded by zero taps to J*s, every
/// phase has J taps; the prod(s) phases are the output channels of one
/// convolution (the input padded by J - 1 on each side), interleaved back
/// (depth to space) and cropped by the node's pads. Its work is the
/// transposed convolution's own, where the dilated input's is prod(s)
/// times that. nullopt where the weights' rearrangement would pass the
/// wire's rank limit (3-D with groups and every stride above 1).
StatusOr<std::optional<Value>> convTransposeInPhases(Node &n, Value x,
                                                     Value weights,
                                                     const Transposed &t,
                                                     Value bias) {
  std::vector<Dim> dims = n.dims(x);
  auto r = static_cast<int64_t>(t.kernel.size());
  int64_t channels = t.weights[0], perGroup = t.weights[1], phases = 1;
  std::vector<int64_t> taps(r);
  Window win;
  std::vector<int64_t> wideLow(2 + r, 0), wideHigh(2 + r, 0);
  // Weights [C, M/g, k...] -> zero taps to J*s -> [g, C/g, M/g, (J, s)...]
  // -> each J reversed -> [g, M/g, s..., C/g, J...] -> [M * prod(s), C/g, J].
  NamedAxes split;
  split.add("g", t.group);
  split.add("c", channels / t.group);
  split.add("m", perGroup);
  std::vector<std::string> order{"g", "m"};
  for (int64_t i = 0; i < r; ++i)
    order.push_back("s" + std::to_string(i));
  order.push_back("c");
  for (int64_t i = 0; i < r; ++i) {
    int64_t s = t.strides[i], k = t.kernel[i];
    taps[i] = (k + s - 1) / s;
    wideHigh[2 + i] = taps[i] * s - k;
    phases *= s;
    split.add("J" + std::to_string(i), taps[i]);
    split.add("s" + std::to_string(i), s);
    order.push_back("J" + std::to_string(i));
    // The interleaved length (L + J - 1) * s reaches the crop's end,
    // pad + out = s*(L - 1) + k - padHigh + output_padding, unless the
    // output padding passes the zero taps: one more phase row then.
    int64_t extra = k - t.padHigh[i] + t.extra[i] > taps[i] * s ? 1 : 0;
    std::optional<SymExpr> length = symExpr(dims[2 + i].text());
    std::optional<SymExpr> rows =
        length ? SymExpr::add(*length, SymExpr::constant(taps[i] - 1 + extra))
               : std::nullopt;
    if (!rows)
      return n.error("the output size of spatial dim " + dims[2 + i].text() +
                     " overflows");
    win.kernel.push_back(taps[i]);
    win.strides.push_back(1);
    win.dilations.push_back(1);
    win.padLow.push_back(taps[i] - 1);
    win.padHigh.push_back(taps[i] - 1 + extra);
    win.out.push_back(*rows);
  }
  if (split.axes.size() > 8)
    return std::optional<Value>();
  Value w = weights;
  if (std::any_of(wideHigh.begin(), wideHigh.end(),
                  [](int64_t v) { return v > 0; }))
    w = n.b.pad(w, n.b.scalar(0.0, n.b.dtype(w)), wideLow, wideHigh);
  w = n.b.reshape(w, split.dims());
  for (int64_t i = 0; i < r; ++i)
    if (int64_t axis = split.position("J" + std::to_string(i)); axis >= 0)
      w = reversedAlong(n, w, axis, taps[i]);
  std::vector<Dim> stacked{t.group * perGroup * phases, channels / t.group};
  stacked.insert(stacked.end(), taps.begin(), taps.end());
  w = n.b.reshape(n.b.transpose(w, split.to(order)), stacked);
  Value y = convolve(n, x, w, t.group, win, Value());
  // [N, M, s..., rows...] -> [N, M, (rows, s)...] -> [N, M, rows*s...],
  // cropped to [pad, pad + out) along each spatial dim.
  int64_t m = t.group * perGroup;
  std::vector<Dim> phased{dims[0], m}, interleaved{dims[0], m}, starts{0, 0},
      limits{dims[0], m}, out{dims[0], m};
  std::vector<int64_t> back{0, 1};
  int64_t strided = 0;
  for (int64_t i = 0; i < r; ++i)
    if (t.strides[i] > 1)
      phased.push_back(t.strides[i]), ++strided;
  for (int64_t i = 0, seen = 0; i < r; ++i) {
    phased.push_back(win.out[i].toString());
    back.push_back(2 + strided + i);
    if (t.strides[i] > 1)
      back.push_back(2 + seen++);
    std::optional<SymExpr> spread =
        SymExpr::mul(win.out[i], SymExpr::constant(t.strides[i]));
    std::optional<SymExpr> limit =
        SymExpr::add(t.out[i], SymExpr::constant(t.padLow[i]));
    if (!spread || !limit)
      return n.error("the output size of spatial dim " + dims[2 + i].text() +
                     " overflows");
    interleaved.push_back(spread->toString());
    starts.push_back(t.padLow[i]);
    limits.push_back(limit->toString());
    out.push_back(t.out[i].toString());
  }
  y = n.b.reshape(n.b.transpose(n.b.reshape(y, phased), back), interleaved);
  // The sizes as the formula writes them, as another layer's would be.
  y = n.b.reshape(n.b.slice(y, starts, limits), out);
  if (bias.isValid())
    y = n.b.add(y, n.b.broadcastInDim(bias, n.dims(y), {1}));
  return std::optional<Value>(y);
}

Status convTranspose(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value weights, n.input(1));
  ANYSHAPE_ASSIGN_OR_RETURN(Transposed t, transposedOf(n, x, weights));
  Window win;
  win.kernel = t.kernel;
  win.dilations = t.dilations;
  ANYSHAPE_RETURN_IF_ERROR(checkComposable(n, x, win));
  Value bias = n.inputs.size() > 2 ? n.inputs[2] : Value();
  bool strided = std::any_of(t.strides.begin(), t.strides.end(),
                             [](int64_t s) { return s > 1; });
  bool dilated = std::any_of(t.dilations.begin(), t.dilations.end(),
                             [](int64_t d) { return d > 1; });
  if (strided && !dilated) {
    ANYSHAPE_ASSIGN_OR_RETURN(std::optional<Value> y,
                              convTransposeInPhases(n, x, weights, t, bias));
    if (y)
      return n.define(*y);
  }
  ANYSHAPE_ASSIGN_OR_RETURN(Value y,
                            convTransposeDilated(n, x, weights, t, bias));
  return n.define(y);
}

} // namespace

void addConvTransposeRules(std::map<std::string, OpRule> &rules) {
  rules["ConvTranspose"] = {{"auto_pad", "dilations", "pads", "strides",
                             "kernel_shape", "group", "output_padding",
                             "output_shape"},
                            convTranspose};
}

} // namespace anyshape::onnx

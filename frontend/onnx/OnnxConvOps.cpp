// Convolutions and pools (ConvTranspose, a convolution too, has a file of
// its own: OnnxConvTransposeOps.cpp). An f32 Conv is the wire convolution
// (oneDNN on the CPU; slices and a contraction on CUDA). Pools, and
// convolutions of other element types, are composed: the input is padded once,
// each kernel tap is a strided slice of it ([N, C, out...], the values that tap
// meets at every output position), a pool takes their max or sum, a Conv
// contracts the stacked taps with the weights in one dot_general (im2col).
// Output sizes are floor quotients of the input's (`(time + 1) floordiv 2`), so
// the graph stays symbolic and two layers of one geometry give provably
// equal sizes. (The normalisations around them: OnnxNormalizationOps.cpp.)
#include "frontend/onnx/OnnxConvolution.h"
#include "ir/graph/DType.h"

#include "ir/graph/DimText.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace anyshape::onnx::convolution {

StatusOr<std::vector<int64_t>> perSpatialDim(Node &n, const std::string &name,
                                             size_t r, int64_t fallback) {
  std::vector<int64_t> values =
      n.attrInts(name).value_or(std::vector<int64_t>(r, fallback));
  if (values.size() != r)
    return n.error(name + " has " + std::to_string(values.size()) +
                   " entries for " + std::to_string(r) + " spatial dims");
  for (int64_t v : values)
    if (v < 1 || v > (int64_t{1} << 20))
      return n.error(name + " entry " + std::to_string(v) +
                     " is not in [1, 2^20]");
  return values;
}

/// The window of `kernel` over `spatial` (the input's spatial dims), from
/// the node's strides, dilations, pads, auto_pad and (pools) ceil_mode.
StatusOr<Window> windowOf(Node &n, const std::vector<Dim> &spatial,
                          std::vector<int64_t> kernel, bool pool) {
  size_t r = spatial.size();
  Window w;
  w.kernel = std::move(kernel);
  for (int64_t k : w.kernel)
    if (k < 1 || k > 4096)
      return n.error("kernel size " + std::to_string(k) +
                     " is not in [1, 4096]");
  ANYSHAPE_ASSIGN_OR_RETURN(w.strides, perSpatialDim(n, "strides", r, 1));
  ANYSHAPE_ASSIGN_OR_RETURN(w.dilations, perSpatialDim(n, "dilations", r, 1));
  std::string mode = n.attrString("auto_pad", "NOTSET");
  std::vector<int64_t> pads =
      n.attrInts("pads").value_or(std::vector<int64_t>(2 * r, 0));
  if (mode == "NOTSET" && pads.size() != 2 * r)
    return n.error("pads has " + std::to_string(pads.size()) + " entries for " +
                   std::to_string(r) + " spatial dims");
  if (mode != "NOTSET" && mode != "VALID" && mode != "SAME_UPPER" &&
      mode != "SAME_LOWER")
    return n.error("auto_pad '" + mode + "' is not NOTSET, VALID, " +
                   "SAME_UPPER or SAME_LOWER");
  bool ceil = pool && n.attrInt("ceil_mode", 0) != 0;
  for (size_t i = 0; i < r; ++i) {
    std::optional<SymExpr> length = symExpr(spatial[i].text());
    if (!length)
      return n.error("spatial dim " + std::to_string(i) + " (" +
                     spatial[i].text() +
                     ") must be static or named by a dim_param");
    int64_t s = w.strides[i], extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t low = 0, high = 0;
    if (mode == "NOTSET") {
      low = pads[i], high = pads[i + r];
    } else if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
      // Output ceil(L / s): the total padding depends on L mod s unless
      // the stride is 1.
      std::optional<int64_t> l = length->constantValue();
      if (s != 1 && !l)
        return n.error("auto_pad " + mode + " with stride " +
                       std::to_string(s) + " pads by an amount that depends " +
                       "on the size of the dynamic dim " + spatial[i].text() +
                       "; export with explicit pads");
      int64_t total =
          s == 1
              ? extent - 1
              : std::max<int64_t>(0, ((*l + s - 1) / s - 1) * s + extent - *l);
      int64_t half = total / 2;
      low = mode == "SAME_UPPER" ? half : total - half;
      high = total - low;
    }
    if (low < 0 || high < 0 || low > (int64_t{1} << 20) ||
        high > (int64_t{1} << 20))
      return n.error("pads " + std::to_string(low) + ", " +
                     std::to_string(high) + " are not in [0, 2^20]");
    // out = floor((L + low + high - extent) / s) + 1, ceil_mode rounding up.
    auto padded =
        SymExpr::add(*length, SymExpr::constant(low + high - extent + s +
                                                (ceil ? s - 1 : 0)));
    std::optional<SymExpr> out =
        padded ? SymExpr::floorDiv(*padded, s) : std::nullopt;
    if (!out)
      return n.error("the output size of spatial dim " + spatial[i].text() +
                     " overflows");
    if (ceil) {
      // A last window starting past the input and the low padding is
      // dropped (ONNX Runtime and PyTorch); it can start there only when
      // the high padding plus the round-up reaches a whole window.
      if (high + s - 1 >= extent) {
        std::optional<int64_t> l = length->constantValue();
        if (!l)
          return n.error("ceil_mode with pads " + std::to_string(high) +
                         " may drop a last window, which depends on the "
                         "size of the dynamic dim " +
                         spatial[i].text());
        int64_t o = *out->constantValue();
        if ((o - 1) * s >= *l + low)
          out = SymExpr::constant(o - 1);
      }
      high += s - 1; // the overhang the last window may read
    }
    w.padLow.push_back(low);
    w.padHigh.push_back(high);
    w.out.push_back(*out);
  }
  return w;
}

/// `x` ([N, C, spatial...]) padded by the window with `fill`.
Value padded(Node &n, Value x, const Window &w, Value fill) {
  std::vector<int64_t> low{0, 0}, high{0, 0};
  low.insert(low.end(), w.padLow.begin(), w.padLow.end());
  high.insert(high.end(), w.padHigh.begin(), w.padHigh.end());
  if (std::all_of(low.begin(), low.end(), [](int64_t v) { return v == 0; }) &&
      std::all_of(high.begin(), high.end(), [](int64_t v) { return v == 0; }))
    return x;
  return n.b.pad(x, fill, low, high);
}

/// A padded input shorter than one window fails the run, as in ONNX
/// Runtime and PyTorch, rather than giving an empty output: the slice of
/// one window's extent checks it (its value is never used).
void checkOneWindow(Node &n, Value x, const Window &w) {
  std::vector<Dim> dims = n.dims(x);
  std::vector<Dim> origin(dims.size(), Dim(0)), window = dims;
  for (size_t i = 0; i < w.kernel.size(); ++i)
    window[2 + i] = (w.kernel[i] - 1) * w.dilations[i] + 1;
  n.b.slice(x, origin, window);
}

/// Each tap of the window over `x` (padded), in row-major kernel order:
/// the strided slice [N, C, out...] of what that tap meets.
std::vector<Value> taps(Node &n, Value x, const Window &w) {
  std::vector<Dim> dims = n.dims(x);
  size_t r = w.kernel.size();
  checkOneWindow(n, x, w);
  std::vector<Value> result;
  for (int64_t t = 0; t < w.taps(); ++t) {
    std::vector<Dim> starts{0, 0}, limits{dims[0], dims[1]};
    std::vector<int64_t> strides{1, 1};
    std::vector<int64_t> position(r);
    for (int64_t i = static_cast<int64_t>(r) - 1, rest = t; i >= 0; --i) {
      position[i] = rest % w.kernel[i];
      rest /= w.kernel[i];
    }
    for (size_t i = 0; i < r; ++i) {
      int64_t start = position[i] * w.dilations[i], s = w.strides[i];
      // start + s*(out - 1) + 1: a slice of exactly `out` elements.
      auto last = SymExpr::mul(w.out[i], SymExpr::constant(s));
      auto limit = last ? SymExpr::add(*last, SymExpr::constant(start - s + 1))
                        : std::nullopt;
      starts.push_back(start);
      limits.push_back(limit ? limit->toString() : "?");
      strides.push_back(s);
    }
    result.push_back(n.b.slice(x, starts, limits, strides));
  }
  return result;
}

std::vector<Dim> outputDims(Node &n, Value x, const Window &w, Dim channels) {
  std::vector<Dim> dims{n.dims(x)[0], std::move(channels)};
  for (const SymExpr &o : w.out)
    dims.push_back(o.toString());
  return dims;
}

/// The spatial kernel of weights [M, C/group, k...], which must be static.
StatusOr<std::vector<int64_t>> staticDims(Node &n, Value v,
                                          const std::string &what) {
  std::vector<int64_t> sizes;
  for (const Dim &d : n.dims(v)) {
    std::optional<int64_t> size = dimNumber(d.text());
    if (!size)
      return n.error(what + " must have static sizes, not " + d.text());
    sizes.push_back(*size);
  }
  return sizes;
}

/// The convolution of `x` ([N, C, spatial...], padded as `win` says) with
/// `weights` ([M, C/group, k...]) over `win`, composed: for the element
/// types the wire convolution does not take (f16, bf16).
Value composedConvolution(Node &n, Value x, Value weights, int64_t group,
                          const Window &win) {
  std::vector<Dim> wdims = n.dims(weights);
  int64_t m = *dimNumber(wdims[0].text()),
          perGroup = *dimNumber(wdims[1].text());
  std::vector<Value> parts =
      taps(n, padded(n, x, win, n.b.scalar(0.0, n.b.dtype(x))), win);
  // Patches [N, group, C/group * taps, out...]: channel-major, then taps,
  // as the weights [M, C/group, k...] flatten.
  std::vector<Dim> tapDims = n.dims(parts[0]);
  std::vector<Dim> stacked = tapDims;
  stacked.insert(stacked.begin() + 2, Dim(1));
  for (Value &part : parts)
    part = n.b.reshape(part, stacked);
  Value patches =
      parts.size() == 1 ? parts[0] : n.b.concatenate(parts, /*dimension=*/2);
  int64_t t = win.taps(), r = static_cast<int64_t>(win.kernel.size());
  std::vector<Dim> grouped{tapDims[0], group, perGroup * t};
  grouped.insert(grouped.end(), tapDims.begin() + 2, tapDims.end());
  patches = n.b.reshape(patches, grouped);
  Value kernelMatrix = n.b.reshape(weights, {group, m / group, perGroup * t});
  // [group, M/group, N, out...] -> [N, group, M/group, out...] -> [N, M, ...]
  Value y = n.b.dotGeneral(kernelMatrix, patches, {0}, {1}, {2}, {2});
  std::vector<int64_t> order{2, 0, 1};
  for (int64_t i = 0; i < r; ++i)
    order.push_back(3 + i);
  return n.b.reshape(n.b.transpose(y, order), outputDims(n, x, win, m));
}

// The shared pieces below are described in OnnxConvolution.h.

Status checkComposable(Node &n, Value x, const Window &win) {
  if (n.b.dtype(x) != v1::DTYPE_F32 && win.taps() > 4096)
    return n.error("a kernel of " + std::to_string(win.taps()) +
                   " taps is beyond the 4096 the composition of a " +
                   "non-f32 convolution takes");
  return Status::ok();
}

Value convolve(Node &n, Value x, Value weights, int64_t group,
               const Window &win, Value bias) {
  int64_t m = *dimNumber(n.dims(weights)[0].text());
  std::vector<Dim> dims = outputDims(n, x, win, m);
  Value y;
  if (n.b.dtype(x) == v1::DTYPE_F32 && n.b.dtype(weights) == v1::DTYPE_F32) {
    y = n.b.convolution(x, weights, win.strides, win.dilations, win.padLow,
                        win.padHigh, group);
    std::vector<Dim> made = n.dims(y);
    if (!std::equal(
            made.begin(), made.end(), dims.begin(), dims.end(),
            [](const Dim &a, const Dim &b) { return a.text() == b.text(); }))
      y = n.b.reshape(y, dims);
  } else {
    y = composedConvolution(n, x, weights, group, win);
  }
  if (bias.isValid())
    y = n.b.add(y, n.b.broadcastInDim(bias, n.dims(y), {1}));
  return y;
}

StatusOr<std::vector<int64_t>> checkedWeights(Node &n, Value x, Value weights,
                                              int64_t group, int channelsAt) {
  int64_t rank = n.rank(x);
  if (rank < 3 || n.rank(weights) != rank)
    return n.error("needs an input [N, C, spatial...] and weights of its "
                   "rank, not ranks " +
                   std::to_string(rank) + " and " +
                   std::to_string(n.rank(weights)));
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<int64_t> w,
                            staticDims(n, weights, "the weights"));
  Dim c = n.dims(x)[1];
  std::optional<int64_t> channels = dimNumber(c.text());
  // Both weights layouts put what the groups split first.
  int64_t expected = channelsAt == 1 ? w[1] * group : w[0];
  if (group < 1 || w[0] % group != 0)
    return n.error("group " + std::to_string(group) + " does not divide the " +
                   std::to_string(w[0]) + " channels of the weights");
  if (!channels || *channels != expected)
    return n.error("input channels " + c.text() + " do not match the " +
                   std::to_string(expected) + " of the weights");
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  if (auto given = n.attrInts("kernel_shape"); given && *given != kernel)
    return n.error("kernel_shape does not match the weights");
  return w;
}

Status conv(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value weights, n.input(1));
  int64_t group = n.attrInt("group", 1);
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<int64_t> w,
                            checkedWeights(n, x, weights, group, 1));
  std::vector<Dim> dims = n.dims(x);
  ANYSHAPE_ASSIGN_OR_RETURN(
      Window win,
      windowOf(n, std::vector<Dim>(dims.begin() + 2, dims.end()),
               std::vector<int64_t>(w.begin() + 2, w.end()), /*pool=*/false));
  ANYSHAPE_RETURN_IF_ERROR(checkComposable(n, x, win));
  Value bias = n.inputs.size() > 2 ? n.inputs[2] : Value();
  return n.define(convolve(n, x, weights, group, win, bias));
}

enum class PoolKind { Max, Average };

/// `w` along spatial dim `i` alone, over `y` as it is now (its other
/// spatial dims pooled already or not yet): dim i's kernel, stride,
/// dilation, pads and output size; a window of one everywhere else.
StatusOr<Window> alongDim(Node &n, Value y, const Window &w, size_t i) {
  std::vector<Dim> dims = n.dims(y);
  Window one;
  for (size_t j = 0; j < w.kernel.size(); ++j) {
    bool here = j == i;
    std::optional<SymExpr> size = symExpr(dims[2 + j].text());
    if (!here && !size)
      return n.error("spatial dim " + std::to_string(j) + " (" +
                     dims[2 + j].text() + ") has no size expression");
    one.kernel.push_back(here ? w.kernel[j] : 1);
    one.strides.push_back(here ? w.strides[j] : 1);
    one.dilations.push_back(here ? w.dilations[j] : 1);
    one.padLow.push_back(here ? w.padLow[j] : 0);
    one.padHigh.push_back(here ? w.padHigh[j] : 0);
    one.out.push_back(here ? w.out[j] : *size);
  }
  return one;
}

/// Windows of more taps than this, overlapping, are combined by doubling.
constexpr int64_t kMostTapsOneByOne = 16;

/// `x` (padded) pooled along spatial dim `i` by `one` where the windows
/// overlap or skip: blocks of 1, 2, 4, ... window positions, each the
/// combination of two halves of the one before (`dilation` apart per
/// position), and each window the blocks of k's binary digits, so k taps
/// cost about 2 log2(k) ops, not k. Every piece starts at a window's first
/// position p and spans the (out - 1) * stride + 1 positions the windows
/// start at; a strided slice then keeps those.
StatusOr<Value> slidingWindows(Node &n, Value x, const Window &one, size_t i,
                               PoolKind kind) {
  int64_t k = one.kernel[i], d = one.dilations[i], s = one.strides[i];
  auto combine = [&](Value a, Value b) {
    return kind == PoolKind::Max ? n.b.max(a, b) : n.b.add(a, b);
  };
  std::optional<SymExpr> spread =
      SymExpr::mul(one.out[i], SymExpr::constant(s));
  std::optional<SymExpr> starts =
      spread ? SymExpr::add(*spread, SymExpr::constant(1 - s)) : std::nullopt;
  if (!starts)
    return n.error("the window starts along spatial dim " + std::to_string(i) +
                   " overflow");
  auto along = [&](Value v, int64_t from, std::optional<SymExpr> length,
                   int64_t step = 1) -> StatusOr<Value> {
    std::vector<Dim> dims = n.dims(v);
    std::optional<SymExpr> to =
        length ? SymExpr::add(*length, SymExpr::constant(from)) : std::nullopt;
    if (!to)
      return n.error("a window bound along spatial dim " + std::to_string(i) +
                     " overflows");
    std::vector<Dim> lo(dims.size(), Dim(0)), hi = dims;
    std::vector<int64_t> steps(dims.size(), 1);
    lo[2 + i] = from;
    hi[2 + i] = to->toString();
    steps[2 + i] = step;
    return n.b.slice(v, lo, hi, steps);
  };
  checkOneWindow(n, x, one);
  Value block = x; // each position: the combination of `m` positions from it
  std::optional<Value> windows;
  int64_t done = 0; // window positions the pieces combined so far cover
  for (int64_t m = 1; m <= k; m *= 2) {
    if (k & m) {
      ANYSHAPE_ASSIGN_OR_RETURN(Value piece, along(block, done * d, starts));
      windows = windows ? combine(*windows, piece) : piece;
      done += m;
    }
    if (2 * m > k)
      break;
    std::optional<SymExpr> length = symExpr(n.dims(block)[2 + i].text());
    std::optional<SymExpr> shorter =
        length ? SymExpr::sub(*length, SymExpr::constant(m * d)) : std::nullopt;
    ANYSHAPE_ASSIGN_OR_RETURN(Value first, along(block, 0, shorter));
    ANYSHAPE_ASSIGN_OR_RETURN(Value second, along(block, m * d, shorter));
    block = combine(first, second);
  }
  return along(*windows, 0, starts, s);
}

/// `x` (padded) pooled along spatial dim `i` by `one` (alongDim): a max
/// or a sum. Where the windows tile it (stride = kernel, no dilation:
/// PyTorch's default pools), the extent they cover split [out, k] and one
/// reduction over k, whatever k is; otherwise the taps, or for a large
/// window slidingWindows.
StatusOr<Value> poolAlong(Node &n, Value x, const Window &one, size_t i,
                          PoolKind kind) {
  int64_t k = one.kernel[i];
  if ((one.strides[i] != k || one.dilations[i] != 1) && k > kMostTapsOneByOne)
    return slidingWindows(n, x, one, i, kind);
  if (one.strides[i] != k || one.dilations[i] != 1) {
    std::vector<Value> parts = taps(n, x, one);
    Value y = parts[0];
    for (size_t t = 1; t < parts.size(); ++t)
      y = kind == PoolKind::Max ? n.b.max(y, parts[t]) : n.b.add(y, parts[t]);
    return y;
  }
  checkOneWindow(n, x, one);
  std::optional<SymExpr> covered =
      SymExpr::mul(one.out[i], SymExpr::constant(k));
  if (!covered)
    return n.error("the extent pooled along spatial dim " + std::to_string(i) +
                   " overflows");
  std::vector<Dim> dims = n.dims(x);
  std::vector<Dim> origin(dims.size(), Dim(0)), limits = dims;
  limits[2 + i] = covered->toString();
  std::vector<Dim> split(dims.begin(), dims.begin() + 2 + i);
  split.push_back(one.out[i].toString());
  split.push_back(k);
  split.insert(split.end(), dims.begin() + 3 + i, dims.end());
  Value tiles = n.b.reshape(n.b.slice(x, origin, limits), split);
  return n.b.reduce(tiles, {static_cast<int64_t>(3 + i)},
                    kind == PoolKind::Max ? client::Reduction::Max
                                          : client::Reduction::Sum);
}

Status pool(Node &n, PoolKind kind) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  if (n.proto.output_size() > 1 && !n.proto.output(1).empty())
    return n.error("the Indices output of MaxPool is not supported");
  if (n.rank(x) < 3)
    return n.error("needs an input [N, C, spatial...]");
  std::optional<std::vector<int64_t>> kernel = n.attrInts("kernel_shape");
  std::vector<Dim> dims = n.dims(x);
  if (!kernel || kernel->size() != dims.size() - 2)
    return n.error("needs a kernel_shape with one size per spatial dim");
  ANYSHAPE_ASSIGN_OR_RETURN(
      Window win, windowOf(n, std::vector<Dim>(dims.begin() + 2, dims.end()),
                           *kernel, /*pool=*/true));
  v1::DType dtype = n.b.dtype(x);
  if (dtype == v1::DTYPE_BOOL)
    return n.error("pools take numbers, not bool");
  // Max and sum pools are separable: one spatial dim at a time, the
  // kernel's sizes summed rather than multiplied (a 64x64 window is 128
  // taps, not 4,096; EfficientNet's 1280x1280 global pool is two
  // reductions).
  Value fill = kind == PoolKind::Max
                   ? n.b.scalar(dtype == v1::DTYPE_I64
                                    ? static_cast<double>(
                                          std::numeric_limits<int64_t>::min())
                                : dtype == v1::DTYPE_I32
                                    ? std::numeric_limits<int32_t>::min()
                                    : -INFINITY, // padding never wins a max
                                dtype)
                   : n.b.scalar(0.0, dtype);
  Value y = x;
  for (size_t i = 0; i < win.kernel.size(); ++i) {
    ANYSHAPE_ASSIGN_OR_RETURN(Window one, alongDim(n, y, win, i));
    ANYSHAPE_ASSIGN_OR_RETURN(
        y, poolAlong(n, padded(n, y, one, fill), one, i, kind));
  }
  if (kind == PoolKind::Max)
    return n.define(y);
  // Divided by the count of what each window covers: the input only, or
  // with count_include_pad the explicit pads too, never ceil_mode's
  // overhang. Per dim the same pool over ones, the padding filled so, and
  // the count the product of the dims' counts.
  bool overhang = n.attrInt("ceil_mode", 0) != 0;
  bool includePad = n.attrInt("count_include_pad", 0) != 0;
  Value one = n.b.scalar(1.0, dtype), zero = n.b.scalar(0.0, dtype);
  std::vector<Dim> outDims = n.dims(y);
  std::optional<Value> count;
  for (size_t i = 0; i < win.kernel.size(); ++i) {
    std::vector<Dim> line(dims.size(), Dim(1));
    line[2 + i] = dims[2 + i];
    Value ones = n.b.broadcastInDim(one, line, {});
    ANYSHAPE_ASSIGN_OR_RETURN(Window along, alongDim(n, ones, win, i));
    Window explicitPads = along, overhangOnly = along;
    explicitPads.padHigh[i] -= overhang ? win.strides[i] - 1 : 0;
    overhangOnly.padLow[i] = 0;
    overhangOnly.padHigh[i] = along.padHigh[i] - explicitPads.padHigh[i];
    ones = padded(n, ones, explicitPads, includePad ? one : zero);
    ones = padded(n, ones, overhangOnly, zero);
    ANYSHAPE_ASSIGN_OR_RETURN(Value counted,
                              poolAlong(n, ones, along, i, PoolKind::Average));
    std::vector<int64_t> all(dims.size());
    for (size_t d = 0; d < all.size(); ++d)
      all[d] = static_cast<int64_t>(d);
    counted = n.b.broadcastInDim(counted, outDims, all);
    count = count ? n.b.mul(*count, counted) : counted;
  }
  return n.define(n.b.div(y, *count));
}

/// Global pools: over every spatial dim, kept as size-1 dims.
Status globalPool(Node &n, PoolKind kind) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  std::vector<Dim> dims = n.dims(x);
  if (dims.size() < 3)
    return n.error("needs an input [N, C, spatial...]");
  std::vector<int64_t> spatial;
  std::vector<Dim> kept{dims[0], dims[1]};
  for (size_t d = 2; d < dims.size(); ++d) {
    spatial.push_back(static_cast<int64_t>(d));
    kept.push_back(1);
  }
  Value y = n.b.reduce(x, spatial,
                       kind == PoolKind::Max ? client::Reduction::Max
                                             : client::Reduction::Sum);
  if (kind == PoolKind::Average)
    y = n.b.div(y, elementCount(n, x, spatial));
  return n.define(n.b.reshape(y, kept));
}

} // namespace anyshape::onnx::convolution

namespace anyshape::onnx {

using namespace convolution;

void addConvRules(std::map<std::string, OpRule> &rules) {
  const std::set<std::string> window = {"auto_pad", "dilations", "pads",
                                        "strides", "kernel_shape"};
  auto with = [&](std::set<std::string> more) {
    more.insert(window.begin(), window.end());
    return more;
  };
  rules["Conv"] = {with({"group"}), conv};
  rules["MaxPool"] = {with({"ceil_mode", "storage_order"}),
                      [](Node &n) { return pool(n, PoolKind::Max); }};
  rules["AveragePool"] = {with({"ceil_mode", "count_include_pad"}),
                          [](Node &n) { return pool(n, PoolKind::Average); }};
  rules["GlobalMaxPool"] = {
      {}, [](Node &n) { return globalPool(n, PoolKind::Max); }};
  rules["GlobalAveragePool"] = {
      {}, [](Node &n) { return globalPool(n, PoolKind::Average); }};
}

} // namespace anyshape::onnx

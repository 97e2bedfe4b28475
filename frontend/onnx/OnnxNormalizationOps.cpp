// The normalisations: per channel (BatchNormalization, with running
// statistics; InstanceNormalization and GroupNormalization, over each
// sample's spatial positions), over trailing dims (LayerNormalization and
// RMSNormalization, from `axis` to the last, with LayerNormalization's
// mean and inverse deviation as outputs when asked), and by a norm
// (LpNormalization). Each is composed of reductions and elementwise ops,
// which fusion makes one row kernel where the dims allow.
#include "frontend/onnx/OnnxNode.h"
#include "ir/graph/DType.h"

#include "ir/graph/DimText.h"

#include <algorithm>

namespace anyshape::onnx {
namespace {

/// `v` ([C]) broadcast along dim 1 of `like`.
Value perChannel(Node &n, Value v, Value like) {
  return n.b.broadcastInDim(v, n.dims(like), {1});
}

Status batchNormalization(Node &n) {
  if (n.attrInt("training_mode", 0) != 0)
    return n.error("training_mode is not supported (inference only)");
  for (int k = 1; k < n.proto.output_size(); ++k)
    if (!n.proto.output(k).empty())
      return n.error("the running mean and variance outputs (training) are "
                     "not supported");
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  if (n.rank(x) < 2)
    return n.error("needs an input [N, C, ...]");
  std::vector<Value> params;
  for (size_t k = 1; k <= 4; ++k) {
    ANYSHAPE_ASSIGN_OR_RETURN(Value p, n.input(k));
    if (n.rank(p) != 1)
      return n.error("input " + std::to_string(k) + " must be [C]");
    params.push_back(p);
  }
  v1::DType dtype = n.b.dtype(x);
  // y = (x - mean) * scale / sqrt(var + epsilon) + bias, the per-channel
  // factor computed once on [C].
  Value factor = n.b.mul(
      params[0],
      n.b.rsqrt(n.b.add(params[3],
                        n.b.scalar(n.attrFloat("epsilon", 1e-5f), dtype))));
  Value centered = n.b.sub(x, perChannel(n, params[2], x));
  return n.define(n.b.add(n.b.mul(centered, perChannel(n, factor, x)),
                          perChannel(n, params[1], x)));
}

/// Normalises x over `dims` (kept as size-1 dims, then broadcast back).
Value normalized(Node &n, Value x, const std::vector<int64_t> &dims,
                 float epsilon) {
  std::vector<Dim> shape = n.dims(x);
  v1::DType dtype = n.b.dtype(x);
  Value count = elementCount(n, x, dims);
  std::vector<int64_t> keptDims;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end())
      keptDims.push_back(d);
  auto back = [&](Value reduced) {
    return n.b.broadcastInDim(reduced, shape, keptDims);
  };
  Value mean =
      back(n.b.div(n.b.reduce(x, dims, client::Reduction::Sum), count));
  Value centered = n.b.sub(x, mean);
  Value variance = n.b.div(
      n.b.reduce(n.b.mul(centered, centered), dims, client::Reduction::Sum),
      count);
  return n.b.mul(
      centered, back(n.b.rsqrt(n.b.add(variance, n.b.scalar(epsilon, dtype)))));
}

Status instanceNormalization(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value scale, n.input(1));
  ANYSHAPE_ASSIGN_OR_RETURN(Value bias, n.input(2));
  if (n.rank(x) < 3 || n.rank(scale) != 1 || n.rank(bias) != 1)
    return n.error("needs an input [N, C, spatial...] and [C] scale and bias");
  std::vector<int64_t> spatial;
  for (int64_t d = 2; d < n.rank(x); ++d)
    spatial.push_back(d);
  Value y = normalized(n, x, spatial, n.attrFloat("epsilon", 1e-5f));
  return n.define(
      n.b.add(n.b.mul(y, perChannel(n, scale, x)), perChannel(n, bias, x)));
}

/// GroupNormalization: the channels in `num_groups` groups, each group's
/// elements (its channels and every spatial position) normalised together
/// (x viewed as [N, G, rest]), then a per-channel scale and bias (opset
/// 21's [C]; opset 18's per-group [G] is spread over each group's
/// channels).
Status groupNormalization(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value scale, n.input(1));
  ANYSHAPE_ASSIGN_OR_RETURN(Value bias, n.input(2));
  int64_t groups = n.attrInt("num_groups", 0);
  std::vector<Dim> dims = n.dims(x);
  std::optional<int64_t> channels =
      dims.size() >= 2 ? dimNumber(dims[1].text()) : std::nullopt;
  if (dims.size() < 3 || n.rank(scale) != 1 || n.rank(bias) != 1)
    return n.error("needs an input [N, C, spatial...] and 1-D scale and bias");
  if (!channels || groups < 1 || *channels % groups)
    return n.error("num_groups " + std::to_string(groups) +
                   " must divide the static channel count " + dims[1].text());
  std::vector<Value> params = {scale, bias};
  for (Value &p : params) {
    std::optional<int64_t> size = dimNumber(n.dims(p)[0].text());
    if (size == groups && groups != *channels) // per group: to each channel
      p = n.b.reshape(
          n.b.broadcastInDim(p, {Dim(groups), Dim(*channels / groups)}, {0}),
          {Dim(*channels)});
    else if (size != *channels)
      return n.error("scale and bias must have C = " +
                     std::to_string(*channels) + " or num_groups entries");
  }
  Value grouped = n.b.reshape(x, {dims[0], Dim(groups), Dim(-1)});
  Value y = n.b.reshape(
      normalized(n, grouped, {2}, n.attrFloat("epsilon", 1e-5f)), dims);
  return n.define(n.b.add(n.b.mul(y, perChannel(n, params[0], x)),
                          perChannel(n, params[1], x)));
}

/// LpNormalization: x divided by its L1 or L2 norm along `axis`; a row
/// of zeros stays zero, as the spec defines it (not 0 / 0).
Status lpNormalization(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  if (!isFloatDType(n.b.dtype(x)))
    return n.error("needs a floating-point input");
  ANYSHAPE_ASSIGN_OR_RETURN(int64_t axis,
                            n.axis(n.attrInt("axis", -1), n.rank(x)));
  int64_t p = n.attrInt("p", 2);
  if (p != 1 && p != 2)
    return n.error("p = " + std::to_string(p) + " is not 1 or 2");
  Value terms = p == 1 ? n.b.abs(x) : n.b.mul(x, x);
  Value norm = n.b.reduce(terms, {axis}, client::Reduction::Sum);
  if (p == 2)
    norm = n.b.sqrt(norm);
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < n.rank(x); ++d)
    if (d != axis)
      kept.push_back(d);
  v1::DType type = n.b.dtype(x); // a zero row divided by 1 stays zero
  Value zero = n.b.compare(norm, n.b.scalar(0.0, type), client::Comparison::Eq);
  Value one = n.b.broadcastInDim(n.b.scalar(1.0, type), n.dims(norm), {});
  norm = n.b.select(zero, one, norm);
  return n.define(n.b.div(x, n.b.broadcastInDim(norm, n.dims(x), kept)));
}

/// `reduced` (x's dims before `axis`) broadcast back over x.
Value backOver(Node &n, Value reduced, Value x, int64_t axis) {
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < axis; ++d)
    kept.push_back(d);
  return n.b.broadcastInDim(reduced, n.dims(x), kept);
}

/// `reduced` (x's dims before `axis`) with x's later dims as 1s: the
/// shape of LayerNormalization's mean and inverse-deviation outputs.
Value keptAsOnes(Node &n, Value reduced, Value x, int64_t axis) {
  std::vector<Dim> dims = n.dims(x);
  for (size_t d = static_cast<size_t>(axis); d < dims.size(); ++d)
    dims[d] = Dim(1);
  return n.b.reshape(reduced, dims);
}

/// The scale or bias of a normalisation over x's dims from `axis`, which
/// ONNX lets broadcast to them (numpy's rules, aligned on the right).
StatusOr<Value> trailingParameter(Node &n, size_t input, Value x,
                                  int64_t axis) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value p, n.input(input));
  if (n.rank(p) > n.rank(x) - axis)
    return n.error("input " + std::to_string(input) + " (" + n.b.typeString(p) +
                   ") has more dims than the " +
                   std::to_string(n.rank(x) - axis) + " it normalises over");
  return p;
}

/// `v` in `like`'s element type.
Value sameType(Node &n, Value v, Value like) {
  return n.b.dtype(v) == n.b.dtype(like) ? v : n.b.convert(v, n.b.dtype(like));
}

/// `x` in the type its statistics are computed in: float32 where
/// `stash_type` says so (1, the default) of a narrower float, as ONNX
/// Runtime computes them; otherwise x's own.
StatusOr<Value> stashed(Node &n, Value x) {
  std::optional<v1::DType> stash =
      wireDType(static_cast<int32_t>(n.attrInt("stash_type", 1)));
  if (stash != v1::DTYPE_F32 && stash != n.b.dtype(x))
    return n.error("stash_type " + std::to_string(n.attrInt("stash_type", 1)) +
                   " is neither float (1) nor the input's type");
  return stash == n.b.dtype(x) ? x : n.b.convert(x, *stash);
}

/// What LayerNormalization and RMSNormalization share: the input, x (the
/// input in the type its statistics are computed in), the dims from
/// `axis` to the last, which they normalise over, and the scale.
struct Trailing {
  Value input, x, scale;
  int64_t axis = 0;
  std::vector<int64_t> dims;
};

StatusOr<Trailing> trailing(Node &n) {
  Trailing t;
  ANYSHAPE_ASSIGN_OR_RETURN(t.input, n.input(0));
  if (!isFloatDType(n.b.dtype(t.input)))
    return n.error("needs a floating-point input");
  ANYSHAPE_ASSIGN_OR_RETURN(t.axis,
                            n.axis(n.attrInt("axis", -1), n.rank(t.input)));
  ANYSHAPE_ASSIGN_OR_RETURN(t.scale, trailingParameter(n, 1, t.input, t.axis));
  ANYSHAPE_ASSIGN_OR_RETURN(t.x, stashed(n, t.input));
  for (int64_t d = t.axis; d < n.rank(t.input); ++d)
    t.dims.push_back(d);
  return t;
}

/// LayerNormalization over the dims from `axis`: (x - mean) * inverse
/// deviation * scale + bias, with the mean and the inverse deviation as
/// outputs 1 and 2 when the node names them.
Status layerNormalization(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Trailing t, trailing(n));
  Value x = t.x;
  int64_t axis = t.axis;
  const std::vector<int64_t> &dims = t.dims;
  v1::DType dtype = n.b.dtype(x);
  Value count = elementCount(n, x, dims);
  Value mean = n.b.div(n.b.reduce(x, dims, client::Reduction::Sum), count);
  Value centered = n.b.sub(x, backOver(n, mean, x, axis));
  Value variance = n.b.div(
      n.b.reduce(n.b.mul(centered, centered), dims, client::Reduction::Sum),
      count);
  Value inverse = n.b.rsqrt(
      n.b.add(variance, n.b.scalar(n.attrFloat("epsilon", 1e-5f), dtype)));
  // Scaled in the input's type, as the spec's function scales it.
  Value y = n.b.mul(
      sameType(n, n.b.mul(centered, backOver(n, inverse, x, axis)), t.input),
      t.scale);
  if (n.inputs.size() > 2 && n.inputs[2].isValid()) {
    ANYSHAPE_ASSIGN_OR_RETURN(Value bias,
                              trailingParameter(n, 2, t.input, axis));
    y = n.b.add(y, bias);
  }
  ANYSHAPE_RETURN_IF_ERROR(n.define(y));
  if (n.proto.output_size() > 1 && !n.proto.output(1).empty())
    ANYSHAPE_RETURN_IF_ERROR(n.define(keptAsOnes(n, mean, x, axis), 1));
  if (n.proto.output_size() > 2 && !n.proto.output(2).empty())
    ANYSHAPE_RETURN_IF_ERROR(n.define(keptAsOnes(n, inverse, x, axis), 2));
  return Status::ok();
}

/// RMSNormalization (opset 23, LLaMA's RMSNorm as the exporter writes
/// it): x / sqrt(mean(x^2) + epsilon) * scale over the dims from `axis`.
Status rmsNormalization(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Trailing t, trailing(n));
  Value x = t.x;
  Value meanSquare =
      n.b.div(n.b.reduce(n.b.mul(x, x), t.dims, client::Reduction::Sum),
              elementCount(n, x, t.dims));
  Value inverse = n.b.rsqrt(n.b.add(
      meanSquare, n.b.scalar(n.attrFloat("epsilon", 1e-5f), n.b.dtype(x))));
  return n.define(
      n.b.mul(sameType(n, n.b.mul(x, backOver(n, inverse, x, t.axis)), t.input),
              t.scale));
}

} // namespace

void addNormalizationRules(std::map<std::string, OpRule> &rules) {
  rules["BatchNormalization"] = {{"epsilon", "momentum", "training_mode"},
                                 batchNormalization};
  rules["InstanceNormalization"] = {{"epsilon"}, instanceNormalization};
  rules["GroupNormalization"] = {{"epsilon", "num_groups", "stash_type"},
                                 groupNormalization};
  rules["LayerNormalization"] = {{"axis", "epsilon", "stash_type"},
                                 layerNormalization};
  rules["RMSNormalization"] = {{"axis", "epsilon", "stash_type"},
                               rmsNormalization};
  rules["LpNormalization"] = {{"axis", "p"}, lpNormalization};
}

} // namespace anyshape::onnx

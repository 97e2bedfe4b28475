// Attention (opset 23): scaled dot-product attention as one node, what
// torch.onnx's exporter writes for scaled_dot_product_attention at opset
// 23. Composed of the ops a decomposed export has (two dot_generals and a
// softmax), so it fuses and runs as those do. Every form the spec gives
// is handled: 3-D inputs split into heads by q_num_heads and kv_num_heads
// or 4-D ones, grouped-query heads (each key/value head serves q_heads /
// kv_heads query heads, without copies: the query heads of a group are
// one batch of the product), a past key and value concatenated before the
// new ones (the present outputs), a boolean or additive mask, causal
// masking aligned bottom-right (query i sees key j iff j <= i + past),
// softcap, softmax_precision and each qk_matmul_output mode. A query row
// every key is masked from gives zeros, not NaN (the spec's errata).
// RotaryEmbedding (opset 23), which the same export writes for rotary
// position embeddings, is here too: the first rotary_embedding_dim lanes
// of each head turned by the angles of its position, in halves or
// interleaved.
#include "frontend/onnx/OnnxNode.h"
#include "ir/graph/DType.h"

#include "ir/graph/DimText.h"

#include <cmath>
#include <limits>

namespace anyshape::onnx {
namespace {

/// [B, S, heads * D] -> [B, heads, S, D].
StatusOr<Value> splitHeads(Node &n, Value t, int64_t heads,
                           const std::string &what) {
  std::vector<Dim> d = n.dims(t);
  std::optional<int64_t> hidden = dimNumber(d[2].text());
  if (heads < 1 || !hidden || *hidden % heads)
    return n.error(what + "'s last dim " + d[2].text() +
                   " is not a static multiple of its " + std::to_string(heads) +
                   " heads");
  return n.b.transpose(
      n.b.reshape(t, {d[0], d[1], Dim(heads), Dim(*hidden / heads)}),
      {0, 2, 1, 3});
}

/// A static head count: dim 1 of a 4-D input.
StatusOr<int64_t> headsOf(Node &n, Value t, const std::string &what) {
  std::optional<int64_t> heads = dimNumber(n.dims(t)[1].text());
  if (!heads || *heads < 1)
    return n.error(what + "'s head count " + n.dims(t)[1].text() +
                   " must be static");
  return *heads;
}

/// Softmax over the last dim where a row may be masked whole (all -inf):
/// such a row gives zeros, not 0 / 0 (the spec's errata), from the
/// softmax's own reductions: its max is taken as 0 and its sum as 1.
Value maskedSoftmax(Node &n, Value x) {
  v1::DType dtype = n.b.dtype(x);
  std::vector<Dim> dims = n.dims(x), rows = dims;
  rows.pop_back();
  std::vector<int64_t> kept;
  for (size_t d = 0; d + 1 < dims.size(); ++d)
    kept.push_back(static_cast<int64_t>(d));
  int64_t last = static_cast<int64_t>(dims.size()) - 1;
  auto where = [&](Value v, double is, double then) {
    Value match = n.b.compare(v, n.b.scalar(is, dtype), client::Comparison::Eq);
    return n.b.select(match,
                      n.b.broadcastInDim(n.b.scalar(then, dtype), rows, {}), v);
  };
  Value top = where(n.b.reduce(x, {last}, client::Reduction::Max),
                    -std::numeric_limits<double>::infinity(), 0);
  Value e = n.b.exp(n.b.sub(x, n.b.broadcastInDim(top, dims, kept)));
  Value sum = where(n.b.reduce(e, {last}, client::Reduction::Sum), 0, 1);
  return n.b.div(e, n.b.broadcastInDim(sum, dims, kept));
}

/// The additive bias of the mask and the causal frontier, [.., S, T]
/// (invalid when neither applies).
StatusOr<Value> attentionBias(Node &n, Value q, Value keys, Value pastKey) {
  v1::DType dtype = n.b.dtype(q);
  double inf = std::numeric_limits<double>::infinity();
  Value bias;
  if (n.inputs.size() > 3 && n.inputs[3].isValid()) {
    Value mask = n.inputs[3];
    if (n.b.dtype(mask) == v1::DTYPE_BOOL) {
      std::vector<Dim> dims = n.dims(mask);
      bias =
          n.b.select(mask, n.b.broadcastInDim(n.b.scalar(0, dtype), dims, {}),
                     n.b.broadcastInDim(n.b.scalar(-inf, dtype), dims, {}));
    } else if (n.b.dtype(mask) == dtype) {
      bias = mask;
    } else {
      return n.error("attn_mask must be bool or of Q's type, not " +
                     n.b.typeString(mask));
    }
    // A mask shorter than the keys hides the rest: the spec pads it with
    // -inf (false). Only where the keys are provably more; a shorter mask
    // the sizes cannot tell is left to broadcast, which checks it.
    std::vector<Dim> dims = n.dims(bias);
    std::optional<SymExpr> total = symExpr(n.dims(keys)[2].text());
    std::optional<SymExpr> given =
        dims.empty() ? std::nullopt : symExpr(dims.back().text());
    std::optional<SymExpr> rest =
        total && given ? SymExpr::sub(*total, *given) : std::nullopt;
    if (rest && rest->isNonNegative() && !(*rest == SymExpr())) {
      dims.back() = Dim(rest->toString());
      bias = n.b.concatenate(
          {bias, n.b.broadcastInDim(n.b.scalar(-inf, dtype), dims, {})},
          static_cast<int64_t>(dims.size()) - 1);
    }
  }
  if (n.attrInt("is_causal", 0) != 0) {
    std::vector<Dim> area = {n.dims(q)[2], n.dims(keys)[2]};
    Value row = n.b.iota(v1::DTYPE_I64, area, 0);
    Value column = n.b.iota(v1::DTYPE_I64, area, 1);
    if (pastKey.isValid())
      row = n.b.add(row, n.b.dimSize(pastKey, 2));
    Value causal =
        n.b.select(n.b.compare(column, row, client::Comparison::Le),
                   n.b.broadcastInDim(n.b.scalar(0, dtype), area, {}),
                   n.b.broadcastInDim(n.b.scalar(-inf, dtype), area, {}));
    bias = bias.isValid() ? n.b.add(bias, causal) : causal;
  }
  return bias;
}

Status attention(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value q, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value k, n.input(1));
  ANYSHAPE_ASSIGN_OR_RETURN(Value v, n.input(2));
  // Opset 24's per-row key counts and 25's sliding windows are not read.
  if (n.proto.input_size() > 6 && !n.proto.input(6).empty())
    return n.error("nonpad_kv_seqlen (opset 24) is not supported");
  for (const char *window : {"left_window_size", "right_window_size"})
    if (n.attrInt(window, -1) != -1)
      return n.error(std::string(window) + " (opset 25) is not supported");
  int64_t rank = n.rank(q);
  if ((rank != 3 && rank != 4) || n.rank(k) != rank || n.rank(v) != rank)
    return n.error("Q, K and V must all be [batch, seq, hidden] or all "
                   "[batch, heads, seq, head_size]");
  v1::DType dtype = n.b.dtype(q);
  if (!isFloatDType(dtype))
    return n.error("needs floating-point Q, K and V");
  int64_t qHeads = 0, kvHeads = 0;
  if (rank == 3) {
    qHeads = n.attrInt("q_num_heads", 0);
    kvHeads = n.attrInt("kv_num_heads", 0);
    ANYSHAPE_ASSIGN_OR_RETURN(q, splitHeads(n, q, qHeads, "Q"));
    ANYSHAPE_ASSIGN_OR_RETURN(k, splitHeads(n, k, kvHeads, "K"));
    ANYSHAPE_ASSIGN_OR_RETURN(v, splitHeads(n, v, kvHeads, "V"));
  } else {
    ANYSHAPE_ASSIGN_OR_RETURN(qHeads, headsOf(n, q, "Q"));
    ANYSHAPE_ASSIGN_OR_RETURN(kvHeads, headsOf(n, k, "K"));
  }
  if (qHeads % kvHeads)
    return n.error(std::to_string(qHeads) + " query heads are not groups of " +
                   std::to_string(kvHeads) + " key/value heads");
  Value pastKey = n.inputs.size() > 4 ? n.inputs[4] : Value();
  Value pastValue = n.inputs.size() > 5 ? n.inputs[5] : Value();
  if (pastKey.isValid() != pastValue.isValid())
    return n.error("past_key and past_value come together or not at all");
  if (pastKey.isValid()) {
    k = n.b.concatenate({pastKey, k}, 2);
    v = n.b.concatenate({pastValue, v}, 2);
  }
  // Dims are read below: every value so far must have been built (a
  // builder error is reported with the node by the importer).
  if (!n.b.status().isOk())
    return Status::ok();

  std::vector<Dim> qd = n.dims(q);
  Dim keys = n.dims(k)[2];
  float scaleAttr =
      n.attrFloat("scale", std::numeric_limits<float>::quiet_NaN());
  Value scale = !std::isnan(scaleAttr)
                    ? n.b.scalar(scaleAttr, dtype)
                    : n.b.rsqrt(n.b.convert(n.b.dimSize(q, 3), dtype));
  // A group's query heads, one batch of the product with its key head.
  Value grouped = n.b.reshape(q, {qd[0], Dim(kvHeads), Dim(-1), qd[3]});
  Value scores =
      n.b.reshape(n.b.dotGeneral(grouped, k, {0, 1}, {0, 1}, {3}, {3}),
                  {qd[0], Dim(qHeads), qd[2], keys});
  scores = n.b.mul(scores, scale);
  if (!n.b.status().isOk()) // Q's and K's head sizes differ
    return Status::ok();
  Value raw = scores;
  float softcap = n.attrFloat("softcap", 0.0f);
  if (softcap > 0) {
    Value cap = n.b.scalar(softcap, dtype);
    scores = n.b.mul(n.b.tanh(n.b.div(scores, cap)), cap);
  }
  Value capped = scores;
  ANYSHAPE_ASSIGN_OR_RETURN(Value bias, attentionBias(n, q, k, pastKey));
  if (bias.isValid())
    scores = n.b.add(scores, bias);
  if (!n.b.status().isOk()) // a mask that does not broadcast to the scores
    return Status::ok();
  Value biased = scores;

  if (const auto *precision = n.attribute("softmax_precision")) {
    std::optional<v1::DType> type =
        wireDType(static_cast<int32_t>(precision->i()));
    if (!type || !isFloatDType(*type))
      return n.error("softmax_precision " + std::to_string(precision->i()) +
                     " is not a floating-point type");
    scores = n.b.convert(scores, *type);
  }
  // A mask may hide a row whole; causal masking alone never does.
  Value probs = n.inputs.size() > 3 && n.inputs[3].isValid()
                    ? maskedSoftmax(n, scores)
                    : n.b.softmax(scores, -1);
  if (n.b.dtype(probs) != dtype)
    probs = n.b.convert(probs, dtype);
  Value context = n.b.reshape(
      n.b.dotGeneral(n.b.reshape(probs, {qd[0], Dim(kvHeads), Dim(-1), keys}),
                     v, {0, 1}, {0, 1}, {3}, {2}),
      {qd[0], Dim(qHeads), qd[2], n.dims(v)[3]});
  if (rank == 3)
    context = n.b.reshape(n.b.transpose(context, {0, 2, 1, 3}),
                          {qd[0], qd[2], Dim(-1)});

  ANYSHAPE_RETURN_IF_ERROR(n.define(context));
  auto named = [&](int k) {
    return n.proto.output_size() > k && !n.proto.output(k).empty();
  };
  if (named(1))
    ANYSHAPE_RETURN_IF_ERROR(n.define(k, 1));
  if (named(2))
    ANYSHAPE_RETURN_IF_ERROR(n.define(v, 2));
  if (named(3)) {
    int64_t mode = n.attrInt("qk_matmul_output_mode", 0);
    if (mode < 0 || mode > 3)
      return n.error("qk_matmul_output_mode " + std::to_string(mode) +
                     " is not 0-3");
    Value modes[] = {raw, capped, biased, probs};
    ANYSHAPE_RETURN_IF_ERROR(n.define(modes[mode], 3));
  }
  return Status::ok();
}

/// The lanes [from, to) of x's last dim, every `step`th.
Value lanes(Node &n, Value x, int64_t from, int64_t to, int64_t step = 1) {
  std::vector<Dim> starts(n.dims(x).size(), Dim(0)), limits = n.dims(x);
  if (starts.empty()) // x was not built: the builder's error says why
    return Value();
  std::vector<int64_t> strides(starts.size(), 1);
  starts.back() = Dim(from);
  limits.back() = Dim(to);
  strides.back() = step;
  return n.b.slice(x, starts, limits, strides);
}

/// RotaryEmbedding: x ([B, heads, S, D], or [B, S, heads * D] with
/// num_heads) with the first R lanes of each head (rotary_embedding_dim,
/// all D by default) rotated: pairs (x1, x2), the two halves of the R lanes
/// or (interleaved) their even and odd lanes, become (cos x1 - sin x2,
/// sin x1 + cos x2), cos and sin [B, S, R/2] or, with position_ids [B, S],
/// the caches' rows at those positions.
Status rotaryEmbedding(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value input, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value cos, n.input(1));
  ANYSHAPE_ASSIGN_OR_RETURN(Value sin, n.input(2));
  int64_t rank = n.rank(input);
  if (rank != 3 && rank != 4)
    return n.error("needs an input [batch, heads, seq, head_size] or "
                   "[batch, seq, hidden]");
  Value x = input;
  std::vector<Dim> dims = n.dims(input);
  if (rank == 3) {
    ANYSHAPE_ASSIGN_OR_RETURN(
        x, splitHeads(n, input, n.attrInt("num_heads", 0), "the input"));
  }
  if (!n.b.status().isOk()) // reported with the node by the importer
    return Status::ok();
  std::optional<int64_t> head = dimNumber(n.dims(x).back().text());
  int64_t rotary = n.attrInt("rotary_embedding_dim", 0);
  if (!head)
    return n.error("needs a static head size, not " + n.dims(x).back().text());
  if (rotary == 0)
    rotary = *head;
  if (rotary < 2 || rotary % 2 || rotary > *head)
    return n.error("rotary_embedding_dim " + std::to_string(rotary) +
                   " is not an even size up to the head size " +
                   std::to_string(*head));
  if (n.inputs.size() > 3 && n.inputs[3].isValid()) {
    Value positions = n.inputs[3];
    if (n.rank(positions) != 2 || n.rank(cos) != 2 || n.rank(sin) != 2)
      return n.error("with position_ids [batch, seq], the caches must be "
                     "[positions, rotary_embedding_dim / 2]");
    std::string what = describe(n.proto, n.index);
    cos = n.b.gather(cos, n.b.checkIndex(positions, cos, 0, false, what), 0);
    sin = n.b.gather(sin, n.b.checkIndex(positions, sin, 0, false, what), 0);
  } else if (n.rank(cos) != 3 || n.rank(sin) != 3) {
    return n.error("without position_ids, the caches must be [batch, seq, "
                   "rotary_embedding_dim / 2]");
  }
  // [B, S, R/2] over [B, heads, S, R/2].
  std::vector<Dim> half = n.dims(x);
  half.back() = Dim(rotary / 2);
  cos = n.b.broadcastInDim(cos, half, {0, 2, 3});
  sin = n.b.broadcastInDim(sin, half, {0, 2, 3});
  if (!n.b.status().isOk()) // caches of another shape: reported with the node
    return Status::ok();
  bool interleaved = n.attrInt("interleaved", 0) != 0;
  Value x1 = interleaved ? lanes(n, x, 0, rotary, 2)
                         : lanes(n, x, 0, rotary / 2),
        x2 = interleaved ? lanes(n, x, 1, rotary, 2)
                         : lanes(n, x, rotary / 2, rotary);
  Value real = n.b.sub(n.b.mul(cos, x1), n.b.mul(sin, x2));
  Value imag = n.b.add(n.b.mul(sin, x1), n.b.mul(cos, x2));
  Value turned;
  if (interleaved) {
    std::vector<Dim> pairs = half;
    pairs.push_back(Dim(1));
    std::vector<Dim> rotated = half;
    rotated.back() = Dim(rotary);
    turned = n.b.reshape(
        n.b.concatenate({n.b.reshape(real, pairs), n.b.reshape(imag, pairs)},
                        4),
        rotated);
  } else {
    turned = n.b.concatenate({real, imag}, 3);
  }
  if (rotary < *head)
    turned = n.b.concatenate({turned, lanes(n, x, rotary, *head)}, 3);
  if (rank == 3)
    turned = n.b.reshape(n.b.transpose(turned, {0, 2, 1, 3}), dims);
  return n.define(turned);
}

} // namespace

void addAttentionRules(std::map<std::string, OpRule> &rules) {
  rules["Attention"] = {{"is_causal", "kv_num_heads", "q_num_heads",
                         "qk_matmul_output_mode", "scale", "softcap",
                         "softmax_precision", "left_window_size",
                         "right_window_size"},
                        attention};
  rules["RotaryEmbedding"] = {
      {"interleaved", "num_heads", "rotary_embedding_dim"}, rotaryEmbedding};
}

} // namespace anyshape::onnx

// Composite layers of the builder. They emit primitives only, spelled the
// way frameworks spell them, so that the compiler (not the builder) is what
// makes them fast: softmax and layer_norm become reduce + broadcast chains
// that fusion must turn back into one pass per row.
#include "BuilderState.h"

#include <cmath>

namespace anyshape::client {
namespace {

int64_t normaliseAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> allBut(int64_t rank, int64_t axis) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      dims.push_back(d);
  return dims;
}

} // namespace

Value GraphBuilder::matmul(Value x, Value w) {
  int64_t rx = rank(x), rw = rank(w);
  if (!state_->usable({x, w}))
    return Value();
  if (rw == 2 && rx >= 1)
    return dotGeneral(x, w, {}, {}, {rx - 1}, {0});
  if (rx == rw && rx >= 3) {
    std::vector<int64_t> batch;
    for (int64_t d = 0; d < rx - 2; ++d)
      batch.push_back(d);
    return dotGeneral(x, w, batch, batch, {rx - 1}, {rw - 2});
  }
  state_->fail(invalidArgument("matmul: unsupported ranks " + typeString(x) +
                               " @ " + typeString(w)));
  return Value();
}

Value GraphBuilder::linear(Value x, Value w, Value bias) {
  return add(matmul(x, w), bias);
}

/// `reduced` (x reduced over `axis`) broadcast back to x's shape.
static Value expandAlong(GraphBuilder::State &s, Value reduced, Value like,
                         int64_t axis) {
  if (!s.usable({reduced, like}))
    return Value();
  return s.broadcastTo(reduced, s.type(like).dims,
                       allBut(s.type(like).rank(), axis));
}

Value GraphBuilder::softmax(Value x, int64_t axis) {
  axis = normaliseAxis(axis, rank(x));
  Value rowMax = reduce(x, {axis}, Reduction::Max);
  Value shifted = sub(x, expandAlong(*state_, rowMax, x, axis));
  Value e = exp(shifted);
  Value rowSum = reduce(e, {axis}, Reduction::Sum);
  return div(e, expandAlong(*state_, rowSum, e, axis));
}

Value GraphBuilder::layerNorm(Value x, Value gamma, Value beta,
                              double epsilon) {
  if (!state_->usable({x, gamma, beta}))
    return Value();
  int64_t axis = rank(x) - 1;
  DType type = dtype(x);
  // The row length as a value of x's dtype: a constant when static.
  const SymExpr &length = state_->type(x).dims[axis];
  Value n = length.isConstant()
                ? scalar(static_cast<double>(*length.constantValue()), type)
                : convert(dimSize(x, axis), type);
  Value mean = div(reduce(x, {axis}, Reduction::Sum), n);
  Value centered = sub(x, expandAlong(*state_, mean, x, axis));
  Value variance =
      div(reduce(mul(centered, centered), {axis}, Reduction::Sum), n);
  Value inverse = rsqrt(add(variance, scalar(epsilon, type)));
  Value normalised = mul(centered, expandAlong(*state_, inverse, x, axis));
  return add(mul(normalised, gamma), beta);
}

Value GraphBuilder::gelu(Value x) {
  DType type = dtype(x);
  Value inner = erf(mul(x, scalar(M_SQRT1_2, type)));
  return mul(mul(x, scalar(0.5, type)), add(inner, scalar(1.0, type)));
}

Value GraphBuilder::attention(Value q, Value k, Value v, Value additiveMask,
                              int64_t heads) {
  State &s = *state_;
  if (!s.usable({q, k, v}))
    return Value();
  const SymTensorType &qt = s.type(q);
  auto hidden = qt.rank() == 3 ? qt.dims[2].constantValue() : std::nullopt;
  if (!hidden || heads <= 0 || *hidden % heads != 0) {
    s.fail(invalidArgument("attention needs [batch, seq, hidden] inputs with "
                           "a static hidden size divisible by heads, got " +
                           qt.toString()));
    return Value();
  }
  int64_t headDim = *hidden / heads;
  DType type = qt.dtype;
  // [batch, seq, hidden] -> [batch, heads, seq, headDim]
  auto splitHeads = [&](Value t) -> Value {
    if (!s.usable({t}))
      return Value();
    const SymTensorType &tt = s.type(t);
    v1::Node node;
    node.set_op("reshape");
    if (!s.reshapeDims({tt.dims[0], tt.dims[1], SymExpr::constant(heads),
                        SymExpr::constant(headDim)},
                       node.mutable_reshape()->mutable_shape()))
      return Value();
    return transpose(s.addNode(std::move(node), {t}), {0, 2, 1, 3});
  };
  Value qh = splitHeads(q), kh = splitHeads(k), vh = splitHeads(v);
  Value scores = dotGeneral(qh, kh, {0, 1}, {0, 1}, {3}, {3});
  scores = mul(scores, scalar(1.0 / std::sqrt(double(headDim)), type));
  if (additiveMask.isValid())
    scores = add(scores, additiveMask);
  Value probs = softmax(scores, -1);
  Value context = dotGeneral(probs, vh, {0, 1}, {0, 1}, {3}, {2});
  Value merged = transpose(context, {0, 2, 1, 3});
  if (!s.usable({merged}))
    return Value();
  const SymTensorType &mt = s.type(merged);
  v1::Node node;
  node.set_op("reshape");
  if (!s.reshapeDims({mt.dims[0], mt.dims[1], SymExpr::constant(*hidden)},
                     node.mutable_reshape()->mutable_shape()))
    return Value();
  return s.addNode(std::move(node), {merged});
}

} // namespace anyshape::client

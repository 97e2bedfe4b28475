// The example graphs, built with the graph builder: written to examples/ by
// anyshape-make-examples and built directly by the client examples.
#include "examples/ExampleGraphs.h"

#include <cmath>

namespace anyshape::examples {
namespace {

using client::GraphBuilder;
using client::Reduction;
using client::Value;

constexpr v1::DType F32 = v1::DTYPE_F32;

/// Uniform(-a, a) with a = sqrt(6 / (fanIn + fanOut)) (Glorot).
Value weight(GraphBuilder &b, int64_t fanIn, int64_t fanOut, uint64_t seed) {
  double a = std::sqrt(6.0 / double(fanIn + fanOut));
  return b.seededUniform(F32, {fanIn, fanOut}, seed, -a, a);
}

Value bias(GraphBuilder &b, int64_t n, uint64_t seed) {
  return b.seededUniform(F32, {n}, seed, -0.02, 0.02);
}

} // namespace

/// A two-layer perceptron classifier: [batch, 256] -> [batch, 10] probs.
void mlp(GraphBuilder &b) {
  Value x = b.parameter("x", F32, {"batch", 256});
  Value h = b.linear(x, weight(b, 256, 512, 1), bias(b, 512, 2));
  h = b.max(h, b.scalar(0.0)); // relu
  Value logits = b.linear(h, weight(b, 512, 10, 3), bias(b, 10, 4));
  b.output(b.softmax(logits, -1), "probs");
}

namespace {

/// One BERT-base encoder layer (post-norm) on x [batch, seq, 768]:
/// self-attention with an additive mask, residual + layer norm, GELU
/// feed-forward, residual + layer norm. Weights seeded from `seed` on.
Value encoderLayer(GraphBuilder &b, Value x, Value additive, uint64_t seed) {
  const int64_t hidden = 768, heads = 12, ffn = 3072;
  Value q =
      b.linear(x, weight(b, hidden, hidden, seed), bias(b, hidden, seed + 1));
  Value k = b.linear(x, weight(b, hidden, hidden, seed + 2),
                     bias(b, hidden, seed + 3));
  Value v = b.linear(x, weight(b, hidden, hidden, seed + 4),
                     bias(b, hidden, seed + 5));
  Value context = b.attention(q, k, v, additive, heads);
  Value projected = b.linear(context, weight(b, hidden, hidden, seed + 6),
                             bias(b, hidden, seed + 7));
  Value gamma1 = b.seededUniform(F32, {hidden}, seed + 8, 0.9, 1.1);
  Value beta1 = bias(b, hidden, seed + 9);
  Value attended = b.layerNorm(b.add(x, projected), gamma1, beta1);

  Value up = b.gelu(b.linear(attended, weight(b, hidden, ffn, seed + 10),
                             bias(b, ffn, seed + 11)));
  Value down = b.linear(up, weight(b, ffn, hidden, seed + 12),
                        bias(b, hidden, seed + 13));
  Value gamma2 = b.seededUniform(F32, {hidden}, seed + 14, 0.9, 1.1);
  Value beta2 = bias(b, hidden, seed + 15);
  return b.layerNorm(b.add(attended, down), gamma2, beta2);
}

/// x [batch, seq, 768] and the additive form of mask [batch, seq].
std::pair<Value, Value> encoderInputs(GraphBuilder &b) {
  Value x = b.parameter("x", F32, {"batch", "seq", 768});
  // 1 keeps a token, 0 masks it (padding); becomes an additive -10000.
  Value mask = b.parameter("mask", F32, {"batch", "seq"});
  Value additive = b.mul(b.sub(b.scalar(1.0), mask), b.scalar(-10000.0));
  return {x, b.reshape(additive, {"batch", 1, 1, "seq"})};
}

} // namespace

/// One BERT-base encoder layer: hidden 768, 12 heads, FFN 3072; batch and
/// seq symbolic.
void bertEncoderLayer(GraphBuilder &b) {
  auto [x, additive] = encoderInputs(b);
  b.output(encoderLayer(b, x, additive, 11), "y");
}

void bertEncoder(GraphBuilder &b, int layers) {
  auto [x, additive] = encoderInputs(b);
  for (int l = 0; l < layers; ++l)
    x = encoderLayer(b, x, additive, 11 + 16 * static_cast<uint64_t>(l));
  b.output(x, "y");
}

/// An elementwise chain into reductions: log-sum-exp and max of
/// tanh(2x + y) per row, and the row mean of x.
void elementwiseReduce(GraphBuilder &b) {
  Value x = b.parameter("x", F32, {"rows", "cols"});
  Value y = b.parameter("y", F32, {"cols"});
  Value z = b.tanh(b.add(b.mul(x, b.scalar(2.0)), y));
  b.output(b.log(b.reduce(b.exp(z), {1}, Reduction::Sum)), "logsumexp");
  b.output(b.reduce(z, {1}, Reduction::Max), "row_max");
  Value n = b.convert(b.dimSize(x, 1), F32);
  b.output(b.div(b.reduce(x, {1}, Reduction::Sum), n), "row_mean");
}

/// Token embedding lookup plus learned positions, then layer norm:
/// ids i32[batch, seq] -> f32[batch, seq, 64].
void embedding(GraphBuilder &b) {
  const int64_t vocab = 1000, width = 64;
  Value ids = b.parameter("ids", v1::DTYPE_I32, {"batch", "seq"});
  Value table = b.seededUniform(F32, {vocab, width}, 31, -0.1, 0.1);
  Value tokens = b.gather(table, ids, 0); // [batch, seq, width]
  Value positions = b.seededUniform(F32, {512, width}, 32, -0.1, 0.1);
  Value used = b.slice(positions, {0, 0}, {"seq", width});
  Value gamma = b.splat(1.0, F32, {width});
  Value beta = b.splat(0.0, F32, {width});
  b.output(b.layerNorm(b.add(tokens, used), gamma, beta, 1e-5), "embedded");
}

const std::vector<ExampleGraph> &exampleGraphs() {
  static const std::vector<ExampleGraph> all = {
      {"mlp", mlp},
      {"bert_encoder_layer", bertEncoderLayer},
      {"elementwise_reduce", elementwiseReduce},
      {"embedding", embedding}};
  return all;
}

} // namespace anyshape::examples

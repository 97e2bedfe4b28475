// A generator of random graphs over the op set (symbolic dims a and b),
// shared by the backends' differential tests. It keeps three pools of
// values by shape — [a, b], [a] and [b] — and only combines values whose
// shapes the op accepts, so every generated graph is valid; ops are chosen
// to keep values bounded (tanh before exp, division by |x| + 1) so that
// tolerances stay meaningful.
#pragma once

#include "anyshape/client/GraphBuilder.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace anyshape::test {

using client::Comparison;
using client::GraphBuilder;
using client::Reduction;
using client::Value;

inline constexpr client::DType F32 = v1::DTYPE_F32;

class RandomGraph {
public:
  explicit RandomGraph(uint64_t seed)
      : b_("random_" + std::to_string(seed)), rng_(seed) {
    matrices_ = {b_.parameter("x", F32, {"a", "b"}),
                 b_.parameter("z", F32, {"a", "b"})};
    columns_ = {b_.parameter("y", F32, {"b"})};
    rows_ = {b_.parameter("w", F32, {"a"})};
  }

  v1::Graph build(int steps) {
    for (int i = 0; i < steps; ++i)
      step();
    b_.output(pick(matrices_));
    b_.output(pick(rows_));
    auto graph = b_.build();
    EXPECT_TRUE(graph.isOk()) << graph.status().toString();
    return graph.isOk() ? *graph : v1::Graph();
  }

private:
  int roll(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  Value pick(const std::vector<Value> &pool) { return pool[roll(pool.size())]; }

  Value bounded(Value x) {
    static const char *ops[] = {"tanh", "logistic", "sin", "cos", "erf"};
    return b_.unary(ops[roll(5)], x);
  }

  void step() {
    Value m = pick(matrices_), m2 = pick(matrices_);
    Value one = b_.scalar(1.0);
    switch (roll(13)) {
    case 0: { // unary chains
      static const char *ops[] = {"abs", "neg", "floor", "ceil", "tanh"};
      std::string op = ops[roll(5)];
      Value x = bounded(m);
      // Rounded, a bounded value is first moved off its extremes: cos near
      // pi and tanh of a large x sit at -1 or 1 within an ulp, where the
      // compiled polynomial and libm may round to either side, and floor
      // or ceil would turn that ulp into 1. The integers of [-2.25, 2.75]
      // are where the functions still have slope.
      if (op == "floor" || op == "ceil")
        x = b_.add(b_.mul(x, b_.scalar(2.5)), b_.scalar(0.25));
      matrices_.push_back(b_.unary(op, x));
      break;
    }
    case 1: // exp / sqrt / rsqrt / log on safe domains
      matrices_.push_back(
          b_.add(b_.exp(b_.tanh(m)), b_.sqrt(b_.add(b_.abs(m2), one))));
      matrices_.push_back(b_.log(b_.add(b_.abs(m), one)));
      matrices_.push_back(b_.rsqrt(b_.add(b_.abs(m), one)));
      break;
    case 2: { // binary, with numpy broadcasting of rows and columns
      static const char *ops[] = {"add", "sub", "mul", "max", "min"};
      Value other = roll(3) == 0 ? pick(columns_) : m2;
      matrices_.push_back(b_.binary(ops[roll(5)], m, other));
      break;
    }
    case 3: // division by something away from zero; pow of a positive base
      matrices_.push_back(b_.div(m, b_.add(b_.abs(m2), one)));
      matrices_.push_back(b_.pow(b_.add(b_.abs(m), one), bounded(m2)));
      break;
    case 4: { // reductions to rows [a] or columns [b]
      static const Reduction kinds[] = {Reduction::Sum, Reduction::Max,
                                        Reduction::Min};
      Reduction kind = kinds[roll(3)];
      if (roll(2))
        rows_.push_back(b_.reduce(m, {1}, kind));
      else
        columns_.push_back(b_.reduce(m, {0}, kind));
      break;
    }
    case 5: // softmax over a row, layer norm over b; an epsilon of 1e-2
      // keeps rows of (nearly) equal values well-conditioned (f32 vs double
      // variance differences are otherwise amplified by rsqrt(1e-12))
      matrices_.push_back(b_.softmax(m, 1));
      matrices_.push_back(
          b_.layerNorm(m, pick(columns_), pick(columns_), 1e-2));
      break;
    case 6: // transpose there and back, through a reshape to [a*b]
      matrices_.push_back(b_.transpose(b_.transpose(m, {1, 0}), {1, 0}));
      matrices_.push_back(b_.reshape(b_.reshape(m, {"a*b"}), {"a", "b"}));
      break;
    case 7: // slice a column off and pad it back (with -1 as the value)
      matrices_.push_back(b_.pad(b_.slice(m, {0, 1}, {"a", "b"}),
                                 b_.scalar(-1.0), {0, 1}, {0, 0}));
      break;
    case 8: // concatenate rows, take the second half back
      matrices_.push_back(
          b_.slice(b_.concatenate({m, m2}, 0), {"a", 0}, {"2*a", "b"}));
      break;
    case 9: // m m2^T reduced back to rows
      rows_.push_back(b_.reduce(b_.dotGeneral(m, m2, {}, {}, {1}, {1}), {1},
                                Reduction::Sum));
      break;
    case 10: { // compare and select; where the two compared values are
      // nearly equal, so are the two selected ones (ulp-level differences
      // between compiled and reference math may flip the compare)
      Value q = bounded(m2);
      Value p = b_.compare(m, q, Comparison::Gt);
      matrices_.push_back(b_.select(p, m, q));
      break;
    }
    case 11: { // gather rows in reverse order (indices from iota)
      Value iota = b_.iota(v1::DTYPE_I32, {"a"}, 0);
      Value last = b_.convert(
          b_.sub(b_.dimSize(m, 0), b_.scalar(1, v1::DTYPE_I64)), v1::DTYPE_I32);
      matrices_.push_back(b_.gather(m, b_.sub(last, iota), 0));
      break;
    }
    default: // through f16 and back; and a row-broadcast
      matrices_.push_back(b_.convert(b_.convert(m, v1::DTYPE_F16), F32));
      matrices_.push_back(
          b_.mul(m, b_.broadcastInDim(pick(rows_), {"a", "b"}, {0})));
      break;
    }
  }

  GraphBuilder b_;
  std::mt19937_64 rng_;
  std::vector<Value> matrices_, rows_, columns_;
};

} // namespace anyshape::test

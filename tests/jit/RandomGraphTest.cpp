// Random graphs over the op set (symbolic dims a and b), each compiled once
// by the CPU backend and run at 50 drawn shapes against the reference
// evaluator. The generator keeps three pools of values by shape — [a, b],
// [a] and [b] — and only combines values whose shapes the op accepts, so
// every generated graph is valid; ops are chosen to keep values bounded
// (tanh before exp, division by |x| + 1) so that tolerances stay meaningful.
// Each graph also runs with every kernel in its parallel versions.
#include "../support/ScopedTeamSize.h"
#include "anyshape/client/GraphBuilder.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/GraphText.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"
#include "jit/Compiler.h"

#include "RandomInputs.h"

#include <gtest/gtest.h>

#include <random>

using namespace anyshape;
using namespace anyshape::client;

namespace {

constexpr DType F32 = v1::DTYPE_F32;

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

void checkRandomGraph(uint64_t seed, const jit::CompileOptions &options = {}) {
  v1::Graph graph = RandomGraph(seed).build(12);
  if (const char *dump = std::getenv("ANYSHAPE_DUMP_RANDOM_GRAPH"))
    (void)writeGraphFile(graph, dump);
  ASSERT_GT(graph.nodes_size(), 0);
  int64_t before = jit::Compiler::compileCount();
  auto executable = jit::Compiler::compile(graph, options);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  std::mt19937_64 rng(seed * 7919);
  std::uniform_int_distribution<int64_t> size(1, 37);
  for (int run = 0; run < 50; ++run) {
    std::map<std::string, int64_t> symbols{{"a", run == 0 ? 1 : size(rng)},
                                           {"b", run == 1 ? 1 : size(rng)}};
    auto shapes = inputShapesFor(graph, symbols);
    ASSERT_TRUE(shapes.isOk());
    auto [inputs, tensors] = test::randomInputs(graph, *shapes, run * 31);
    auto expected = evaluateGraph(graph, inputs);
    ASSERT_TRUE(expected.isOk()) << expected.status().toString();
    auto actual = (*executable)->run(tensors);
    ASSERT_TRUE(actual.isOk()) << actual.status().toString();
    for (size_t o = 0; o < actual->size(); ++o) {
      NumericDiff c =
          compareLiterals(*literalFromTensor((*actual)[o]), (*expected)[o]);
      ASSERT_TRUE(c.ok()) << "seed " << seed << " a=" << symbols["a"]
                          << " b=" << symbols["b"] << " output " << o << ": "
                          << c.firstMismatch << "\n"
                          << graph.DebugString().substr(0, 4000);
    }
  }
  EXPECT_EQ(jit::Compiler::compileCount() - before, 1);
}

} // namespace

class RandomGraphs : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RandomGraphs, CompiledOnceMatchesReferenceAt50Shapes) {
  checkRandomGraph(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomGraphs,
                         ::testing::Range<uint64_t>(1, 121));

/// The same graphs with every kernel in its parallel versions at every
/// size: a team of 8 has more threads than most drawn rows, so the row
/// reductions take their split-row versions, and column reductions their
/// row blocks.
class RandomGraphsInParallel : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RandomGraphsInParallel, CompiledOnceMatchesReferenceAt50Shapes) {
  test::ScopedTeamSize team(8);
  jit::CompileOptions options;
  options.pipeline.parallelMinWork = 0;
  options.pipeline.splitRowMinWork = 0;
  checkRandomGraph(GetParam(), options);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomGraphsInParallel,
                         ::testing::Range<uint64_t>(1, 121));

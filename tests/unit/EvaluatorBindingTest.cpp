// Tests of how the reference evaluator sizes a graph: bindSymbols (symbols
// bound from input shapes, with errors naming every input and dim involved:
// conflicting bindings, static-dim and rank mismatches, expression dims),
// inputShapesFor (the inverse: shapes from symbol sizes), evaluateGraph's
// checks of its inputs (count, dtype) and of run-time shape facts that
// validation had to leave open, and evaluating one graph at several symbol
// sizes, including zero.
#include "TestUtil.h"

#include <gtest/gtest.h>

namespace anyshape {
namespace {

using test::failsWith;
using test::inputText;
using test::makeLiteral;
using test::nodeText;
using test::outputText;
using test::valuesNear;

/// a: f32[batch, 3], b: f32[batch], c: f32[seq + 1], s: f32[seq]; the
/// output is `a`.
v1::Graph bindingGraph() {
  return test::parseGraph(inputText("a", "f32", {"batch", "3"}) +
                          inputText("b", "f32", {"batch"}) +
                          inputText("c", "f32", {"seq + 1"}) +
                          inputText("s", "f32", {"seq"}) + outputText("a"));
}

TEST(EvaluatorBindingTest, BindsSymbolsFromInputShapes) {
  auto bindings = bindSymbols(bindingGraph(), {{2, 3}, {2}, {5}, {4}});
  ASSERT_TRUE(bindings.isOk()) << bindings.status().toString();
  EXPECT_EQ(*bindings,
            (std::map<std::string, int64_t>{{"batch", 2}, {"seq", 4}}));
  // Zero is a size like any other.
  bindings = bindSymbols(bindingGraph(), {{0, 3}, {0}, {1}, {0}});
  ASSERT_TRUE(bindings.isOk()) << bindings.status().toString();
  EXPECT_EQ(bindings->at("batch"), 0);
  EXPECT_EQ(bindings->at("seq"), 0);
}

TEST(EvaluatorBindingTest, SymbolBoundToTwoSizesNamesBothInputs) {
  Status s = bindSymbols(bindingGraph(), {{2, 3}, {4}, {5}, {4}}).status();
  EXPECT_TRUE(failsWith(s, {"input 'b' dim 0", "is 4", "symbol 'batch'",
                            "is 2 from input 'a' dim 0"}));
  // Within one input too.
  v1::Graph square =
      test::parseGraph(inputText("m", "f32", {"n", "n"}) + outputText("m"));
  EXPECT_TRUE(failsWith(bindSymbols(square, {{2, 3}}).status(),
                        {"input 'm' dim 1", "input 'm' dim 0", "'n'"}));
  EXPECT_TRUE(bindSymbols(square, {{3, 3}}).isOk());
}

TEST(EvaluatorBindingTest, StaticDimMismatch) {
  EXPECT_TRUE(
      failsWith(bindSymbols(bindingGraph(), {{2, 4}, {2}, {5}, {4}}).status(),
                {"input 'a' dim 1", "is 4, expected 3"}));
}

TEST(EvaluatorBindingTest, RankMismatch) {
  EXPECT_TRUE(failsWith(
      bindSymbols(bindingGraph(), {{2, 3}, {2, 1}, {5}, {4}}).status(),
      {"input 'b'", "rank 2, expected 1"}));
  EXPECT_TRUE(
      failsWith(bindSymbols(bindingGraph(), {{2, 3}, {2}, {5}}).status(),
                {"4 inputs, got 3"}));
}

TEST(EvaluatorBindingTest, ExpressionDimMismatch) {
  // c is seq + 1 = 5 when seq is 4.
  EXPECT_TRUE(
      failsWith(bindSymbols(bindingGraph(), {{2, 3}, {2}, {6}, {4}}).status(),
                {"input 'c' dim 0", "is 6, expected 5"}));
  // Expressions are checked after all plain symbols bind, whatever the
  // input order (c comes before s here).
  EXPECT_TRUE(bindSymbols(bindingGraph(), {{2, 3}, {2}, {5}, {4}}).isOk());
}

TEST(EvaluatorBindingTest, NegativeAndAnonymousDims) {
  EXPECT_TRUE(
      failsWith(bindSymbols(bindingGraph(), {{-1, 3}, {2}, {5}, {4}}).status(),
                {"input 'a' dim 0", "negative"}));
  // An anonymous dim accepts any size and binds nothing.
  v1::Graph g =
      test::parseGraph(inputText("x", "f32", {"?", "n"}) + outputText("x"));
  auto bindings = bindSymbols(g, {{7, 2}});
  ASSERT_TRUE(bindings.isOk());
  EXPECT_EQ(*bindings, (std::map<std::string, int64_t>{{"n", 2}}));
}

TEST(EvaluatorBindingTest, InputShapesFor) {
  v1::Graph g = test::parseGraph(inputText("x", "f32", {"batch", "seq"}) +
                                 inputText("y", "f32", {"batch*seq", "4"}) +
                                 inputText("z", "f32", {"2*seq + 1"}) +
                                 inputText("w", "f32", {}) + outputText("x"));
  auto shapes = inputShapesFor(g, {{"batch", 2}, {"seq", 5}});
  ASSERT_TRUE(shapes.isOk()) << shapes.status().toString();
  EXPECT_EQ(*shapes,
            (std::vector<std::vector<int64_t>>{{2, 5}, {10, 4}, {11}, {}}));
  // The shapes bind back to the same symbols.
  auto bindings = bindSymbols(g, *shapes);
  ASSERT_TRUE(bindings.isOk()) << bindings.status().toString();
  EXPECT_EQ(*bindings,
            (std::map<std::string, int64_t>{{"batch", 2}, {"seq", 5}}));

  EXPECT_TRUE(failsWith(inputShapesFor(g, {{"batch", 2}}).status(),
                        {"input 'x' dim 1", "'seq'"}));
  v1::Graph anonymous =
      test::parseGraph(inputText("x", "f32", {"2", "?"}) + outputText("x"));
  EXPECT_TRUE(failsWith(inputShapesFor(anonymous, {}).status(),
                        {"input 'x' dim 1", "anonymous"}));
}

TEST(EvaluatorBindingTest, RejectsWrongInputDtypeAndCount) {
  v1::Graph g = test::parseGraph(inputText("x", "f32", {"n"}) +
                                 nodeText("y", "neg", {"x"}) + outputText("y"));
  Status s =
      evaluateGraph(g, {makeLiteral(v1::DTYPE_I32, {2}, {1, 2})}).status();
  EXPECT_TRUE(failsWith(s, {"input 'x'", "is i32, expected f32"}));
  EXPECT_TRUE(failsWith(evaluateGraph(g, {}).status(), {"1 inputs, got 0"}));
  EXPECT_FALSE(evaluateGraph(g, {makeLiteral(v1::DTYPE_F32, {2}, {1, 2}),
                                 makeLiteral(v1::DTYPE_F32, {2}, {1, 2})})
                   .isOk());
  // Shape problems surface through binding.
  v1::Graph fixed =
      test::parseGraph(inputText("x", "f32", {"3"}) + outputText("x"));
  EXPECT_TRUE(failsWith(
      evaluateGraph(fixed, {makeLiteral(v1::DTYPE_F32, {2}, {1, 2})}).status(),
      {"input 'x' dim 0", "expected 3"}));
  // An invalid graph never runs.
  v1::Graph invalid =
      test::parseGraph(inputText("x", "f32", {"3"}) +
                       nodeText("y", "bogus", {"x"}) + outputText("y"));
  EXPECT_TRUE(failsWith(
      evaluateGraph(invalid, {makeLiteral(v1::DTYPE_F32, {3}, {1, 2, 3})})
          .status(),
      {"node 'y'", "unknown op"}));
}

TEST(EvaluatorBindingTest, SameGraphAtSeveralSizes) {
  // sum(x) over a symbolic dim, and x reshaped to [n/2, 2] through -1.
  v1::Graph g = test::parseGraph(
      inputText("x", "f32", {"n"}) +
      nodeText("total", "reduce", {"x"},
               "reduce { kind: REDUCE_SUM dimensions: 0 }") +
      nodeText("pairs", "reshape", {"x"},
               "reshape { " + test::dimsText({"-1", "2"}, "shape") + "}") +
      nodeText("count", "dim_size", {"pairs"}, "dim_size { dimension: 0 }") +
      outputText("total") + outputText("count"));
  for (int n : {0, 2, 6, 18}) {
    SCOPED_TRACE(n);
    std::vector<double> values;
    for (int k = 0; k < n; ++k)
      values.push_back(k + 1);
    std::vector<Literal> out =
        test::evaluate(g, {makeLiteral(v1::DTYPE_F32, {n}, values)});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_TRUE(valuesNear(out[0], v1::DTYPE_F32, {}, {n * (n + 1) / 2.0}));
    EXPECT_TRUE(valuesNear(out[1], v1::DTYPE_I64, {}, {n / 2.0}));
  }
  // n odd cannot be split into pairs: a run-time error naming the node.
  EXPECT_TRUE(failsWith(
      evaluateGraph(g, {makeLiteral(v1::DTYPE_F32, {3}, {1, 2, 3})}).status(),
      {"node 'pairs'", "cannot split"}));
}

TEST(EvaluatorBindingTest, SymbolicAttributesFollowTheBinding) {
  // Broadcast to [batch, seq] where only x binds batch and only y binds seq.
  v1::Graph g = test::parseGraph(
      inputText("x", "f32", {"batch"}) + inputText("y", "f32", {"seq"}) +
      nodeText("b", "broadcast_in_dim", {"x"},
               "broadcast_in_dim { " +
                   test::dimsText({"batch", "seq"}, "shape") +
                   "broadcast_dimensions: 0 }") +
      outputText("b"));
  for (int seq : {1, 3}) {
    Literal out = test::evaluateOne(
        g, {makeLiteral(v1::DTYPE_F32, {2}, {1, 2}),
            makeLiteral(v1::DTYPE_F32, {seq}, std::vector<double>(seq, 0))});
    std::vector<double> expected;
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < seq; ++c)
        expected.push_back(r + 1);
    EXPECT_TRUE(valuesNear(out, v1::DTYPE_F32, {2, seq}, expected));
  }
}

TEST(EvaluatorBindingTest, RunTimeShapeChecks) {
  // Two different symbols must agree where an op needs equal dims.
  v1::Graph g = test::parseGraph(
      inputText("x", "f32", {"n"}) + inputText("y", "f32", {"m"}) +
      nodeText("s", "add", {"x", "y"}) + outputText("s"));
  ASSERT_TRUE(validateGraph(g).isOk());
  EXPECT_TRUE(valuesNear(
      test::evaluateOne(g, {makeLiteral(v1::DTYPE_F32, {2}, {1, 2}),
                            makeLiteral(v1::DTYPE_F32, {2}, {3, 4})}),
      v1::DTYPE_F32, {2}, {4, 6}));
  EXPECT_TRUE(
      failsWith(evaluateGraph(g, {makeLiteral(v1::DTYPE_F32, {2}, {1, 2}),
                                  makeLiteral(v1::DTYPE_F32, {3}, {1, 2, 3})})
                    .status(),
                {"node 's'", "2", "3"}));
}

TEST(EvaluatorBindingTest, RunTimeLimits) {
  // The static part fits; the concrete size does not.
  v1::Graph g = test::parseGraph(
      inputText("x", "f32", {"n"}) +
      nodeText("b", "broadcast_in_dim", {"x"},
               "broadcast_in_dim { " + test::dimsText({"n", "n"}, "shape") +
                   "broadcast_dimensions: 0 }") +
      outputText("b"));
  EvalOptions options;
  options.limits.maxElementsPerTensor = 20;
  EXPECT_TRUE(test::evaluate(g, {makeLiteral(v1::DTYPE_F32, {4}, {1, 2, 3, 4})},
                             options)
                  .size() == 1);
  Status s = evaluateGraph(
                 g, {makeLiteral(v1::DTYPE_F32, {5}, {1, 2, 3, 4, 5})}, options)
                 .status();
  EXPECT_EQ(s.code(), StatusCode::ResourceExhausted);
  EXPECT_TRUE(failsWith(s, {"node 'b'", "exceeds the limit of 20"}));
}

TEST(EvaluatorBindingTest, OutputsMayRepeatAndNameInputs) {
  v1::Graph g = test::parseGraph(inputText("x", "i32", {"2"}) +
                                 nodeText("y", "neg", {"x"}) + outputText("y") +
                                 outputText("x") + outputText("y"));
  std::vector<Literal> out =
      test::evaluate(g, {makeLiteral(v1::DTYPE_I32, {2}, {1, -2})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(valuesNear(out[0], v1::DTYPE_I32, {2}, {-1, 2}));
  EXPECT_TRUE(valuesNear(out[1], v1::DTYPE_I32, {2}, {1, -2}));
  EXPECT_TRUE(valuesNear(out[2], v1::DTYPE_I32, {2}, {-1, 2}));
}

TEST(EvaluatorBindingTest, IntermediatesFreedOnlyAfterLastUse) {
  // a feeds three later nodes listed in scrambled order; each must still
  // see a's value.
  v1::Graph g = test::parseGraph(
      inputText("x", "f32", {"2"}) + nodeText("c", "add", {"a", "b"}) +
      nodeText("b", "mul", {"a", "a"}) + nodeText("a", "neg", {"x"}) +
      nodeText("d", "sub", {"c", "a"}) + outputText("d") + outputText("b"));
  std::vector<Literal> out =
      test::evaluate(g, {makeLiteral(v1::DTYPE_F32, {2}, {1, 3})});
  ASSERT_EQ(out.size(), 2u);
  // a = -x, b = x^2, c = x^2 - x, d = c - a = x^2.
  EXPECT_TRUE(valuesNear(out[0], v1::DTYPE_F32, {2}, {1, 9}));
  EXPECT_TRUE(valuesNear(out[1], v1::DTYPE_F32, {2}, {1, 9}));
}

} // namespace
} // namespace anyshape

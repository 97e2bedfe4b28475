// Tests of what validation infers for valid graphs (validateGraph): the
// symbolic type of every node (reshapes, elementwise, contractions,
// broadcasts), static dims winning over symbols, anonymous input dims,
// sizes that are floor divisions, and the GraphInfo a compile reads. The errors
// are in ValidateTest.cpp.
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace anyshape {
namespace {

using test::dimsText;
using test::failsWith;
using test::inputText;
using test::nodeText;
using test::outputText;

/// The validated info of a graph that must be valid.
GraphInfo validInfo(const std::string &text) {
  auto info = validateGraph(test::parseGraph(text));
  EXPECT_TRUE(info.isOk()) << info.status().toString() << "\n" << text;
  return info.isOk() ? *info : GraphInfo();
}

/// The type of node `index` in a valid graph, as text.
std::string nodeType(const std::string &text, int index) {
  GraphInfo info = validInfo(text);
  if (index >= static_cast<int>(info.nodeTypes.size()))
    return "<no node " + std::to_string(index) + ">";
  return info.nodeTypes[index].toString();
}

const std::string kBsh = inputText("x", "f32", {"batch", "seq", "768"});

TEST(ValidateTest, SymbolicReshapeTypes) {
  auto reshapeType = [](const std::vector<std::string> &shape) {
    return nodeType(
        kBsh +
            nodeText("r", "reshape", {"x"},
                     "reshape { " + dimsText(shape, "shape") + "}") +
            outputText("r"),
        0);
  };
  EXPECT_EQ(reshapeType({"batch*seq", "768"}), "f32[batch*seq, 768]");
  EXPECT_EQ(reshapeType({"batch", "seq", "12", "-1"}),
            "f32[batch, seq, 12, 64]");
  EXPECT_EQ(reshapeType({"-1"}), "f32[768*batch*seq]");
  EXPECT_EQ(reshapeType({"-1", "seq"}), "f32[768*batch, seq]");
  // Divisible by a number only at run time: the quotient's floor, an
  // expression later ops can name (the run time checks it divides).
  // (768 = 5 * 153 + 3.)
  EXPECT_EQ(reshapeType({"-1", "5"}),
            "f32[153*batch*seq + (3*batch*seq floordiv 5), 5]");
  // By a symbolic size: a fresh symbol, known at run time only.
  std::string fresh = reshapeType({"-1", "seq + 1"});
  EXPECT_EQ(fresh.rfind("f32[?", 0), 0u) << fresh;
}

TEST(ValidateTest, SymbolicOpTypes) {
  std::string text =
      kBsh + inputText("w", "f32", {"768", "3072"}) +
      inputText("y", "f32", {"seq + 1", "768"}) + inputText("v", "f32", {}) +
      nodeText("mm", "dot_general", {"x", "w"},
               "dot_general { lhs_contracting_dimensions: 2 "
               "rhs_contracting_dimensions: 0 }") +
      nodeText("s", "slice", {"x"},
               test::sliceText({"0", "1", "0"}, {"batch", "seq", "768"})) +
      nodeText("cat", "concatenate", {"s", "s"},
               "concatenate { dimension: 1 }") +
      nodeText("r0", "reduce", {"x"},
               "reduce { kind: REDUCE_MAX dimensions: 0 }") +
      nodeText("c", "concatenate", {"r0", "y"},
               "concatenate { dimension: 0 }") +
      nodeText("p", "pad", {"r0", "v"},
               "pad { edge_padding_low: 1 edge_padding_low: 0 "
               "edge_padding_high: 2 edge_padding_high: 0 }") +
      nodeText("cmp", "compare", {"x", "x"},
               "compare { direction: COMPARE_LT }") +
      nodeText("ds", "dim_size", {"x"}, "dim_size { dimension: 1 }") +
      nodeText("t", "transpose", {"x"},
               "transpose { permutation: 2 permutation: 0 permutation: 1 }") +
      outputText("mm");
  GraphInfo info = validInfo(text);
  ASSERT_EQ(info.nodeTypes.size(), 9u);
  EXPECT_EQ(info.nodeTypes[0].toString(), "f32[batch, seq, 3072]");
  EXPECT_EQ(info.nodeTypes[1].toString(), "f32[batch, seq - 1, 768]");
  EXPECT_EQ(info.nodeTypes[2].toString(), "f32[batch, 2*seq - 2, 768]");
  EXPECT_EQ(info.nodeTypes[3].toString(), "f32[seq, 768]");
  EXPECT_EQ(info.nodeTypes[4].toString(), "f32[2*seq + 1, 768]");
  EXPECT_EQ(info.nodeTypes[5].toString(), "f32[seq + 3, 768]");
  EXPECT_EQ(info.nodeTypes[6].toString(), "bool[batch, seq, 768]");
  EXPECT_EQ(info.nodeTypes[7].toString(), "i64[]");
  EXPECT_EQ(info.nodeTypes[8].toString(), "f32[768, batch, seq]");
}

TEST(ValidateTest, StaticDimsWinOverSymbols) {
  // x[n] + y[3]: the static dim is the more informative one.
  EXPECT_EQ(nodeType(inputText("x", "f32", {"n"}) +
                         inputText("y", "f32", {"3"}) +
                         nodeText("s", "add", {"x", "y"}) + outputText("s"),
                     0),
            "f32[3]");
  // Two different symbols must be equal at run time; validation allows it.
  EXPECT_EQ(nodeType(inputText("x", "f32", {"n"}) +
                         inputText("y", "f32", {"m"}) +
                         nodeText("s", "add", {"x", "y"}) + outputText("s"),
                     0),
            "f32[n]");
}

TEST(ValidateTest, GraphInfoContents) {
  std::string text =
      inputText("x", "f32", {"batch", "?", "seq"}) +
      inputText("y", "f32", {"seq", "batch"}) +
      // Listed before its operand: topological order must fix that.
      nodeText("b", "neg", {"a"}) + nodeText("a", "abs", {"x"}) +
      nodeText("k", "constant", {},
               "constant { dtype: DTYPE_F32 shape: 2 shape: 3 splat: 1 }") +
      outputText("b") + outputText("y");
  GraphInfo info = validInfo(text);
  EXPECT_EQ(info.symbols, (std::vector<std::string>{"batch", "seq"}));
  ASSERT_EQ(info.inputTypes.size(), 2u);
  // The anonymous dim becomes a fresh symbol.
  EXPECT_EQ(info.inputTypes[0].toString(), "f32[batch, ?0, seq]");
  EXPECT_EQ(info.inputTypes[1].toString(), "f32[seq, batch]");
  ASSERT_EQ(info.topologicalOrder.size(), 3u);
  auto position = [&](int node) {
    return std::find(info.topologicalOrder.begin(), info.topologicalOrder.end(),
                     node) -
           info.topologicalOrder.begin();
  };
  EXPECT_LT(position(1), position(0)); // a before b
  EXPECT_EQ(info.constantBytes, 24);
  ASSERT_TRUE(info.values.count("a"));
  EXPECT_FALSE(info.values.at("a").isInput);
  EXPECT_EQ(info.values.at("a").index, 1);
  EXPECT_TRUE(info.values.at("y").isInput);
  EXPECT_EQ(info.typeOf(info.values.at("b")).toString(), "f32[batch, ?0, seq]");
}

TEST(ValidateTest, AnonymousDimsAndBroadcastCopies) {
  // An anonymous result dim copies the operand's (fresh) dim.
  std::string text =
      inputText("x", "f32", {"?", "4"}) +
      nodeText("b", "broadcast_in_dim", {"x"},
               "broadcast_in_dim { " + dimsText({"2", "?", "4"}, "shape") +
                   "broadcast_dimensions: 1 "
                   "broadcast_dimensions: 2 }") +
      outputText("b");
  EXPECT_EQ(nodeType(text, 0), "f32[2, ?0, 4]");
  // Two anonymous dims are never assumed equal... but they may be added,
  // since equality is checked at run time.
  EXPECT_EQ(nodeType(inputText("x", "f32", {"?"}) +
                         inputText("y", "f32", {"?"}) +
                         nodeText("s", "add", {"x", "y"}) + outputText("s"),
                     0),
            "f32[?0]");
}

TEST(ValidateTest, QuotientTypesNeedNoEqualityChecks) {
  // The first half of x rounded up (a floordiv bound), its even rows (a
  // strided slice) and an input declared with the same quotient: one dim,
  // so the adds need no run-time check.
  std::string text =
      inputText("x", "f32", {"seq", "8"}) +
      inputText("y", "f32", {"(seq + 1) floordiv 2", "8"}) +
      nodeText("h", "slice", {"x"},
               test::sliceText({"0", "0"}, {"(seq + 1) floordiv 2", "8"})) +
      nodeText("e", "slice", {"x"},
               test::sliceText({"0", "0"}, {"seq", "8"}, {2, 1})) +
      nodeText("a", "add", {"h", "e"}) + nodeText("b", "add", {"a", "y"}) +
      nodeText("r", "reshape", {"b"},
               "reshape { " +
                   dimsText({"2*((seq + 1) floordiv 2)", "4"}, "shape") + "}") +
      outputText("r");
  GraphInfo info = validInfo(text);
  ASSERT_EQ(info.nodeTypes.size(), 5u);
  for (int k : {0, 1, 2, 3})
    EXPECT_EQ(info.nodeTypes[k].toString(), "f32[((seq + 1) floordiv 2), 8]");
  EXPECT_EQ(info.nodeTypes[4].toString(), "f32[2*((seq + 1) floordiv 2), 4]");
  for (const ShapeCheck &check : info.shapeChecks)
    EXPECT_NE(check.kind, ShapeCheck::Kind::Equal) << check.what;

  // At run time the declared quotient is checked against the input.
  v1::Graph graph = test::parseGraph(text);
  for (int64_t seq : {0, 1, 6, 7}) {
    int64_t half = (seq + 1) / 2;
    EXPECT_TRUE(
        checkConcreteShapes(graph, info, {{seq, 8}, {half, 8}}, {}).isOk())
        << seq;
    EXPECT_TRUE(failsWith(
        checkConcreteShapes(graph, info, {{seq, 8}, {half + 1, 8}}, {}),
        {"input 'y' dim 0"}))
        << seq;
  }
}

} // namespace
} // namespace anyshape

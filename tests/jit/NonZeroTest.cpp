// nonzero, a size only the data gives, on the CPU and in the emulated CUDA
// kernels: the coordinates and everything shaped by their count (a gather
// of the picked elements, values broadcast and iota'd to the count, a
// reduction over it) match the reference at many shapes with one compile,
// none selected and all selected included; every element type reads as
// ONNX and numpy define nonzero (NaN is nonzero, -0.0 is zero); a rule on
// the count that only the count could decide is checked once the count is
// known, and a run that breaks it stops there, naming the node.
#include "../support/DrawShapes.h"
#include "../support/NonZeroGraph.h"

#include "MatchesReference.h"
#include "anyshape/client/GraphBuilder.h"
#include "ir/graph/Validate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace anyshape;

namespace {

v1::Graph built(client::GraphBuilder &b) {
  auto graph = b.build();
  if (!graph.isOk())
    throw std::runtime_error(graph.status().toString());
  return *graph;
}

} // namespace

TEST(NonZero, MatchesTheReferenceAtEveryShapeWithOneCompile) {
  v1::Graph graph = test::positiveElementsGraph();
  auto shapes = test::drawShapes({{"n", {0, 12}}, {"m", {0, 9}}}, 14, 7);
  shapes.push_back({{"n", 1}, {"m", 1}});
  shapes.push_back({{"n", 0}, {"m", 5}});
  shapes.push_back({{"n", 40}, {"m", 33}});
  for (compiler::KernelBackend backend : test::kHostBackends)
    test::checkAcrossShapes(graph, shapes, "nonzero", test::onBackend(backend));
}

TEST(NonZero, RowsPickedByTheirSumMatchTheReference) {
  v1::Graph graph = test::positiveRowsGraph();
  auto shapes = test::drawShapes({{"n", {0, 50}}}, 10, 3);
  for (compiler::KernelBackend backend : test::kHostBackends)
    test::checkAcrossShapes(graph, shapes, "nonzero rows",
                            test::onBackend(backend));
}

TEST(NonZero, NoneAndAllSelected) {
  v1::Graph graph = test::positiveElementsGraph();
  for (compiler::KernelBackend backend : test::kHostBackends) {
    auto executable =
        compiler::Compiler::compile(graph, test::onBackend(backend));
    ASSERT_TRUE(executable.isOk()) << executable.status().toString();
    for (double fill : {-1.0, 2.0}) {
      Literal x = Literal::zeros(v1::DTYPE_F32, {3, 5});
      std::fill(x.f.begin(), x.f.end(), fill);
      auto out = (*executable)->run({literalToTensor(x)});
      ASSERT_TRUE(out.isOk()) << out.status().toString();
      auto where = literalFromTensor((*out)[0]);
      ASSERT_TRUE(where.isOk());
      int64_t count = fill > 0 ? 15 : 0;
      EXPECT_EQ(where->shape, (std::vector<int64_t>{2, count}));
      for (int64_t k = 0; k < count; ++k) {
        EXPECT_EQ(where->i[k], k / 5);
        EXPECT_EQ(where->i[count + k], k % 5);
      }
      auto total = literalFromTensor((*out)[2]);
      ASSERT_TRUE(total.isOk());
      EXPECT_FLOAT_EQ(total->f[0], count * fill);
    }
  }
}

TEST(NonZero, EveryElementTypeReadsAsNumpyDoes) {
  // NaN is nonzero, -0.0 is zero; integers and bools by value.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> values = {0.0, -0.0, 1.0, nan, -2.0, 0.0};
  for (v1::DType dtype : {v1::DTYPE_F32, v1::DTYPE_F16, v1::DTYPE_BF16,
                          v1::DTYPE_I32, v1::DTYPE_I64, v1::DTYPE_BOOL}) {
    client::GraphBuilder b("nonzero_of_" + dtypeName(dtype));
    b.output(b.nonzero(b.parameter("x", dtype, {2, "k"})), "where");
    v1::Graph graph = built(b);
    Literal x = Literal::zeros(dtype, {2, 3});
    bool isFloat = x.isFloat();
    for (size_t k = 0; k < values.size(); ++k)
      x.setDouble(static_cast<int64_t>(k),
                  isFloat || !std::isnan(values[k]) ? values[k] : 7.0);
    auto expected = evaluateGraph(graph, {x});
    ASSERT_TRUE(expected.isOk()) << expected.status().toString();
    // [0, -0, 1 | NaN, -2, 0]: (0, 2), (1, 0), (1, 1).
    EXPECT_EQ((*expected)[0].i, (std::vector<int64_t>{0, 1, 1, 2, 0, 1}))
        << dtypeName(dtype);
    for (compiler::KernelBackend backend : test::kHostBackends) {
      auto executable =
          compiler::Compiler::compile(graph, test::onBackend(backend));
      ASSERT_TRUE(executable.isOk()) << executable.status().toString();
      auto out = (*executable)->run({literalToTensor(x)});
      ASSERT_TRUE(out.isOk()) << out.status().toString();
      auto where = literalFromTensor((*out)[0]);
      ASSERT_TRUE(where.isOk());
      EXPECT_EQ(where->shape, (*expected)[0].shape) << dtypeName(dtype);
      EXPECT_EQ(where->i, (*expected)[0].i) << dtypeName(dtype);
    }
  }
}

TEST(NonZero, RulesOnlyTheCountDecidesAreCheckedWhenTheCountIsKnown) {
  using namespace client;
  // Adding the picked values to a vector of n: n == 1 or n == count, a
  // condition only the run decides, once the nonzero has counted. A run
  // that breaks it stops there with an error naming the node; the
  // executable serves the next run.
  v1::Graph graph = test::countMeetsInputGraph();
  auto info = validateGraph(graph);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  EXPECT_EQ(info->countChecks.size(), 1u);
  auto literal = [](std::vector<double> values) {
    Literal x = Literal::zeros(v1::DTYPE_F32, {int64_t(values.size())});
    for (size_t k = 0; k < values.size(); ++k)
      x.setDouble(int64_t(k), values[k]);
    return x;
  };
  for (compiler::KernelBackend backend : test::kHostBackends) {
    auto executable =
        compiler::Compiler::compile(graph, test::onBackend(backend));
    ASSERT_TRUE(executable.isOk()) << executable.status().toString();
    for (int round = 0; round < 3; ++round) {
      for (std::vector<double> ok :
           {std::vector<double>{1, 2, 3}, std::vector<double>{5}, {-1}, {}}) {
        Literal x = literal(ok);
        auto expected = evaluateGraph(graph, {x});
        ASSERT_TRUE(expected.isOk()) << expected.status().toString();
        auto out = (*executable)->run({literalToTensor(x)});
        ASSERT_TRUE(out.isOk()) << out.status().toString();
        auto sum = literalFromTensor((*out)[0]);
        ASSERT_TRUE(sum.isOk());
        EXPECT_EQ(sum->shape, (*expected)[0].shape);
        EXPECT_EQ(sum->f, (*expected)[0].f);
      }
      // Two of three picked: count 2 against n 3, for the reference too.
      Literal x = literal({1, -2, 3});
      EXPECT_FALSE(evaluateGraph(graph, {x}).isOk());
      auto out = (*executable)->run({literalToTensor(x)});
      ASSERT_FALSE(out.isOk());
      EXPECT_EQ(out.status().code(), StatusCode::InvalidArgument);
      EXPECT_NE(out.status().message().find("(n) must be 1 or result dim 0 "
                                            "(count)"),
                std::string::npos)
          << out.status().message();
      EXPECT_NE(out.status().message().find("n is 3"), std::string::npos)
          << out.status().message();
    }
  }
}

TEST(NonZero, CountSymbolsAreCheckedAndOrderTheNodesThatNameThem) {
  using namespace client;
  {
    GraphBuilder b("count_named_like_an_input");
    Value x = b.parameter("x", v1::DTYPE_F32, {"n"});
    b.output(b.nonzero(x, "n"), "where");
    auto graph = b.build();
    ASSERT_FALSE(graph.isOk());
    EXPECT_NE(graph.status().message().find("count_symbol 'n' is bound"),
              std::string::npos)
        << graph.status().message();
  }
  // A splat broadcast to the count depends on no data of the nonzero, but
  // names its count: listed first, it is still ordered after it, and runs.
  GraphBuilder b("splat_to_count");
  Value x = b.parameter("x", v1::DTYPE_I32, {"n"});
  b.output(b.nonzero(x, "k"), "where");
  b.output(b.broadcastInDim(b.scalar(2.5), {"k"}, {}), "twos");
  v1::Graph graph = built(b);
  int last = graph.nodes_size() - 1;
  ASSERT_EQ(graph.nodes(last).op(), "broadcast_in_dim");
  for (int i = last; i > 0; --i) // the broadcast moves to the front
    graph.mutable_nodes()->SwapElements(i, i - 1);
  auto info = validateGraph(graph);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  ASSERT_EQ(info->countsRead[0].size(), 1u);
  EXPECT_EQ(graph.nodes(info->countsRead[0][0]).op(), "nonzero");
  for (compiler::KernelBackend backend : test::kHostBackends)
    test::checkAcrossShapes(graph, {{{"n", 0}}, {{"n", 3}}, {{"n", 17}}},
                            "splat to count", test::onBackend(backend));
}

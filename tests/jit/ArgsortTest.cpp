// argsort, the positions of elements in sorted order along an axis, on the
// CPU and through the emulated CUDA path: both axes and directions, ties
// (stable: the lower position first, both ways), a strided operand, f16,
// i32 and bool elements, and a top-k composed from it match the reference
// at many shapes with one compile, empty dims included; NaN, signed zeros
// and infinities by value; the forms validation refuses, each with its
// reason.
#include "../support/ArgsortGraph.h"
#include "../support/DrawShapes.h"

#include "MatchesReference.h"
#include "anyshape/client/GraphBuilder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace anyshape;

TEST(Argsort, MatchesTheReferenceAtEveryShapeWithOneCompile) {
  v1::Graph graph = test::argsortsGraph();
  auto shapes = test::drawShapes({{"n", {1, 9}}, {"m", {3, 40}}}, 12, 21);
  shapes.push_back({{"n", 0}, {"m", 5}}); // no rows
  shapes.push_back({{"n", 1}, {"m", 3}});
  shapes.push_back({{"n", 3}, {"m", 5000}}); // a vocabulary's width
  for (compiler::KernelBackend backend : test::kHostBackends)
    test::checkAcrossShapes(graph, shapes, "argsort", test::onBackend(backend));
}

TEST(Argsort, NaNSortsAboveEveryNumberAndSignedZerosTie) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // Positions:           0    1    2     3    4     5    6    7
  std::vector<double> x = {3.0, nan, -0.0, 0.0, -inf, nan, 1.0, inf};
  std::vector<int64_t> ascending = {4, 2, 3, 6, 0, 7, 1, 5};
  std::vector<int64_t> descending = {1, 5, 7, 0, 6, 2, 3, 4};
  for (v1::DType dtype : {v1::DTYPE_F32, v1::DTYPE_F16, v1::DTYPE_BF16}) {
    client::GraphBuilder b("nan_" + dtypeName(dtype));
    client::Value in = b.parameter("x", dtype, {"n"});
    b.output(b.argsort(in, 0), "ascending");
    b.output(b.argsort(in, 0, true), "descending");
    auto graph = b.build();
    ASSERT_TRUE(graph.isOk()) << graph.status().toString();
    Literal literal = Literal::zeros(dtype, {int64_t(x.size())});
    for (size_t k = 0; k < x.size(); ++k)
      literal.setDouble(int64_t(k), x[k]);
    auto reference = evaluateGraph(*graph, {literal});
    ASSERT_TRUE(reference.isOk()) << reference.status().toString();
    EXPECT_EQ((*reference)[0].i, ascending) << dtypeName(dtype);
    EXPECT_EQ((*reference)[1].i, descending) << dtypeName(dtype);
    for (compiler::KernelBackend backend : test::kHostBackends) {
      auto executable =
          compiler::Compiler::compile(*graph, test::onBackend(backend));
      ASSERT_TRUE(executable.isOk()) << executable.status().toString();
      auto out = (*executable)->run({literalToTensor(literal)});
      ASSERT_TRUE(out.isOk()) << out.status().toString();
      auto up = literalFromTensor((*out)[0]);
      auto down = literalFromTensor((*out)[1]);
      ASSERT_TRUE(up.isOk() && down.isOk());
      EXPECT_EQ(up->i, ascending) << dtypeName(dtype);
      EXPECT_EQ(down->i, descending) << dtypeName(dtype);
    }
  }
}

TEST(Argsort, IntegersAtTheirExtremesKeepTheirOrder) {
  // Keys are the integers offset into unsigned order: the extremes and
  // their neighbours must not wrap.
  client::GraphBuilder b("i64_extremes");
  b.output(b.argsort(b.parameter("x", v1::DTYPE_I64, {"n"}), 0));
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  Literal x = Literal::zeros(v1::DTYPE_I64, {6});
  x.i = {std::numeric_limits<int64_t>::max(),
         -1,
         0,
         std::numeric_limits<int64_t>::min(),
         1,
         std::numeric_limits<int64_t>::min() + 1};
  std::vector<int64_t> expected = {3, 5, 1, 2, 4, 0};
  for (compiler::KernelBackend backend : test::kHostBackends) {
    auto executable =
        compiler::Compiler::compile(*graph, test::onBackend(backend));
    ASSERT_TRUE(executable.isOk()) << executable.status().toString();
    auto out = (*executable)->run({literalToTensor(x)});
    ASSERT_TRUE(out.isOk()) << out.status().toString();
    auto got = literalFromTensor((*out)[0]);
    ASSERT_TRUE(got.isOk());
    EXPECT_EQ(got->i, expected);
  }
}

TEST(Argsort, ImpossibleFormsAreRefusedWithTheirReason) {
  using namespace client;
  auto refusal = [](GraphBuilder &b) {
    auto graph = b.build();
    EXPECT_FALSE(graph.isOk());
    return graph.isOk() ? std::string() : graph.status().message();
  };
  {
    GraphBuilder b("scalar");
    b.output(b.argsort(b.parameter("x", v1::DTYPE_F32, {}), 0));
    std::string message = refusal(b);
    EXPECT_NE(message.find("argsort of a scalar"), std::string::npos)
        << message;
  }
  for (int64_t axis : {-1, 2}) {
    GraphBuilder b("axis");
    b.output(b.argsort(b.parameter("x", v1::DTYPE_F32, {3, "n"}), axis));
    std::string message = refusal(b);
    EXPECT_NE(message.find("argsort axis " + std::to_string(axis) +
                           " is out of range for f32[3, n]"),
              std::string::npos)
        << message;
  }
}

// cumulative, running folds along an axis, on the CPU and through the
// emulated CUDA path: every kind, exclusive and reversed, either axis, a
// strided operand, f16 and wrapping i32, and a kernel reading the result
// match the reference at many shapes with one compile, empty dims and a
// vocabulary-wide row included; NaN and identities by value; the forms
// validation refuses, each with its reason.
#include "../support/CumulativeGraph.h"
#include "../support/DrawShapes.h"

#include "MatchesReference.h"
#include "anyshape/client/GraphBuilder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace anyshape;

TEST(Cumulative, MatchesTheReferenceAtEveryShapeWithOneCompile) {
  v1::Graph graph = test::cumulativesGraph();
  auto shapes = test::drawShapes({{"n", {1, 9}}, {"m", {1, 40}}}, 12, 23);
  shapes.push_back({{"n", 0}, {"m", 5}});
  shapes.push_back({{"n", 3}, {"m", 0}});
  shapes.push_back({{"n", 2}, {"m", 50000}}); // wider than a cumsum by
                                              // a triangle could hold
  for (compiler::KernelBackend backend : test::kHostBackends)
    test::checkAcrossShapes(graph, shapes, "cumulative",
                            test::onBackend(backend));
}

TEST(Cumulative, NaNPropagatesAndExclusiveStartsAtTheIdentity) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  client::GraphBuilder b("by_value");
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"n"});
  using client::Reduction;
  b.output(b.cumulative(x, 0), "sum");
  b.output(b.cumulative(x, 0, Reduction::Max), "max");
  b.output(b.cumulative(x, 0, Reduction::Min, true), "min_exclusive");
  b.output(b.cumulative(x, 0, Reduction::Prod, true, true),
           "prod_exclusive_reversed");
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  Literal in = Literal::zeros(v1::DTYPE_F32, {4});
  in.f = {1.0, 2.0, nan, 3.0};
  std::vector<std::vector<double>> expected = {{1.0, 3.0, nan, nan},
                                               {1.0, 2.0, nan, nan},
                                               {inf, 1.0, 1.0, nan},
                                               {nan, nan, 3.0, 1.0}};
  auto same = [](double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
  };
  for (compiler::KernelBackend backend : test::kHostBackends) {
    auto executable =
        compiler::Compiler::compile(*graph, test::onBackend(backend));
    ASSERT_TRUE(executable.isOk()) << executable.status().toString();
    auto out = (*executable)->run({literalToTensor(in)});
    ASSERT_TRUE(out.isOk()) << out.status().toString();
    auto reference = evaluateGraph(*graph, {in});
    ASSERT_TRUE(reference.isOk()) << reference.status().toString();
    for (size_t o = 0; o < expected.size(); ++o) {
      auto got = literalFromTensor((*out)[o]);
      ASSERT_TRUE(got.isOk());
      for (int64_t e = 0; e < 4; ++e) {
        EXPECT_TRUE(same(got->f[e], expected[o][e]))
            << "output " << o << " element " << e << ": " << got->f[e];
        EXPECT_TRUE(same((*reference)[o].f[e], expected[o][e]))
            << "reference output " << o << " element " << e;
      }
    }
  }
}

TEST(Cumulative, ImpossibleFormsAreRefusedWithTheirReason) {
  using namespace client;
  auto refusal = [](GraphBuilder &b) {
    auto graph = b.build();
    EXPECT_FALSE(graph.isOk());
    return graph.isOk() ? std::string() : graph.status().message();
  };
  auto expectIn = [](const std::string &message, const std::string &part) {
    EXPECT_NE(message.find(part), std::string::npos) << message;
  };
  {
    GraphBuilder b("bool");
    b.output(b.cumulative(b.parameter("x", v1::DTYPE_BOOL, {4}), 0));
    expectIn(refusal(b), "cumulative needs a numeric operand");
  }
  {
    GraphBuilder b("scalar");
    b.output(b.cumulative(b.parameter("x", v1::DTYPE_F32, {}), 0));
    expectIn(refusal(b), "cumulative of a scalar");
  }
  {
    GraphBuilder b("axis");
    b.output(b.cumulative(b.parameter("x", v1::DTYPE_F32, {3, "n"}), 2));
    expectIn(refusal(b), "cumulative axis 2 is out of range for f32[3, n]");
  }
}

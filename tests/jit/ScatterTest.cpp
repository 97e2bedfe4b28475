// scatter, rows of updates combined into rows of an operand, on the CPU and
// through the emulated CUDA path: every reduction, repeated rows (random
// indices are 0..7) and clamped ones, a strided operand, i32 indices and
// integer data match the reference at many shapes with one compile, empty
// operands and empty updates included; every element type by value
// (halves fold in f32 and round once); the forms validation refuses,
// each with its reason.
#include "../support/DrawShapes.h"
#include "../support/ScatterGraph.h"

#include "MatchesReference.h"
#include "anyshape/client/GraphBuilder.h"

#include <gtest/gtest.h>

using namespace anyshape;

namespace {

/// The message of building `b`, which must fail.
std::string refusal(client::GraphBuilder &b) {
  auto graph = b.build();
  EXPECT_FALSE(graph.isOk());
  return graph.isOk() ? "" : graph.status().message();
}

} // namespace

TEST(Scatter, MatchesTheReferenceAtEveryShapeWithOneCompile) {
  v1::Graph graph = test::scattersGraph();
  auto shapes = test::drawShapes({{"n", {1, 12}}, {"m", {0, 20}}}, 14, 11);
  shapes.push_back({{"n", 0}, {"m", 5}}); // nothing to write into
  shapes.push_back({{"n", 6}, {"m", 0}}); // nothing written
  shapes.push_back({{"n", 300}, {"m", 1000}});
  for (compiler::KernelBackend backend : test::kHostBackends)
    test::checkAcrossShapes(graph, shapes, "scatter", test::onBackend(backend));
}

TEST(Scatter, EveryElementTypeByValue) {
  // Row 1 gets updates 0 and 2, row 0 update 1; row 2 keeps its value.
  for (v1::DType dtype : {v1::DTYPE_F32, v1::DTYPE_F16, v1::DTYPE_BF16,
                          v1::DTYPE_I32, v1::DTYPE_I64, v1::DTYPE_BOOL}) {
    bool boolean = dtype == v1::DTYPE_BOOL;
    client::GraphBuilder b("scatter_of_" + dtypeName(dtype));
    client::Value operand = b.parameter("x", dtype, {"n"});
    client::Value at = b.parameter("idx", v1::DTYPE_I64, {"m"});
    client::Value updates = b.parameter("u", dtype, {"m"});
    b.output(b.scatter(operand, at, updates), "replaced");
    if (!boolean)
      b.output(b.scatter(operand, at, updates, client::ScatterMode::Add),
               "added");
    auto graph = b.build();
    ASSERT_TRUE(graph.isOk()) << graph.status().toString();
    Literal x = Literal::zeros(dtype, {3}), u = Literal::zeros(dtype, {3});
    Literal idx = Literal::zeros(v1::DTYPE_I64, {3});
    idx.i = {1, 0, 1};
    for (int64_t k = 0; k < 3; ++k) {
      x.setDouble(k, boolean ? k % 2 : 1.5 * (k + 1));
      u.setDouble(k, boolean ? 1 - k % 2 : 0.25 * (k + 2));
    }
    auto expected = evaluateGraph(*graph, {x, idx, u});
    ASSERT_TRUE(expected.isOk()) << expected.status().toString();
    // x = [1.5, 3, 4.5], u = [0.5, 0.75, 1]: the last update of row 1.
    if (!boolean)
      EXPECT_EQ((*expected)[0].getDouble(1), 1.0) << dtypeName(dtype);
    for (compiler::KernelBackend backend : test::kHostBackends) {
      auto executable =
          compiler::Compiler::compile(*graph, test::onBackend(backend));
      ASSERT_TRUE(executable.isOk()) << executable.status().toString();
      auto out = (*executable)
                     ->run({literalToTensor(x), literalToTensor(idx),
                            literalToTensor(u)});
      ASSERT_TRUE(out.isOk()) << out.status().toString();
      for (size_t k = 0; k < out->size(); ++k) {
        auto got = literalFromTensor((*out)[k]);
        ASSERT_TRUE(got.isOk());
        for (int64_t e = 0; e < 3; ++e)
          EXPECT_EQ(got->getDouble(e), (*expected)[k].getDouble(e))
              << dtypeName(dtype) << " output " << k << " element " << e;
      }
    }
  }
}

TEST(Scatter, ImpossibleFormsAreRefusedWithTheirReason) {
  using namespace client;
  auto check = [](const std::string &message, const std::string &part) {
    EXPECT_NE(message.find(part), std::string::npos) << message;
  };
  {
    GraphBuilder b("bool_add");
    Value x = b.parameter("x", v1::DTYPE_BOOL, {4});
    b.output(b.scatter(x, b.parameter("i", v1::DTYPE_I64, {2}),
                       b.parameter("u", v1::DTYPE_BOOL, {2}),
                       ScatterMode::Add));
    check(refusal(b), "scatter with a reduction needs a numeric operand");
  }
  {
    GraphBuilder b("float_indices");
    Value x = b.parameter("x", v1::DTYPE_F32, {4});
    b.output(b.scatter(x, b.parameter("i", v1::DTYPE_F32, {2}),
                       b.parameter("u", v1::DTYPE_F32, {2})));
    check(refusal(b), "scatter indices must be i32 or i64 of rank 1");
  }
  {
    GraphBuilder b("rows_differ");
    Value x = b.parameter("x", v1::DTYPE_F32, {4, 3});
    b.output(b.scatter(x, b.parameter("i", v1::DTYPE_I64, {2}),
                       b.parameter("u", v1::DTYPE_F32, {2, 5})));
    check(refusal(b), "scatter updates' rows must be the operand's");
  }
  {
    GraphBuilder b("one_row_per_index");
    Value x = b.parameter("x", v1::DTYPE_F32, {4, 3});
    b.output(b.scatter(x, b.parameter("i", v1::DTYPE_I64, {2}),
                       b.parameter("u", v1::DTYPE_F32, {3, 3})));
    check(refusal(b), "scatter needs one update row per index");
  }
  {
    GraphBuilder b("scalar");
    Value x = b.parameter("x", v1::DTYPE_F32, {});
    b.output(b.scatter(x, b.parameter("i", v1::DTYPE_I64, {1}),
                       b.parameter("u", v1::DTYPE_F32, {})));
    check(refusal(b), "scatter into a scalar");
  }
}

TEST(Scatter, SymbolicRowsDifferingAtRunTimeFailTheRun) {
  // m updates for k indices: equal only if the caller sends them so.
  client::GraphBuilder b("rows_at_run_time");
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"n", 2});
  b.output(b.scatter(x, b.parameter("i", v1::DTYPE_I64, {"k"}),
                     b.parameter("u", v1::DTYPE_F32, {"m", 2})));
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  for (compiler::KernelBackend backend : test::kHostBackends) {
    auto executable =
        compiler::Compiler::compile(*graph, test::onBackend(backend));
    ASSERT_TRUE(executable.isOk()) << executable.status().toString();
    auto out =
        (*executable)
            ->run({literalToTensor(Literal::zeros(v1::DTYPE_F32, {4, 2})),
                   literalToTensor(Literal::zeros(v1::DTYPE_I64, {3})),
                   literalToTensor(Literal::zeros(v1::DTYPE_F32, {2, 2}))});
    ASSERT_FALSE(out.isOk());
    EXPECT_EQ(out.status().code(), StatusCode::InvalidArgument);
  }
}

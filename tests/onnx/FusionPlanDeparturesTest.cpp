// A departure from the fusion plan (codegen building one fusion as two
// kernels) on a model users could bring: ONNX's own expansion of
// grouped-query Attention at static shapes (tests/graphs/onnx/
// gqa_attention_expanded.onnx, the onnx package's
// test_attention_4d_gqa_expanded). Compiled as users compile it, the
// departure is a warning in the compile report and the results match the
// reference evaluator; compiled strictly, as the test suite compiles
// everything else (cmake/StrictFusionPlan.cmake), it fails naming the
// departure.
#include "codegen/CPU/CpuPipeline.h"
#include "compiler/Compiler.h"
#include "frontend/onnx/OnnxImport.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"
#include "ir/reference/Literal.h"

#include <gtest/gtest.h>

#include <random>

namespace anyshape {
namespace {

const std::string kModel = std::string(ANYSHAPE_SOURCE_DIR) +
                           "/tests/graphs/onnx/gqa_attention_expanded.onnx";

TEST(FusionPlanDepartures, TheSuiteCompilesWithAStrictPlan) {
  EXPECT_TRUE(codegen::strictFusionPlanFromEnvironment());
  EXPECT_FALSE(codegen::CpuPipelineOptions().allowPlanDepartures);
}

TEST(FusionPlanDepartures, AreAWarningWithRightResultsUnlessStrict) {
  auto graph = onnx::importOnnxFile(kModel);
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  std::mt19937 generator(7);
  std::normal_distribution<double> normal;
  std::vector<Literal> inputs;
  for (const auto &input : graph->inputs()) {
    std::vector<int64_t> shape;
    for (const auto &dim : input.type().dims())
      shape.push_back(dim.size());
    Literal x = Literal::zeros(v1::DTYPE_F32, shape);
    for (int64_t k = 0; k < x.numElements(); ++k)
      x.setDouble(k, normal(generator));
    inputs.push_back(std::move(x));
  }
  auto expected = evaluateGraph(*graph, inputs);
  ASSERT_TRUE(expected.isOk()) << expected.status().toString();

  compiler::CompileOptions options;
  options.pipeline.allowPlanDepartures = true;
  compiler::CompileReport report;
  auto executable = compiler::Compiler::compile(*graph, options, &report);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("codegen departs from the fusion plan: "
                                    "fusion #"),
            std::string::npos)
      << report.warnings[0];
  std::vector<v1::Tensor> tensors;
  for (const Literal &x : inputs)
    tensors.push_back(literalToTensor(x));
  auto out = (*executable)->run(tensors);
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  ASSERT_EQ(out->size(), expected->size());
  for (size_t k = 0; k < out->size(); ++k) {
    auto got = literalFromTensor((*out)[k]);
    ASSERT_TRUE(got.isOk());
    NumericDiff diff = compareLiterals(*got, (*expected)[k]);
    EXPECT_LE(diff.maxAbsError, 1e-5) << "output " << k;
  }

  options.pipeline.allowPlanDepartures = false;
  auto strict = compiler::Compiler::compile(*graph, options);
  ASSERT_FALSE(strict.isOk());
  EXPECT_EQ(strict.status().code(), StatusCode::Internal);
  EXPECT_NE(strict.status().message().find("departs from the fusion plan"),
            std::string::npos)
      << strict.status().message();
}

} // namespace
} // namespace anyshape

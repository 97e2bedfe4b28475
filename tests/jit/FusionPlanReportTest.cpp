// A compile reports the fusion plan its pipeline formed (dhlo-form-fusions
// writes it as it forms it), not a second planning of the graph. These
// tests hold that report to what `anyshape fusion-plan` prints
// (dhlo::printSimplifiedFusionPlans, the planner run on its own), on each
// target: the two must never drift apart.
#include "../support/ExampleGraph.h"
#include "MatchesReference.h"
#include "anyshape/client/GraphBuilder.h"

#include "codegen/CUDA/Dialects.h"
#include "ir/dhlo/Transforms/Passes.h"
#include "ir/import/GraphImporter.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

namespace anyshape {
namespace {

struct Printed {
  std::string plan;
  int64_t fusions = -1;
};

Printed printedPlan(const v1::Graph &graph, dhlo::ConvolutionsBy by) {
  mlir::DialectRegistry registry;
  codegen::registerCudaPipelineDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  mlir::OwningOpRef<mlir::ModuleOp> module = importGraph(context, graph);
  EXPECT_TRUE(module);
  if (!module)
    return {};
  Printed printed;
  llvm::raw_string_ostream os(printed.plan);
  printed.fusions = dhlo::printSimplifiedFusionPlans(*module, os, by);
  return printed;
}

/// A 3x3 convolution and a relu: the CPU's plan leaves the convolution to
/// its library, CUDA's expands it into a contraction first.
v1::Graph convolutionRelu() {
  client::GraphBuilder b("conv_relu");
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"n", 3, "h", "w"});
  client::Value w = b.seededUniform(v1::DTYPE_F32, {4, 3, 3, 3}, 7, -1, 1);
  client::Value y = b.convolution(x, w, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1);
  b.output(b.max(y, b.scalar(0.0)));
  auto graph = b.build();
  EXPECT_TRUE(graph.isOk()) << graph.status().toString();
  return graph.isOk() ? *graph : v1::Graph();
}

void expectReportedPlanIsPrintedPlan(const std::string &name,
                                     compiler::KernelBackend backend,
                                     dhlo::ConvolutionsBy by) {
  SCOPED_TRACE(name);
  v1::Graph graph =
      name == "conv_relu" ? convolutionRelu() : test::exampleGraph(name);
  compiler::CompileReport report;
  auto executable =
      compiler::Compiler::compile(graph, test::onBackend(backend), &report);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  Printed printed = printedPlan(graph, by);
  EXPECT_EQ(report.fusionPlan, printed.plan);
  EXPECT_EQ(report.kernelCount, printed.fusions);
  EXPECT_GT(report.kernelCount, 0);
}

const char *const kExamples[] = {"mlp", "embedding", "elementwise_reduce",
                                 "bert_encoder_layer", "conv_relu"};

TEST(FusionPlanReport, IsThePlanThePlannerPrintsOnTheCpu) {
  for (const char *name : kExamples)
    expectReportedPlanIsPrintedPlan(name, compiler::KernelBackend::kCpu,
                                    dhlo::ConvolutionsBy::kLibrary);
}

TEST(FusionPlanReport, IsThePlanThePlannerPrintsForCuda) {
  for (const char *name : kExamples)
    expectReportedPlanIsPrintedPlan(name,
                                    compiler::KernelBackend::kCudaEmulated,
                                    dhlo::ConvolutionsBy::kKernels);
}

TEST(FusionPlanReport, ACompileWithoutAReportStillCountsItsFusions) {
  // The progress line of the pipeline stage names the fusions formed.
  compiler::CompileOptions options;
  std::string detail;
  options.progress = [&](const compiler::CompileStage &stage) {
    if (stage.name == "MLIR pipeline")
      detail = stage.detail;
  };
  v1::Graph graph = test::exampleGraph("mlp");
  ASSERT_TRUE(compiler::Compiler::compile(graph, options).isOk());
  Printed printed = printedPlan(graph, dhlo::ConvolutionsBy::kLibrary);
  EXPECT_EQ(detail.rfind(std::to_string(printed.fusions) + " fusions, ", 0), 0u)
      << detail;
}

} // namespace
} // namespace anyshape

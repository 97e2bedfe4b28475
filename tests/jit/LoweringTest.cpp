// The context a compile runs in. A diagnostic must not print its op: MLIR's
// translation to LLVM IR warns once per function argument with an
// attribute it leaves out, and printing the function into each warning
// made a compile quadratic in the graph's inputs (a 1,000-input
// concatenate spent 57% of its 22 s there).
#include "compiler/Lowering.h"
#include "../support/ExampleGraph.h"
#include "codegen/CPU/CpuTarget.h"
#include "ir/graph/Validate.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <functional>

using namespace anyshape;

namespace {

/// A backend whose pipeline is `passes` (Backend.h's seam, as a new
/// target would plug in).
class TestBackend final : public compiler::Backend {
public:
  explicit TestBackend(
      std::function<void(mlir::OpPassManager &)> passes = nullptr)
      : passes_(std::move(passes)) {}
  const char *pipelineName() const override { return "the test pipeline"; }
  void registerDialects(mlir::DialectRegistry &) const override {}
  void buildPipeline(mlir::OpPassManager &pm,
                     dhlo::FormedFusionPlan *) const override {
    if (passes_)
      passes_(pm);
  }
  const codegen::CpuTarget &host() const override { return host_; }

private:
  std::function<void(mlir::OpPassManager &)> passes_;
  codegen::CpuTarget host_ = codegen::CpuTarget::host();
};

TEST(Lowering, DiagnosticsDoNotPrintTheirOperation) {
  v1::Graph graph = test::exampleGraph("mlp");
  auto info = validateGraph(graph);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  TestBackend backend;
  auto lowered = compiler::LoweredGraph::import(backend, graph, *info, nullptr);
  ASSERT_TRUE(lowered.isOk()) << lowered.status().toString();
  ASSERT_TRUE((*lowered)->runPipeline(backend, {}).isOk());
  int warnings = 0;
  int notes = -1;
  mlir::ModuleOp module = (*lowered)->module();
  mlir::ScopedDiagnosticHandler count(
      module.getContext(), [&](mlir::Diagnostic &diagnostic) {
        ++warnings;
        notes = static_cast<int>(std::distance(diagnostic.getNotes().begin(),
                                               diagnostic.getNotes().end()));
        return mlir::success();
      });
  module.emitWarning("an attribute is left out");
  EXPECT_EQ(warnings, 1);
  EXPECT_EQ(notes, 0) << "the warning printed the module into a note";
}

/// A broken pass: it drops every function's terminator, which the
/// verifier refuses.
struct DropTerminators
    : mlir::PassWrapper<DropTerminators, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropTerminators)
  void runOnOperation() override {
    getOperation().walk([](mlir::func::FuncOp f) {
      if (!f.getBody().empty())
        f.getBody().back().getTerminator()->erase();
    });
  }
};

/// Without the verifier after every pass (a compile's default: it was
/// half of the MLIR time), IR a pass broke is still an error, never
/// handed on; with it, the error names the pass.
TEST(Lowering, InvalidIrAfterThePipelineIsAnErrorEitherWay) {
  v1::Graph graph = test::exampleGraph("mlp");
  auto info = validateGraph(graph);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  TestBackend broken([](mlir::OpPassManager &pm) {
    pm.addPass(std::make_unique<DropTerminators>());
  });
  for (bool verifyEachPass : {false, true}) {
    auto lowered =
        compiler::LoweredGraph::import(broken, graph, *info, nullptr);
    ASSERT_TRUE(lowered.isOk()) << lowered.status().toString();
    compiler::PipelineRun run;
    run.verifyEachPass = verifyEachPass;
    Status status = (*lowered)->runPipeline(broken, run);
    EXPECT_EQ(status.code(), StatusCode::Internal) << verifyEachPass;
    EXPECT_NE(status.message().find("the test pipeline"), std::string::npos)
        << status.toString();
  }
}

} // namespace

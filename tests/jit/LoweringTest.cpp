// The context a compile runs in. A diagnostic must not print its op: MLIR's
// translation to LLVM IR warns once per function argument with an
// attribute it leaves out, and printing the function into each warning
// made a compile quadratic in the graph's inputs (a 1,000-input
// concatenate spent 57% of its 22 s there).
#include "compiler/Lowering.h"
#include "../support/ExampleGraph.h"
#include "ir/graph/Validate.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace anyshape;

namespace {

TEST(Lowering, DiagnosticsDoNotPrintTheirOperation) {
  v1::Graph graph = test::exampleGraph("mlp");
  auto info = validateGraph(graph);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  compiler::LoweringRequest request;
  request.graph = &graph;
  request.info = &*info;
  int warnings = 0;
  int notes = -1;
  Status status = compiler::lowerGraph(
      request, "no passes", [](mlir::OpPassManager &) {},
      [&](mlir::ModuleOp module) {
        mlir::ScopedDiagnosticHandler count(
            module.getContext(), [&](mlir::Diagnostic &diagnostic) {
              ++warnings;
              notes = static_cast<int>(std::distance(
                  diagnostic.getNotes().begin(), diagnostic.getNotes().end()));
              return mlir::success();
            });
        module.emitWarning("an attribute is left out");
        return Status::ok();
      });
  ASSERT_TRUE(status.isOk()) << status.toString();
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
/// half of the MLIR time), IR a pass broke still never reaches its use;
/// with it, the error names the pass.
TEST(Lowering, InvalidIrAfterThePipelineIsAnErrorEitherWay) {
  v1::Graph graph = test::exampleGraph("mlp");
  auto info = validateGraph(graph);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  for (bool verifyEachPass : {false, true}) {
    compiler::LoweringRequest request;
    request.graph = &graph;
    request.info = &*info;
    request.verifyEachPass = verifyEachPass;
    bool used = false;
    Status status = compiler::lowerGraph(
        request, "the broken pipeline",
        [](mlir::OpPassManager &pm) {
          pm.addPass(std::make_unique<DropTerminators>());
        },
        [&](mlir::ModuleOp) {
          used = true;
          return Status::ok();
        });
    EXPECT_EQ(status.code(), StatusCode::Internal) << verifyEachPass;
    EXPECT_NE(status.message().find("the broken pipeline"), std::string::npos)
        << status.toString();
    EXPECT_FALSE(used) << "invalid IR was handed on (verifyEachPass "
                       << verifyEachPass << ")";
  }
}

} // namespace

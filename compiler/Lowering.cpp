//===- Lowering.cpp - a graph through a backend's pipeline ---*- C++ -*-===//
#include "compiler/Lowering.h"

#include "ir/import/GraphImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace anyshape::compiler {

namespace {

constexpr int kErrorsShown = 8;

/// A dialect registry the context is made with (it must exist first).
mlir::DialectRegistry dialectsOf(const Backend &backend) {
  mlir::DialectRegistry registry;
  backend.registerDialects(registry);
  return registry;
}

/// Weights as text would make each dumped file hundreds of MB.
mlir::OpPrintingFlags dumpFlags() {
  return mlir::OpPrintingFlags().elideLargeElementsAttrs(16);
}

} // namespace

LoweredGraph::LoweredGraph(const Backend &backend)
    : context_(dialectsOf(backend), mlir::MLIRContext::Threading::DISABLED) {
  context_.loadAllAvailableDialects();
  // A diagnostic on an op would otherwise print that op into a note, and
  // no one reads the notes: MLIR's translation to LLVM IR warns once per
  // function argument with an attribute it does not translate (the
  // importer's `dhlo.name`), printing the whole function each time --
  // quadratic in a graph's inputs (57% of a 1,000-input compile).
  context_.printOpOnDiagnostic(false);
  handler_ =
      context_.getDiagEngine().registerHandler([this](mlir::Diagnostic &d) {
        if (d.getSeverity() == mlir::DiagnosticSeverity::Warning && warnings_ &&
            warnings_->size() < kErrorsShown)
          warnings_->push_back(d.str());
        if (d.getSeverity() != mlir::DiagnosticSeverity::Error)
          return mlir::success();
        if (++errors_ <= kErrorsShown)
          diagnostics_ += (diagnostics_.empty() ? "" : "; ") + d.str();
        else if (errors_ == kErrorsShown + 1)
          diagnostics_ += "; and more";
        return mlir::success();
      });
}

LoweredGraph::~LoweredGraph() {
  module_ = nullptr; // before the context it lives in
  context_.getDiagEngine().eraseHandler(handler_);
}

StatusOr<std::unique_ptr<LoweredGraph>>
LoweredGraph::import(const Backend &backend, const v1::Graph &graph,
                     const GraphInfo &info, const TensorLookup *tensors,
                     const std::string &dumpDir) {
  std::unique_ptr<LoweredGraph> lowered(new LoweredGraph(backend));
  ImportOptions options;
  options.tensors = tensors;
  options.validated = &info;
  lowered->module_ = importGraph(lowered->context_, graph, options);
  if (!lowered->module_)
    return invalidArgument(lowered->diagnostics_);
  if (!dumpDir.empty() && !llvm::sys::fs::create_directories(dumpDir)) {
    std::error_code error;
    llvm::raw_fd_ostream out(dumpDir + "/main.mlir", error);
    if (!error)
      lowered->module_->print(out, dumpFlags());
  }
  return lowered;
}

Status LoweredGraph::runPipeline(const Backend &backend,
                                 const PipelineRun &run) {
  mlir::PassManager pm(&context_);
  backend.buildPipeline(pm, run.formed);
  bool verifyEachPass = run.verifyEachPass || !run.dumpDir.empty();
  pm.enableVerifier(verifyEachPass);
  if (!run.dumpDir.empty())
    pm.enableIRPrintingToFileTree(
        [](mlir::Pass *, mlir::Operation *) { return false; },
        [](mlir::Pass *, mlir::Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/true,
        /*printAfterOnlyOnFailure=*/false, run.dumpDir, dumpFlags());
  warnings_ = run.warnings;
  bool failed = mlir::failed(pm.run(*module_));
  warnings_ = nullptr;
  if (failed)
    return internalError(std::string(backend.pipelineName()) +
                         " failed: " + diagnostics_);
  // Nothing invalid goes on to LLVM: one verification of the result costs
  // what one pass's did.
  if (!verifyEachPass && mlir::failed(mlir::verify(*module_)))
    return internalError(
        std::string(backend.pipelineName()) +
        " left invalid IR: " + diagnostics_ +
        " (a compile with --dump-ir verifies after every pass and names "
        "the one at fault)");
  return Status::ok();
}

} // namespace anyshape::compiler

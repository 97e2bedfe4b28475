//===- Lowering.cpp - a validated graph through a pipeline ------*- C++ -*-===//
#include "compiler/Lowering.h"

#include "codegen/CPU/Dialects.h"
#include "codegen/CUDA/Dialects.h"

#include "ir/dhlo/Transforms/Passes.h"
#include "ir/import/GraphImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

namespace anyshape::compiler {

Status lowerGraph(const LoweringRequest &request,
                  const std::string &pipelineName,
                  llvm::function_ref<void(mlir::OpPassManager &)> buildPipeline,
                  llvm::function_ref<Status(mlir::ModuleOp)> use) {
  mlir::DialectRegistry registry;
  if (request.cudaDialects)
    codegen::registerCudaPipelineDialects(registry);
  else
    codegen::registerCpuPipelineDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  // A diagnostic on an op would otherwise print that op into a note, and
  // no one reads the notes: MLIR's translation to LLVM IR warns once per
  // function argument with an attribute it does not translate (the
  // importer's `dhlo.name`), printing the whole function each time --
  // quadratic in a graph's inputs (57% of a 1,000-input compile).
  context.printOpOnDiagnostic(false);
  // The first errors only: one failing rule can fail every op of a large
  // graph, and a status message is read by a person.
  std::string diagnostics;
  int errors = 0;
  constexpr int kErrorsShown = 8;
  // Warnings are the pipeline's own: the translation to LLVM IR warns of
  // every argument attribute it drops.
  bool inPipeline = false;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Warning && inPipeline &&
        request.warnings && request.warnings->size() < kErrorsShown)
      request.warnings->push_back(d.str());
    if (d.getSeverity() != mlir::DiagnosticSeverity::Error)
      return mlir::success();
    if (++errors <= kErrorsShown)
      diagnostics += (diagnostics.empty() ? "" : "; ") + d.str();
    else if (errors == kErrorsShown + 1)
      diagnostics += "; and more";
    return mlir::success();
  });

  ImportOptions importOptions;
  importOptions.tensors = request.tensors;
  importOptions.validated = request.info;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importGraph(context, *request.graph, importOptions);
  if (!module)
    return invalidArgument(diagnostics);
  if (request.imported)
    request.imported();
  mlir::PassManager pm(&context);
  buildPipeline(pm);
  bool verifyEachPass = request.verifyEachPass || !request.dumpIrDir.empty();
  pm.enableVerifier(verifyEachPass);
  if (!request.dumpIrDir.empty())
    pm.enableIRPrintingToFileTree(
        [](mlir::Pass *, mlir::Operation *) { return false; },
        [](mlir::Pass *, mlir::Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/true,
        /*printAfterOnlyOnFailure=*/false, request.dumpIrDir,
        // Weights as text would make each file hundreds of MB.
        mlir::OpPrintingFlags().elideLargeElementsAttrs(16));
  inPipeline = true;
  bool failed = mlir::failed(pm.run(*module));
  inPipeline = false;
  if (failed)
    return internalError(pipelineName + " failed: " + diagnostics);
  // Nothing invalid goes on to LLVM: one verification of the result costs
  // what one pass's did.
  if (!verifyEachPass && mlir::failed(mlir::verify(*module)))
    return internalError(
        pipelineName + " left invalid IR: " + diagnostics +
        " (a compile with --dump-ir verifies after every pass and names "
        "the one at fault)");
  return use(*module);
}

} // namespace anyshape::compiler

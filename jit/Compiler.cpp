//===- Compiler.cpp - graph to Executable ----------------------*- C++ -*-===//
//
// validate -> import (dhlo, with the run-time shape checks validation
// found) -> the CPU pipeline, whose first passes turn the checks into code
// and set the entry ABI -> object code (ObjectCode.h) -> linked into this
// process (Executable::load).
// Diagnostics from any stage are collected into the returned Status; a
// graph that validated but fails later is an anyshape bug (INTERNAL).
//
//===----------------------------------------------------------------------===//
#include "jit/Compiler.h"

#include "codegen/CPU/CpuPipeline.h"
#include "codegen/CPU/Dialects.h"

#include "ir/dhlo/Transforms/Passes.h"
#include "ir/graph/Specialize.h"
#include "ir/graph/Validate.h"
#include "ir/import/GraphImporter.h"
#include "jit/ObjectCode.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>
#include <optional>

namespace anyshape::jit {

std::atomic<int64_t> Compiler::compiles_{0};

int64_t Compiler::compileCount() { return compiles_.load(); }

namespace {

/// Import, pipeline and object code for a validated graph. The MLIR
/// context, and the constants it holds, are gone when this returns.
StatusOr<std::string>
compileValidated(const v1::Graph &graph, const GraphInfo &info,
                 const CompileOptions &options, CompileReport *report,
                 std::chrono::steady_clock::time_point start) {
  mlir::DialectRegistry registry;
  codegen::registerCpuPipelineDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      diagnostics += (diagnostics.empty() ? "" : "; ") + d.str();
    return mlir::success();
  });

  ImportOptions importOptions;
  importOptions.tensors = options.tensors;
  importOptions.validated = &info;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importGraph(context, graph, importOptions);
  if (!module)
    return invalidArgument(diagnostics);
  if (report) {
    // The plan the pipeline marks and follows, as `anyshape fusion-plan`
    // prints it.
    llvm::raw_string_ostream text(report->fusionPlan);
    report->kernelCount = dhlo::printSimplifiedFusionPlans(*module, text);
  }
  mlir::PassManager pm(&context);
  codegen::buildCpuPipeline(pm, options.pipeline);
  if (!options.dumpIrDir.empty())
    pm.enableIRPrintingToFileTree(
        [](mlir::Pass *, mlir::Operation *) { return false; },
        [](mlir::Pass *, mlir::Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/true,
        /*printAfterOnlyOnFailure=*/false, options.dumpIrDir,
        // Weights as text would make each file hundreds of MB.
        mlir::OpPrintingFlags().elideLargeElementsAttrs(16));
  if (mlir::failed(pm.run(*module)))
    return internalError("CPU pipeline failed: " + diagnostics);

  auto pipelineDone = std::chrono::steady_clock::now();
  if (report) {
    using Seconds = std::chrono::duration<double>;
    report->pipelineSeconds = Seconds(pipelineDone - start).count();
  }
  return emitObjectCode(*module, options.optLevel, options.pipeline.target,
                        options.dumpIrDir);
}

} // namespace

StatusOr<CompiledObject>
Compiler::compileToObject(const v1::Graph &original,
                          const CompileOptions &options,
                          CompileReport *report) {
  auto start = std::chrono::steady_clock::now();
  // Validated before specialising, so errors name the graph as written;
  // a specialised graph is validated again for its own types. The import
  // and the caller (CompiledObject::info) reuse the validation.
  ANYSHAPE_ASSIGN_OR_RETURN(GraphInfo info,
                            validateGraph(original, options.limits));
  // No copy of an unspecialised graph until the compile is done: its
  // constants may be most of this process's memory.
  std::optional<v1::Graph> specialized;
  if (!options.staticSymbols.empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(specialized,
                              specializeGraph(original, options.staticSymbols));
    ANYSHAPE_ASSIGN_OR_RETURN(info,
                              validateGraph(*specialized, options.limits));
  }
  const v1::Graph &graph = specialized ? *specialized : original;
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::string object,
      compileValidated(graph, info, options, report, start));
  ++compiles_;
  if (report) {
    using Seconds = std::chrono::duration<double>;
    auto done = std::chrono::steady_clock::now();
    report->seconds = Seconds(done - start).count();
    report->codegenSeconds = report->seconds - report->pipelineSeconds;
    report->linkSeconds = 0;
  }
  return CompiledObject{specialized ? std::move(*specialized) : original,
                        std::move(info), std::move(object)};
}

StatusOr<std::shared_ptr<Executable>>
Compiler::compile(const v1::Graph &graph, const CompileOptions &options,
                  CompileReport *report) {
  auto start = std::chrono::steady_clock::now();
  ANYSHAPE_ASSIGN_OR_RETURN(CompiledObject compiled,
                            compileToObject(graph, options, report));
  auto linkStart = std::chrono::steady_clock::now();
  ANYSHAPE_ASSIGN_OR_RETURN(std::shared_ptr<Executable> executable,
                            Executable::load(std::move(compiled.compiledGraph),
                                             std::move(compiled.info),
                                             std::move(compiled.objectCode),
                                             options.limits));
  if (report) {
    using Seconds = std::chrono::duration<double>;
    auto done = std::chrono::steady_clock::now();
    report->seconds = Seconds(done - start).count();
    report->linkSeconds = Seconds(done - linkStart).count();
  }
  return executable;
}

} // namespace anyshape::jit

//===- Compiler.cpp - graph to Executable -------------------------*- C++
//-*-===//
//
// validate -> import (dhlo) -> entry ABI -> CPU pipeline -> LLVM -> ORC JIT.
// Diagnostics from any stage are collected into the returned Status; a
// graph that validated but fails later is an anyshape bug (INTERNAL).
//
//===----------------------------------------------------------------------===//
#include "jit/Compiler.h"

#include "jit/CpuPipeline.h"
#include "jit/Dialects.h"

#include "ir/graph/Specialize.h"
#include "ir/graph/Validate.h"
#include "ir/import/GraphImporter.h"
#include "jit/Passes.h"
#include "runtime/Gemm.h"
#include "runtime/MemrefCopy.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

namespace anyshape::jit {

std::atomic<int64_t> Compiler::compiles_{0};

int64_t Compiler::compileCount() { return compiles_.load(); }

StatusOr<std::shared_ptr<Executable>>
Compiler::compile(const v1::Graph &original, const CompileOptions &options) {
  static std::once_flag nativeTarget;
  std::call_once(nativeTarget, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  // Validated before specialising, so errors name the graph as written.
  ANYSHAPE_RETURN_IF_ERROR(validateGraph(original).status());
  v1::Graph graph = original;
  if (!options.staticSymbols.empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(graph,
                              specializeGraph(original, options.staticSymbols));
  }
  ANYSHAPE_ASSIGN_OR_RETURN(GraphInfo info, validateGraph(graph));

  mlir::DialectRegistry registry;
  registerCpuPipelineDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      diagnostics += (diagnostics.empty() ? "" : "; ") + d.str();
    return mlir::success();
  });

  mlir::OwningOpRef<mlir::ModuleOp> module = importGraph(context, graph);
  if (!module)
    return invalidArgument(diagnostics);
  prepareEntryAbi(*module);
  mlir::PassManager pm(&context);
  buildCpuPipeline(pm, options.pipeline);
  if (!options.dumpIrDir.empty())
    pm.enableIRPrintingToFileTree(
        [](mlir::Pass *, mlir::Operation *) { return false; },
        [](mlir::Pass *, mlir::Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/true,
        /*printAfterOnlyOnFailure=*/false, options.dumpIrDir);
  if (mlir::failed(pm.run(*module)))
    return internalError("CPU pipeline failed: " + diagnostics);

  mlir::ExecutionEngineOptions engineOptions;
  // `transformer` is a function_ref: the function must outlive create().
  std::function<llvm::Error(llvm::Module *)> optimize =
      mlir::makeOptimizingTransformer(
          static_cast<unsigned>(std::clamp(options.optLevel, 0, 3)), 0,
          nullptr);
  engineOptions.transformer = optimize;
  auto engine = mlir::ExecutionEngine::create(*module, engineOptions);
  if (!engine)
    return internalError("JIT failed: " + llvm::toString(engine.takeError()) +
                         (diagnostics.empty() ? "" : ": " + diagnostics));
  // Runtime functions are absolute symbols: no lookup by name at run time.
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner mangle) {
    llvm::orc::SymbolMap symbols;
    symbols[mangle("memrefCopy")] = {
        llvm::orc::ExecutorAddr::fromPtr(&runtime::anyshapeMemrefCopy),
        llvm::JITSymbolFlags::Exported};
    symbols[mangle(std::string("_mlir_ciface_") + kBatchMatmulF32)] = {
        llvm::orc::ExecutorAddr::fromPtr(&runtime::anyshapeBatchMatmulF32),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });

  // Materialise the machine code now, so no run pays for code generation.
  if (auto entry = (*engine)->lookupPacked("_mlir_ciface_main"); !entry)
    return internalError("JIT lookup failed: " +
                         llvm::toString(entry.takeError()));

  std::vector<TensorSignature> outputs;
  for (const std::string &name : graph.outputs()) {
    const SymTensorType &type = info.typeOf(info.values.at(name));
    outputs.push_back({type.dtype, type.rank()});
  }
  ++compiles_;
  return std::make_shared<Executable>(graph, std::move(info),
                                      std::move(outputs), std::move(*engine));
}

} // namespace anyshape::jit

// `anyshape import FILE` prints the dhlo module the compiler starts from;
// `anyshape fusion-plan FILE` prints how it would be grouped into kernels.
// (The subcommands that need MLIR.)
#include "Cli.h"
#include "frontend/onnx/OnnxImport.h"

#include "ir/dhlo/Transforms/Passes.h"
#include "ir/graph/GraphText.h"
#include "ir/import/GraphImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace anyshape::cli {
namespace {

/// The graph in `file` imported into `context`; null after printing one
/// "error: <message>" line per problem to stderr.
mlir::OwningOpRef<mlir::ModuleOp> loadAndImport(const std::string &file,
                                                mlir::MLIRContext &context) {
  auto graph = onnx::loadModelFile(file);
  if (!graph) {
    std::fprintf(stderr, "error: %s\n", graph.status().message().c_str());
    return nullptr;
  }
  mlir::ScopedDiagnosticHandler handler(&context, [](mlir::Diagnostic &diag) {
    llvm::errs() << "error: " << diag.str() << "\n";
    return mlir::success();
  });
  return importGraph(context, *graph);
}

} // namespace

int runImport(const GlobalOptions &, const std::vector<std::string> &args) {
  std::string file;
  bool fullConstants = false, debugInfo = false;
  for (const std::string &arg : args) {
    if (arg == "--full-constants")
      fullConstants = true;
    else if (arg == "--debuginfo")
      debugInfo = true;
    else if (arg.rfind("--", 0) == 0 || !file.empty()) {
      std::fprintf(stderr,
                   "anyshape: unexpected argument '%s' (see anyshape "
                   "--help)\n",
                   arg.c_str());
      return 2;
    } else
      file = arg;
  }
  if (file.empty()) {
    std::fprintf(stderr, "anyshape: import needs a FILE\n");
    return 2;
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module = loadAndImport(file, context);
  if (!module)
    return 1;
  mlir::OpPrintingFlags flags;
  if (!fullConstants)
    flags.elideLargeElementsAttrs(16);
  if (debugInfo)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  module->print(llvm::outs(), flags);
  llvm::outs() << "\n";
  return 0;
}

int runFusionPlan(const GlobalOptions &, const std::vector<std::string> &args) {
  if (args.size() != 1 || args[0].rfind("--", 0) == 0) {
    std::fprintf(stderr, "anyshape: fusion-plan takes exactly one FILE\n");
    return 2;
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module = loadAndImport(args[0], context);
  if (!module)
    return 1;
  return dhlo::printSimplifiedFusionPlans(*module, llvm::outs(),
                                          dhlo::ConvolutionsBy::kLibrary) < 0
             ? 1
             : 0;
}

} // namespace anyshape::cli

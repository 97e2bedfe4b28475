//===- Lowering.h - a graph through a backend's pipeline -----*- C++ -*-===//
//
// What every compile does between validation and LLVM, as one object: a
// fresh MLIR context with the backend's dialects, the graph imported as
// dhlo (with the shape checks its validation found), the backend's pass
// pipeline run on it with every error collected, and the IR written to a
// dump folder on request. The context, and the constants it holds, live as
// long as the LoweredGraph: the caller hands its module on to LLVM
// (ObjectCode.h) or reads the CUDA kernels off it (CudaKernels.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Backend.h"

#include "ir/graph/ConstantData.h"
#include "ir/graph/Validate.h"
#include "runtime/support/Status.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>
#include <vector>

namespace anyshape::compiler {

struct PipelineRun {
  /// The IR after every pass that changed it, into this folder.
  std::string dumpDir;
  /// Verify the IR after every pass, so a pass that breaks it is named
  /// (implied by dumpDir). Off, the module is verified once, after the
  /// pipeline: the per-pass verifier was half of the 12-layer encoder's
  /// MLIR time (1.7 s of the pipeline, 0.8 s without it).
  bool verifyEachPass = false;
  /// Receives the plan the pipeline forms, if set.
  dhlo::FormedFusionPlan *formed = nullptr;
  /// Receives the pipeline's warnings (the first few), if set: a kernel
  /// formed against the fusion plan, where that is allowed.
  std::vector<std::string> *warnings = nullptr;
};

class LoweredGraph {
public:
  /// `graph` (validated as `info`) imported for `backend`; InvalidArgument
  /// with the importer's errors if it refuses the graph. With `dumpDir`,
  /// the imported module is written there (main.mlir).
  static StatusOr<std::unique_ptr<LoweredGraph>>
  import(const Backend &backend, const v1::Graph &graph, const GraphInfo &info,
         const TensorLookup *tensors, const std::string &dumpDir = "");

  /// Runs the backend's pipeline and verifies what it left. A failure is
  /// Internal (the graph validated), named after the pipeline.
  Status runPipeline(const Backend &backend, const PipelineRun &run);

  mlir::ModuleOp module() { return *module_; }

  ~LoweredGraph();

private:
  explicit LoweredGraph(const Backend &backend);

  mlir::MLIRContext context_;
  mlir::OwningOpRef<mlir::ModuleOp> module_;
  /// The first errors, for a status message (one failing rule can fail
  /// every op of a large graph).
  std::string diagnostics_;
  int errors_ = 0;
  /// Where the pipeline's warnings go while it runs (else nowhere: the
  /// translation to LLVM IR warns of every argument attribute it drops).
  std::vector<std::string> *warnings_ = nullptr;
  mlir::DiagnosticEngine::HandlerID handler_;
};

} // namespace anyshape::compiler

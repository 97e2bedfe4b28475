//===- Lowering.h - a validated graph through a pipeline ---------*- C++
//-*-===//
//
// What every compile does between validation and its product: a fresh
// MLIR context, the graph imported as dhlo (with the shape checks its
// validation found), a pass pipeline run on it with every error
// collected, the IR after each stage written to a dump directory on
// request. The compiler's object code (Compiler.cpp) and the CUDA kernels
// (CudaKernels.cpp) are the same lowering with different pipelines and a
// different use of the module it leaves.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/dhlo/Transforms/Passes.h"
#include "ir/graph/ConstantData.h"
#include "ir/graph/Validate.h"
#include "runtime/support/Status.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>
#include <string>
#include <vector>

namespace anyshape::compiler {

struct LoweringRequest {
  const v1::Graph *graph = nullptr;
  const GraphInfo *info = nullptr; ///< graph's validation
  const TensorLookup *tensors = nullptr;
  std::string dumpIrDir;
  /// Verify the IR after every pass, so a pass that breaks it is named
  /// (implied by dumpIrDir). Off, the module is verified once, after the
  /// pipeline: the per-pass verifier was half of the 12-layer encoder's
  /// MLIR time (1.7 s of the pipeline, 0.8 s without it).
  bool verifyEachPass = false;
  /// The CUDA dialects and NVVM target too (codegen/CUDA/Dialects.h).
  bool cudaDialects = false;
  /// Receives the pipeline's warnings (the first few), if set: a kernel
  /// formed against the fusion plan, where that is allowed.
  std::vector<std::string> *warnings = nullptr;
  /// Called once the graph is imported.
  std::function<void()> imported;
};

/// Imports, runs `buildPipeline`'s passes, verifies what they left, then
/// hands the module to `use` while its context lives. A graph that fails
/// to import is InvalidArgument; a pipeline failure or invalid IR after it
/// is Internal, named `pipelineName`.
Status lowerGraph(const LoweringRequest &request,
                  const std::string &pipelineName,
                  llvm::function_ref<void(mlir::OpPassManager &)> buildPipeline,
                  llvm::function_ref<Status(mlir::ModuleOp)> use);

} // namespace anyshape::compiler

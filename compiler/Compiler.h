//===- Compiler.h - compile a graph once, run it at any shape ---*- C++ -*-===//
//
// The compiler facade: Compiler::compile validates a wire-format graph,
// imports it as dhlo, runs its backend's pipeline (Backend.h) with every
// dynamic dim symbolic, emits object code and links it into an Executable
// (jit/) that runs for any input shapes satisfying the graph's
// constraints. Compiler.cpp's compileToObject is the whole compile, one
// stage (Stage.h) after another.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/CPU/CpuPipeline.h"
#include "codegen/CUDA/CudaPipeline.h"
#include "compiler/Backend.h"
#include "compiler/Stage.h"
#include "jit/Executable.h"
#include "runtime/cuda/CudaLaunch.h"

#include "ir/graph/ConstantData.h"
#include "ir/graph/Validate.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace anyshape::compiler {

/// One stage of a compile (Stage.h), as the progress callback and the
/// report see it.
struct CompileStage {
  Stage stage = Stage::kValidate;
  std::string name;   ///< stageName(stage)
  std::string detail; ///< e.g. the kernels after the MLIR pipeline
  double seconds = 0; ///< this stage alone
  double elapsed = 0; ///< since the compile began, at this stage's end
};

struct CompileOptions {
  /// LLVM optimisation level for the generated code (0-3).
  /// O2: O3 took 7x longer on the encoder (unrolling and interleaving
  /// of already vectorised loops) for no measured speed-up.
  int optLevel = 2;
  /// Parts the optimised module is emitted in, on as many threads
  /// (compiler/ParallelCodegen.h): 0 lets the module's size and the cores
  /// decide. The code is equivalent either way, so it is not part of the
  /// cache key.
  int codegenParts = 0;
  /// Write the IR each stage leaves into this directory, a folder per
  /// stage (stageFolder).
  std::string dumpIrDir;
  /// Codegen choices (fusion on or off); `target` is also the host the
  /// object code is for, emulated CUDA kernels included.
  codegen::CpuPipelineOptions pipeline;
  KernelBackend backend = KernelBackend::kCpu;
  /// kCuda's and kCudaEmulated's codegen choices (`emulate` is implied by
  /// the backend).
  codegen::CudaPipelineOptions cuda;
  /// Static specialisation: these symbols are compiled as these sizes
  /// (ir/graph/Specialize.h). Part of the compile cache key.
  std::map<std::string, int64_t> staticSymbols;
  /// Resolves constants that reference stored tensors (tensor_id); the
  /// lookup must outlive compile().
  const TensorLookup *tensors = nullptr;
  /// What the graph is validated against; maxElementsPerTensor is also
  /// the element limit the generated shape checks enforce at run time, so
  /// the server keys its cache on it.
  GraphLimits limits;
  /// Called as each stage ends, on the compiling thread (the CLI prints
  /// progress from it). Not part of what is compiled.
  std::function<void(const CompileStage &)> progress;
};

/// What a compile produced besides the executable.
struct CompileReport {
  std::string fusionPlan;  ///< as `anyshape fusion-plan` prints it
  int64_t kernelCount = 0; ///< fusions in the plan
  /// Kernel functions emitted: identical kernels (stacked layers') are one
  /// (anyshape-merge-identical-kernels).
  int64_t kernelFunctions = 0;
  double seconds = 0;         ///< the whole compile
  double pipelineSeconds = 0; ///< import + MLIR pipeline
  double codegenSeconds = 0;  ///< LLVM optimisation and object emission
  double linkSeconds = 0;     ///< loading the object into the process
  /// In order; their seconds sum up. Appended to: one report per compile.
  std::vector<CompileStage> stages;
  /// What compiled but deserves a look (the first few): a fusion of the
  /// plan that codegen built as several kernels. Appended to.
  std::vector<std::string> warnings;
};

/// A compile's product before it is linked into a process: what
/// Executable::load takes (a cache tier or a compile worker carries this).
struct CompiledObject {
  v1::Graph compiledGraph; ///< after static specialisation
  GraphInfo info;          ///< compiledGraph's validation
  std::string objectCode;  ///< ObjectCode.h
  /// kCuda: the kernel images the host flow launches, by launch index.
  std::optional<jit::DeviceCode> device;
};

class Compiler {
public:
  static StatusOr<std::shared_ptr<jit::Executable>>
  compile(const v1::Graph &graph, const CompileOptions &options = {},
          CompileReport *report = nullptr);
  /// As compile, up to the object code: nothing is linked (linkSeconds
  /// stays 0). A compile worker's compile, loaded by the server.
  static StatusOr<CompiledObject>
  compileToObject(const v1::Graph &graph, const CompileOptions &options = {},
                  CompileReport *report = nullptr);

  /// Successful compiles in this process (tests assert one per graph).
  static int64_t compileCount();

private:
  static std::atomic<int64_t> compiles_;
};

} // namespace anyshape::compiler

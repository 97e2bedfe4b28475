//===- CudaPipeline.h - the CUDA compile pipeline ---------------*- C++ -*-===//
#pragma once

#include "codegen/CUDA/CudaTarget.h"
#include "ir/dhlo/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"

#include <string>

namespace anyshape::codegen {

/// Codegen choices of the CUDA pipeline.
struct CudaPipelineOptions {
  /// As CpuPipelineOptions::fuse.
  bool fuse = true;
  /// The chip and launch shapes generated for.
  CudaTarget target;
  /// Run the kernels on the CPU instead (anyshape-emulate-gpu-launches):
  /// the pipeline then ends in the LLVM dialect on the host, as the CPU
  /// pipeline does, and its object code runs like a CPU executable.
  bool emulate = false;
  /// On the device path, also a CPU version of each kernel with its
  /// launch parameters (anyshape-emulated-kernels), which the tests' fake
  /// driver runs for each launch; never for a served compile.
  bool emulatedKernels = false;
  /// A row kernel's version: "auto" (chosen per run by row length and
  /// count), or "thread", "warp", "block" forced (tests run each).
  std::string rowSchedule = "auto";
  /// A column kernel's version: "auto", or "thread", "tile" forced.
  std::string columnSchedule = "auto";
  /// 4-wide versions of loops walking the last dim (VectorAccesses.h);
  /// off, only their scalar versions (tests run both).
  bool vectorAccesses = true;
  /// As CpuPipelineOptions::printKernelFusions.
  bool printKernelFusions = false;
  /// The CUDA toolkit whose libdevice the kernels link; empty: MLIR's
  /// search ($CUDA_ROOT, $CUDA_HOME, $CUDA_PATH).
  std::string toolkitPath;
};

/// From imported dhlo to the host flow in the LLVM dialect, which launches
/// each fusion's kernels through the CUDA runtime (runtime/cuda), and the
/// kernels as PTX recorded on the module (kCudaKernelsAttr); or, emulated,
/// to a host flow running the kernels on the CPU. The plan, its buffers and its
/// kernels are formed by the stages the CPU pipeline runs
/// (codegen/Common/Stages.h). Registered as `anyshape-cuda-pipeline` in
/// anyshape-opt. With `formed`, as buildCpuPipeline.
void buildCudaPipeline(mlir::OpPassManager &pm,
                       const CudaPipelineOptions &options = {},
                       dhlo::FormedFusionPlan *formed = nullptr);

void registerCudaPipeline();

} // namespace anyshape::codegen

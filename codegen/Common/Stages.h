//===- Stages.h - the pipeline stages every target shares --------*- C++
//-*-===//
//
// The target-neutral parts of a compile's MLIR pipeline (the stage
// compiler/Stage.h calls kMlirPipeline), each a list of passes: the
// planned graph in linalg, its buffers, its kernels formed; the parts are
// named (entry, plan, linalg, buffers, kernels, loops, LLVM dialect) in
// the code and in docs/pipeline.md's table. A target's pipeline
// (codegen/CPU/CpuPipeline.cpp, codegen/CUDA/CudaPipeline.cpp) reads as these
// stages with its own passes in between, so both targets compile the same
// fusion plan into the same kernels.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/dhlo/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"

namespace anyshape::codegen {

/// The entry, plan and linalg parts of the MLIR pipeline
/// (docs/pipeline.md): the entry (the recorded shape checks as code, @main's
/// ABI); shapes simplified with the constraint analysis; the plan's kernels
/// formed as dhlo.fusion ops; dhlo to linalg on tensors, with large seeded
/// constants as globals filled at load; elementwise producers fused (when
/// `fuse`). Convolutions stay whole for the runtime to call a library on
/// (kLibrary), or become slices and a contraction (kKernels). The plan
/// is written to `formed` (if set) as it is formed.
void buildPlannedLinalgStages(mlir::OpPassManager &pm, bool fuse,
                              dhlo::ConvolutionsBy convolutions,
                              dhlo::FormedFusionPlan *formed = nullptr);

/// The buffers part: tensors to buffers, deallocated at last use; every output
/// a fresh buffer the caller owns. The buffers are the host flow's: kernels
/// allocate nothing.
void buildBufferizationStages(mlir::OpPassManager &pm);

/// A row reduction and its consumers (kStitch) stitched into one loop per
/// row, reduced values reused; then the check that codegen formed exactly
/// the plan's kernels (a departure fails the compile as an anyshape bug,
/// or with `allowDepartures` is a warning). Nothing when not `fuse`.
void buildKernelFormationStages(mlir::OpPassManager &pm, bool fuse,
                                bool printKernelFusions,
                                bool allowDepartures = false);

/// The pipeline's LLVM-dialect part alone, from scheduled kernels in their
/// fusions to the LLVM dialect on the host: each fusion outlined as a kernel
/// function, the execution context passed, then buildHostToLlvm: the CPU
/// pipeline's tail, and the CUDA pipeline's when emulated.
void buildHostLowering(mlir::OpPassManager &pm);
/// Outlined code that has its execution context to the LLVM dialect for
/// this CPU: dhlo.launch as calls, allocations from the context. The CUDA
/// target's host flow ends with it too, once its launches are runtime calls.
void buildHostToLlvm(mlir::OpPassManager &pm);

} // namespace anyshape::codegen

//===- CpuPipeline.h - the CPU compile pipeline ----------------*- C++ -*-===//
#pragma once

#include "codegen/CPU/CpuTarget.h"
#include "ir/dhlo/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

namespace anyshape::codegen {

/// Whether ANYSHAPE_STRICT_FUSION_PLAN is set (to anything but "0"): the
/// default of CpuPipelineOptions::allowPlanDepartures.
bool strictFusionPlanFromEnvironment();

/// Codegen choices of the CPU pipeline (part of the compile cache key).
struct CpuPipelineOptions {
  /// One kernel per op: for debugging and for measuring what fusion buys.
  /// Fused, the kernels codegen forms are checked against the fusion plan
  /// on every compile (anyshape-check-kernel-fusions).
  bool fuse = true;
  /// Kernels with enough work run on the OpenMP team (libgomp, shared
  /// with oneDNN); off, every kernel runs on the calling thread.
  bool parallel = true;
  /// Work (iterations) from which a kernel takes its parallel version;
  /// tests set 0 to run every kernel in parallel, sizes 0 and 1 included.
  int64_t parallelMinWork = 32768;
  /// The innermost dim of a parallel kernel is split into chunks of this
  /// many iterations, which the threads share with the outer dims: a
  /// [1, N] kernel runs on the whole team, not one thread. Tests set it
  /// small to cover partial chunks.
  int64_t parallelChunk = 4096;
  /// Row work (iterations per row, all row loops) from which a
  /// row-reduction kernel with fewer rows than threads shares each row
  /// among the threads (its split-row version): a softmax row of 32 Ki
  /// (row work 96 Ki) is where it starts to pay on 2 cores, as each row
  /// loop forks the team once (docs/benchmarks.md). Tests set 0 to run it
  /// at every size.
  int64_t splitRowMinWork = 131072;
  /// Elements of a column reduction's per-thread partial sums above which
  /// its threads share chunks of columns instead (64 MiB of f32); tests set
  /// 0 to run the column chunks.
  int64_t maxColumnPartials = int64_t{16} << 20;
  /// GEMMs on constant weights run from a pack of the weight the first
  /// run makes (anyshape-pack-constant-weights, runtime/PackedGemm.h):
  /// 2-4x faster GEMMs at a few rows, for each weight used its bytes once
  /// more in memory. Off, the library packs the weight in every call.
  bool packConstantWeights = true;
  /// Print every kernel with its plan fusions, and the departures, after
  /// kernel formation (anyshape-opt's `print-kernel-fusions`, for lit).
  bool printKernelFusions = false;
  /// A kernel codegen forms against the fusion plan (one fusion built as
  /// two kernels) is a warning, not a failed compile: the kernels are
  /// still right, only slower. The test suite makes departures fail
  /// (ANYSHAPE_STRICT_FUSION_PLAN, set by scripts/test) so none goes
  /// unseen.
  bool allowPlanDepartures = !strictFusionPlanFromEnvironment();
  /// The CPU generated for: this machine's (the object code is, too).
  CpuTarget target = CpuTarget::host();
};

/// Every stage from imported dhlo (`anyshape import`: the module carries
/// its run-time shape checks) to the LLVM dialect, in order (see
/// docs/pipeline.md). Registered as `anyshape-cpu-pipeline` in
/// anyshape-opt, with every option here, so anyshape-opt reproduces what
/// the compiler hands to ObjectCode.h. With `formed`, the fusion plan
/// the pipeline follows is written there as it is formed.
void buildCpuPipeline(mlir::OpPassManager &pm,
                      const CpuPipelineOptions &options = {},
                      dhlo::FormedFusionPlan *formed = nullptr);

void registerCpuPipeline();

} // namespace anyshape::codegen

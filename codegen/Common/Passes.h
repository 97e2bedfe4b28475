//===- Passes.h - target-neutral codegen passes -----------------*- C++ -*-===//
//
// Declarations of the target-neutral codegen passes (Passes.td), and the
// names generated code and the runtime agree on (runtime functions,
// symbols and attributes): one owner for each.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace anyshape::codegen {

#define GEN_PASS_DECL
#include "codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/Common/Passes.h.inc"

/// The runtime function the GEMM calls go to (C interface name).
inline constexpr const char *kBatchMatmulF32 = "anyshapeBatchMatmulF32";
/// The same with B a constant packed once into a slot (runtime/PackedGemm.h;
/// anyshape-pack-constant-weights): one more operand, the slot.
inline constexpr const char *kBatchMatmulPackedF32 =
    "anyshapeBatchMatmulPackedF32";
/// The runtime functions an index check calls (C interface names;
/// anyshape-index-checks-to-runtime-calls), for i32 and i64 indices.
inline constexpr const char *kCheckIndicesI32 = "anyshapeCheckIndicesI32";
inline constexpr const char *kCheckIndicesI64 = "anyshapeCheckIndicesI64";
/// The runtime function a rule on a nonzero's count calls
/// (anyshape-size-checks-to-runtime-calls; runtime/SizeChecks.h).
inline constexpr const char *kCheckSizes = "anyshapeCheckSizes";
/// Suffixes naming an element type in the declarations of runtime
/// functions that take buffers of any dtype ("anyshapeCountNonZero_f32"):
/// a declaration has one operand type, and the loader binds every suffix
/// to one function, which a `kind` operand tells how to read elements.
inline constexpr const char *kElementSuffixes[] = {"_i1",  "_i32",  "_i64",
                                                   "_f16", "_bf16", "_f32"};
/// The runtime functions a nonzero calls (C interface names;
/// anyshape-nonzero-to-runtime-calls), with a suffix of kElementSuffixes
/// for the operand (runtime/NonZero.h).
inline constexpr const char *kCountNonZero = "anyshapeCountNonZero";
inline constexpr const char *kNonZeroIndices = "anyshapeNonZeroIndices";
/// Whether `callee` is one of the functions above, with any suffix.
inline bool isNonZeroCall(llvm::StringRef callee) {
  return callee.starts_with(kCountNonZero) ||
         callee.starts_with(kNonZeroIndices);
}
/// The runtime function a scatter calls (anyshape-scatter-to-runtime-calls),
/// with a suffix of kElementSuffixes for the operand, updates and result
/// and one of kIndexSuffixes for the indices ("anyshapeScatter_f32_i64";
/// runtime/Scatter.h).
inline constexpr const char *kScatter = "anyshapeScatter";
inline constexpr const char *kIndexSuffixes[] = {"_i32", "_i64"};
/// The runtime function an argsort calls (anyshape-argsort-to-runtime-calls),
/// with a suffix of kElementSuffixes for the operand ("anyshapeArgsort_f32";
/// runtime/Argsort.h).
inline constexpr const char *kArgsort = "anyshapeArgsort";
/// The runtime function a cumulative calls
/// (anyshape-cumulative-to-runtime-calls), with a suffix of
/// kElementSuffixes ("anyshapeCumulative_f32"; runtime/Cumulative.h).
inline constexpr const char *kCumulative = "anyshapeCumulative";
/// The runtime function a convolution calls (anyshape-convolutions-to-
/// runtime-calls; runtime/Convolution.h).
inline constexpr const char *kConvolutionF32 = "anyshapeConvolutionF32";
/// Frees the reordered weights in a convolution's slot: `(slot address:
/// i64) -> ()`.
inline constexpr const char *kReleaseConvolutionWeights =
    "anyshapeReleaseConvolutionWeights";
/// Whether the host flow passes the execution context to `callee`, a
/// runtime function it calls, as the last operand: the GEMMs (the run's
/// team), the index and size checks (a failure is recorded in the context),
/// nonzero's, scatter, argsort and cumulative (the CUDA run's stream), the
/// convolution (the run's team, and its errors).
inline bool takesContextLast(llvm::StringRef callee) {
  return callee == kBatchMatmulF32 || callee == kBatchMatmulPackedF32 ||
         callee == kCheckIndicesI32 || callee == kCheckIndicesI64 ||
         callee == kCheckSizes || isNonZeroCall(callee) ||
         callee.starts_with(kScatter) || callee.starts_with(kArgsort) ||
         callee.starts_with(kCumulative) || callee == kConvolutionF32;
}
/// Frees the pack in a slot: `(slot address: i64) -> ()`.
inline constexpr const char *kReleaseGemmPack = "anyshapeReleaseGemmPack";

/// The function every object defines to fill its load-time constants
/// (`() -> ()`; anyshape-seeded-constants-at-load), called once by the
/// loader before any run.
inline constexpr const char *kInitializeSymbol = "anyshape_initialize";
/// The function an object defines when it holds what must be freed before
/// its code is unloaded (`() -> ()`; today the GEMM packs of
/// anyshape-pack-constant-weights); the loader calls it, when defined, once
/// no run is left.
inline constexpr const char *kFinalizeSymbol = "anyshape_finalize";
/// Marks a memref.global that only the initializer writes: a constant of
/// every run, as a `constant` global is.
inline constexpr const char *kLoadTimeConstantAttr =
    "anyshape.load_time_constant";

/// The runtime generator of SeededUniform constants: `(address: i64,
/// count: i64, dtype: i32, seed: i64, low: f64, high: f64) -> ()`.
inline constexpr const char *kFillSeededUniform = "anyshapeFillSeededUniform";
/// The same for a `transposed` one: `(address: i64, rows: i64, cols: i64,
/// dtype: i32, seed: i64, low: f64, high: f64) -> ()`, where [rows, cols]
/// is the wire constant's shape (fillSeededUniformTransposed).
inline constexpr const char *kFillSeededUniformTransposed =
    "anyshapeFillSeededUniformTransposed";

/// Stands for the running execution's team size (`() -> i64`), which
/// picks a row-reduction kernel's schedule, until
/// anyshape-execution-context reads it from the context instead.
inline constexpr const char *kTeamSizeFunction = "anyshapeTeamSize";

/// Marks the functions that take the execution context
/// (runtime/ExecutionContext.h) as their first argument: @main and the
/// kernels (anyshape-execution-context).
inline constexpr const char *kExecutionContextAttr = "anyshape.context";

/// The runtime functions generated code allocates and frees buffers with,
/// through the execution context: `(context, alignment, size) -> ptr` and
/// `(context, ptr) -> ()`.
inline constexpr const char *kContextAlloc = "anyshapeContextAlloc";
inline constexpr const char *kContextFree = "anyshapeContextFree";

/// Marks the scf.parallel of anyshape-stitch-rows: every dim is a row dim,
/// so its parallel version keeps them all parallel.
inline constexpr const char *kStitchedLoopAttr = "anyshape.stitched";

} // namespace anyshape::codegen

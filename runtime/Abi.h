//===- Abi.h - what generated code and the runtime agree on -----*- C++ -*-===//
//
// The one owner of every symbol name that crosses between an executable's
// object code and the process that loads it: the entry the loader calls,
// the functions the object exports for it, and the runtime functions the
// object calls (bound by name when the object is linked: jit/LoadedObject).
// Codegen (which emits these names) and the loader (which binds and looks
// them up) both include this header and nothing of each other's, so the
// serving process links no compiler. Plain constants: no LLVM, no MLIR.
//
// Entry: `int64_t anyshape_entry(void *context, void **args)`; context is
// the run's runtime::AnyshapeExecutionContext (its team size and
// allocator: ExecutionContext.h), args[0] points to the result pointer (a
// struct of one memref descriptor per output), args[1+k] to the pointer to
// input k's descriptor. It returns 0 after running the graph, or, without
// running anything, 1 + the index of the first run-time shape check that
// failed (GraphInfo::shapeChecks).
//
// The runtime functions are named by their C interface (MLIR's
// `_mlir_ciface_` prefix added where the object calls through it).
//
//===----------------------------------------------------------------------===//
#pragma once

namespace anyshape::abi {

/// The executable's one exported entry (above).
inline constexpr const char *kEntrySymbol = "anyshape_entry";
/// The function every object defines to fill its load-time constants
/// (`() -> ()`; anyshape-seeded-constants-at-load), called once by the
/// loader before any run.
inline constexpr const char *kInitializeSymbol = "anyshape_initialize";
/// The function an object defines when it holds what must be freed before
/// its code is unloaded (`() -> ()`; today the GEMM packs of
/// anyshape-pack-constant-weights); the loader calls it, when defined, once
/// no run is left.
inline constexpr const char *kFinalizeSymbol = "anyshape_finalize";

//--- CPU runtime functions -------------------------------------------------//

/// The GEMM (runtime/Gemm.h).
inline constexpr const char *kBatchMatmulF32 = "anyshapeBatchMatmulF32";
/// The same with B a constant packed once into a slot (runtime/PackedGemm.h;
/// anyshape-pack-constant-weights): one more operand, the slot.
inline constexpr const char *kBatchMatmulPackedF32 =
    "anyshapeBatchMatmulPackedF32";
/// Frees the pack in a slot: `(slot address: i64) -> ()`.
inline constexpr const char *kReleaseGemmPack = "anyshapeReleaseGemmPack";
/// The index checks (anyshape-index-checks-to-runtime-calls), for i32 and
/// i64 indices (runtime/IndexChecks.h).
inline constexpr const char *kCheckIndicesI32 = "anyshapeCheckIndicesI32";
inline constexpr const char *kCheckIndicesI64 = "anyshapeCheckIndicesI64";
/// A rule on a nonzero's count (anyshape-size-checks-to-runtime-calls;
/// runtime/SizeChecks.h).
inline constexpr const char *kCheckSizes = "anyshapeCheckSizes";
/// Suffixes naming an element type in the declarations of runtime
/// functions that take buffers of any dtype ("anyshapeCountNonZero_f32"):
/// a declaration has one operand type, and the loader binds every suffix
/// to one function, which a `kind` operand tells how to read elements.
inline constexpr const char *kElementSuffixes[] = {"_i1",  "_i32",  "_i64",
                                                   "_f16", "_bf16", "_f32"};
/// Suffixes naming the indices' type, after an element suffix.
inline constexpr const char *kIndexSuffixes[] = {"_i32", "_i64"};
/// A nonzero (anyshape-nonzero-to-runtime-calls; runtime/NonZero.h), with a
/// suffix of kElementSuffixes for the operand.
inline constexpr const char *kCountNonZero = "anyshapeCountNonZero";
inline constexpr const char *kNonZeroIndices = "anyshapeNonZeroIndices";
/// A scatter (anyshape-scatter-to-runtime-calls; runtime/Scatter.h), with a
/// suffix of kElementSuffixes for the operand, updates and result and one
/// of kIndexSuffixes for the indices ("anyshapeScatter_f32_i64").
inline constexpr const char *kScatter = "anyshapeScatter";
/// An argsort (anyshape-argsort-to-runtime-calls; runtime/Argsort.h), with
/// a suffix of kElementSuffixes ("anyshapeArgsort_f32").
inline constexpr const char *kArgsort = "anyshapeArgsort";
/// A cumulative (anyshape-cumulative-to-runtime-calls;
/// runtime/Cumulative.h), with a suffix of kElementSuffixes.
inline constexpr const char *kCumulative = "anyshapeCumulative";
/// A convolution (anyshape-convolutions-to-runtime-calls;
/// runtime/Convolution.h).
inline constexpr const char *kConvolutionF32 = "anyshapeConvolutionF32";
/// Frees the reordered weights in a convolution's slot: `(slot address:
/// i64) -> ()`.
inline constexpr const char *kReleaseConvolutionWeights =
    "anyshapeReleaseConvolutionWeights";
/// The generator of SeededUniform constants: `(address: i64, count: i64,
/// dtype: i32, seed: i64, low: f64, high: f64) -> ()`.
inline constexpr const char *kFillSeededUniform = "anyshapeFillSeededUniform";
/// The same for a `transposed` one: `(address: i64, rows: i64, cols: i64,
/// dtype: i32, seed: i64, low: f64, high: f64) -> ()`, where [rows, cols]
/// is the wire constant's shape.
inline constexpr const char *kFillSeededUniformTransposed =
    "anyshapeFillSeededUniformTransposed";
/// Allocation and free through the execution context: `(context,
/// alignment, size) -> ptr` and `(context, ptr) -> ()`.
inline constexpr const char *kContextAlloc = "anyshapeContextAlloc";
inline constexpr const char *kContextFree = "anyshapeContextFree";

//--- CUDA runtime functions (runtime/cuda) ---------------------------------//

/// A kernel launch (anyshape-launches-to-runtime-calls; CudaLaunch.h).
inline constexpr const char *kCudaLaunch = "anyshapeCudaLaunch";
/// A stream-ordered copy between device buffers (a memref.copy;
/// anyshape-host-buffers).
inline constexpr const char *kCudaCopy = "anyshapeCudaCopy";
/// The upload of a small host-written buffer to the device, `(context, to:
/// i64, from: i64, bytes: i64) -> ()` (anyshape-host-buffers).
inline constexpr const char *kCudaUpload = "anyshapeCudaUpload";
/// The device copy of a constant, asked for in place of a global's
/// address (anyshape-device-constants).
inline constexpr const char *kCudaConstant = "anyshapeCudaConstant";
/// cuBLASLt's GEMM, in place of kBatchMatmulF32 with the same C interface.
inline constexpr const char *kCudaBatchMatmulF32 = "anyshapeCudaBatchMatmulF32";
/// In place of the CPU's functions of the same name without `Cuda`, with
/// the same suffixes and C interface (operands copied to the host, results
/// back).
inline constexpr const char *kCudaCheckIndicesI32 =
    "anyshapeCudaCheckIndicesI32";
inline constexpr const char *kCudaCheckIndicesI64 =
    "anyshapeCudaCheckIndicesI64";
inline constexpr const char *kCudaCountNonZero = "anyshapeCudaCountNonZero";
inline constexpr const char *kCudaNonZeroIndices = "anyshapeCudaNonZeroIndices";
inline constexpr const char *kCudaScatter = "anyshapeCudaScatter";
inline constexpr const char *kCudaArgsort = "anyshapeCudaArgsort";
inline constexpr const char *kCudaCumulative = "anyshapeCudaCumulative";
/// A global every CUDA host object defines (anyshape-device-constants):
/// the loader refuses such an object without its device code, whose host
/// flow would otherwise run on a CPU context.
inline constexpr const char *kCudaExecutableMarker = "anyshape_cuda_executable";
/// A kernel's CPU emulation wrapped to take kernelParams is
/// `<kernel module>_emulated` (anyshape-pack-emulated-kernels): what the
/// executable hands a fake driver.
inline constexpr const char *kEmulatedKernelSuffix = "_emulated";

} // namespace anyshape::abi

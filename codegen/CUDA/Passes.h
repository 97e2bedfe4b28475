//===- Passes.h - CUDA codegen passes ---------------------------*- C++ -*-===//
//
// Declarations of the CUDA target's own codegen passes (Passes.td).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/Common/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace anyshape::codegen {

/// The CUDA runtime's launch, which the host flow calls for each kernel
/// launch (anyshape-launches-to-runtime-calls; runtime/cuda/CudaLaunch.h).
inline constexpr const char *kCudaLaunch = "anyshapeCudaLaunch";
/// The CUDA runtime's stream-ordered copy between device buffers, which
/// the host flow calls for a memref.copy (anyshape-host-buffers).
inline constexpr const char *kCudaCopy = "anyshapeCudaCopy";
/// The runtime's upload of a small host-written buffer to the device,
/// `(context, to: i64, from: i64, bytes: i64) -> ()` (anyshape-host-buffers).
inline constexpr const char *kCudaUpload = "anyshapeCudaUpload";
/// The CUDA runtime's GEMM (cuBLASLt), which the host flow calls in place
/// of the CPU's kBatchMatmulF32, with the same C interface.
inline constexpr const char *kCudaBatchMatmulF32 = "anyshapeCudaBatchMatmulF32";
/// The CUDA runtime's index checks, in place of the CPU's kCheckIndicesI32
/// and kCheckIndicesI64 (the indices are copied to the host), with the same
/// C interface.
inline constexpr const char *kCudaCheckIndicesI32 =
    "anyshapeCudaCheckIndicesI32";
inline constexpr const char *kCudaCheckIndicesI64 =
    "anyshapeCudaCheckIndicesI64";
/// The CUDA runtime's nonzero, in place of the CPU's kCountNonZero and
/// kNonZeroIndices with the same suffixes (the operand is copied to the
/// host, the coordinates back), with the same C interface.
inline constexpr const char *kCudaCountNonZero = "anyshapeCudaCountNonZero";
inline constexpr const char *kCudaNonZeroIndices = "anyshapeCudaNonZeroIndices";
/// The CUDA runtime's scatter, in place of the CPU's kScatter with the same
/// suffixes and C interface (the operands copied to the host, the result
/// back).
inline constexpr const char *kCudaScatter = "anyshapeCudaScatter";
/// The CUDA runtime's argsort and cumulative, in place of the CPU's
/// kArgsort and kCumulative likewise.
inline constexpr const char *kCudaArgsort = "anyshapeCudaArgsort";
inline constexpr const char *kCudaCumulative = "anyshapeCudaCumulative";
/// The CUDA runtime's device copy of a constant, which the host flow asks
/// for in place of a global's address (anyshape-device-constants).
inline constexpr const char *kCudaConstant = "anyshapeCudaConstant";
/// A global every CUDA host object defines (anyshape-device-constants):
/// the loader refuses such an object without its device code, whose host
/// flow would otherwise run on a CPU context.
inline constexpr const char *kCudaExecutableMarker = "anyshape_cuda_executable";
/// Module attribute: how many constants the host flow asks for (i64).
inline constexpr const char *kCudaConstantsAttr = "anyshape.cuda_constants";
/// Module attribute: the kernel images in launch-index order, each
/// {name, object} (the object: PTX, which the compiler links to a cubin).
inline constexpr const char *kCudaKernelsAttr = "anyshape.cuda_kernels";
/// A kernel's CPU emulation (anyshape-emulated-kernels) is a function
/// <module>_emulation, marked with this attribute naming the module; its
/// kernelParams wrapper (anyshape-pack-emulated-kernels) is
/// <module>_emulated, what the executable hands a fake driver.
inline constexpr const char *kEmulatedKernelAttr = "anyshape.emulates";
inline constexpr const char *kEmulationSuffix = "_emulation";
inline constexpr const char *kEmulatedKernelSuffix = "_emulated";

#define GEN_PASS_DECL
#include "codegen/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/CUDA/Passes.h.inc"

} // namespace anyshape::codegen

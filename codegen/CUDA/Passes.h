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

/// Module attribute: how many constants the host flow asks for (i64).
inline constexpr const char *kCudaConstantsAttr = "anyshape.cuda_constants";
/// Module attribute: the kernel images in launch-index order, each
/// {name, object, entry, block_size, parameter_bytes} (the object: PTX,
/// which the compiler links to a cubin; the rest its signature).
inline constexpr const char *kCudaKernelsAttr = "anyshape.cuda_kernels";
/// Module attribute, between anyshape-record-kernel-signatures and
/// anyshape-launches-to-runtime-calls: each gpu.module's signature
/// {entry, block_size, parameter_bytes}, keyed by the module's name.
inline constexpr const char *kCudaKernelSignaturesAttr =
    "anyshape.cuda_kernel_signatures";
/// A kernel's CPU emulation (anyshape-emulated-kernels) is a function
/// <module>_emulation, marked with this attribute naming the module; its
/// kernelParams wrapper (anyshape-pack-emulated-kernels) is
/// <module>_emulated, what the executable hands a fake driver.
inline constexpr const char *kEmulatedKernelAttr = "anyshape.emulates";
inline constexpr const char *kEmulationSuffix = "_emulation";

#define GEN_PASS_DECL
#include "codegen/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/CUDA/Passes.h.inc"

} // namespace anyshape::codegen

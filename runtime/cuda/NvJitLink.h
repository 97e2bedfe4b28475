//===- NvJitLink.h - PTX to cubin in this process ---------------*- C++ -*-===//
//
// The CUDA kernels' last step: libnvJitLink (the CUDA toolkit's linker
// library) assembles a kernel's PTX into a cubin for one chip, and its
// log tells what the kernel costs the device (registers, spills, shared
// memory). The library is loaded with dlopen when first needed, so no
// binary needs it to start and a machine without the toolkit compiles
// CPU graphs as before. Without the library, the toolkit's ptxas does the
// same in a child process (the fallback); without either, every call
// says why it cannot link. The compiler links with it (CudaKernels.h); the
// server only asks its version, for the compile cache's key. It lives with
// the other CUDA libraries loaded through dlopen so that asking takes no
// compiler.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/support/Status.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace anyshape::runtime::cuda {

/// What ptxas reported for one kernel entry (all zero if it did not say).
struct KernelResources {
  int registers = 0;
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  int64_t stackFrameBytes = 0;
  int64_t sharedBytes = 0;
};

struct LinkedCubin {
  std::string cubin;
  /// "nvJitLink" or, as the fallback, "ptxas".
  std::string assembler;
  /// nvJitLink's info log (ptxas's verbose report).
  std::string log;
  KernelResources resources;
};

/// `ptx` (a trailing NUL is allowed) as a cubin for `chip` ("sm_90"),
/// through libnvJitLink, or ptxas when the library cannot be loaded.
/// FailedPrecondition if neither is there; Internal, with the assembler's
/// error log, if it rejects the PTX.
StatusOr<LinkedCubin> linkPtxToCubin(std::string_view ptx,
                                     const std::string &chip);

/// The fallback alone: the toolkit's ptxas ($CUDA_HOME/bin, else PATH)
/// in a child process, through temporary files. Exposed for tests.
StatusOr<LinkedCubin> assembleWithPtxas(std::string_view ptx,
                                        const std::string &chip);

/// Reads ptxas's "Used N registers, ... N bytes spill stores" lines.
/// Exposed for tests.
/// What links cubins in this process ("nvJitLink 13.0", or "ptxas" when
/// only the fallback is there): part of a CUDA compile's cache key.
std::string cubinLinkerVersion();

KernelResources parseKernelResources(std::string_view log);

} // namespace anyshape::runtime::cuda

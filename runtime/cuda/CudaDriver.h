//===- CudaDriver.h - the CUDA driver, loaded when asked ----------*- C++
//-*-===//
//
// The CUDA Driver API through dlopen("libcuda.so.1") and one X-macro table
// of the entry points used (CudaDriverEntries.def): never the link stub,
// since a binary that needs libcuda.so.1 does not start on a machine
// without a GPU driver, and every anyshape binary must. Loaded once, on
// first use; every driver error becomes a Status naming the call.
//
// ANYSHAPE_LIBCUDA, when set, names another library to load instead: the
// tests' fake driver (tests/support/fake_cuda), which answers like a
// device and records the calls.
//
// The rest of runtime/cuda builds on the table: the device's context,
// streams and memory (CudaDevice.h), an executable's loaded kernels and
// the launch generated code calls (CudaLaunch.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/support/Status.h"

#include <cstdint>
#include <string>

namespace anyshape::runtime::cuda {

struct DeviceInfo {
  std::string name;        ///< "NVIDIA H200"
  int smVersion = 0;       ///< compute capability x 10: 90
  int driverVersion = 0;   ///< 13000 for CUDA 13.0
  int64_t memoryBytes = 0; ///< global memory
  int deviceCount = 0;     ///< devices the driver sees
};

/// The driver's entry points (CudaDriverEntries.def), each returning a
/// CUresult (0 is success).
struct Driver {
#define X(name, params) int(*name) params = nullptr;
#include "runtime/cuda/CudaDriverEntries.def"
#undef X
  /// Only the tests' fake driver has it: runs `emulation` (a CPU version
  /// of the kernel, CudaLaunch.h) for each launch of `function`. Null for
  /// a real driver.
  void (*fakeEmulate)(void *function, void (*emulation)(void **),
                      int parameters) = nullptr;
};

/// The loaded driver, cuInit done; FailedPrecondition naming what is
/// missing when no driver library loads, it lacks an entry point, or
/// cuInit fails.
StatusOr<const Driver *> loadDriver();

/// A driver call's result as a Status naming the call ("cuMemAlloc_v2
/// failed: CUDA_ERROR_OUT_OF_MEMORY (2)"): ResourceExhausted for out of
/// memory, FailedPrecondition for no device, Internal otherwise.
Status checkCall(const Driver &driver, const char *call, int result);

/// Device `ordinal` as the driver reports it. FailedPrecondition when no
/// driver library loads or it sees no device, naming which; Internal with
/// the driver's error name for any other failing call.
StatusOr<DeviceInfo> probeDevice(int ordinal = 0);

} // namespace anyshape::runtime::cuda

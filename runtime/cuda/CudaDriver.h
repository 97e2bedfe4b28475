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
// This is the runtime's first piece: the device probe. Contexts, streams,
// modules and launches come with the host flow that drives the cubins.
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

/// Device `ordinal` as the driver reports it. FailedPrecondition when no
/// driver library loads or it sees no device, naming which; Internal with
/// the driver's error name for any other failing call.
StatusOr<DeviceInfo> probeDevice(int ordinal = 0);

} // namespace anyshape::runtime::cuda

//===- CudaDevice.h - the GPU an executable runs on --------------*- C++
//-*-===//
//
// Device 0 as the runtime uses it, set up once per process on first use:
// its primary context (made current on each thread that runs on it), a
// pool of streams (one per execution in flight; an execution never shares
// its stream), the caching device memory pool (DeviceMemory.h) and pinned
// host buffers that stage copies. Without a driver or a device, get() is
// FailedPrecondition naming what is missing, every time it is asked.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceMemory.h"

#include <memory>
#include <mutex>
#include <vector>

namespace anyshape::runtime::cuda {

class CudaDevice {
public:
  /// The process's device, created on the first call.
  static StatusOr<CudaDevice *> get();

  const Driver &driver() const { return driver_; }
  const DeviceInfo &info() const { return info_; }
  /// Makes the device's context current on the calling thread.
  Status makeCurrent() const;

  /// A stream no other execution holds (created when none is free).
  StatusOr<void *> acquireStream();
  void releaseStream(void *stream);

  DeviceMemoryPool &memory() { return memory_; }

  /// Pinned host memory of at least `bytes` for staging copies (null if
  /// the driver has none); returned with releasePinned.
  void *acquirePinned(int64_t bytes, int64_t *blockBytes);
  void releasePinned(void *pointer, int64_t blockBytes);

  /// Frees every idle device block, stream and pinned buffer (tests, and
  /// a server trimming memory); executions in flight keep theirs.
  void trim();

private:
  CudaDevice(const Driver &driver, DeviceInfo info, void *context);

  const Driver &driver_;
  DeviceInfo info_;
  void *context_; // CUcontext: the device's primary context
  DeviceMemoryPool memory_;
  std::mutex mutex_;
  std::vector<void *> idleStreams_;
  std::vector<std::pair<int64_t, void *>> idlePinned_; // (bytes, pointer)
  int64_t idlePinnedBytes_ = 0;
  /// Idle pinned memory kept for reuse at most; more is freed when
  /// released (runs of ever new sizes would otherwise grow it forever).
  static constexpr int64_t kMaxIdlePinnedBytes = int64_t{256} << 20;
};

/// The device memory limit: at most this many bytes held by the pool
/// (default: all of the device's memory). A server sets it from a flag.
void setDeviceMemoryLimit(int64_t bytes);

} // namespace anyshape::runtime::cuda

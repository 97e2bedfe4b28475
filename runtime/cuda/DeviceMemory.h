//===- DeviceMemory.h - caching, stream-ordered device memory ----*- C++
//-*-===//
//
// cuMemAlloc and cuMemFree synchronise the whole device and cost tens of
// microseconds, so no execution calls them on its path once warm. Two
// levels:
//   - DeviceMemoryPool (one per device): idle blocks by size, shared by
//     every execution under a lock, bounded by a byte limit (held blocks,
//     in use or idle); over it, idle blocks are freed first, then the
//     allocation fails as ResourceExhausted.
//   - StreamAllocator (one per execution, on its stream): what the host
//     flow allocates and frees during one run. A block freed during the run
//     is reused by the run's later allocations at once, which is safe
//     because every use of it is ordered on the same stream; the run's
//     blocks go back to the pool only after its stream is synchronised.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/cuda/CudaDriver.h"

#include <cstdint>
#include <map>
#include <mutex>

namespace anyshape::runtime::cuda {

using DevicePointer = unsigned long long; // CUdeviceptr

class DeviceMemoryPool {
public:
  DeviceMemoryPool(const Driver &driver, int64_t limitBytes);
  ~DeviceMemoryPool();
  DeviceMemoryPool(const DeviceMemoryPool &) = delete;
  DeviceMemoryPool &operator=(const DeviceMemoryPool &) = delete;

  /// A block of at least `bytes` (its size in `*blockBytes`), 256-byte
  /// aligned: an idle one of at most twice the size, else a new one.
  StatusOr<DevicePointer> allocate(int64_t bytes, int64_t *blockBytes);
  /// Takes back an idle block (nothing on any stream uses it any more).
  void recycle(DevicePointer pointer, int64_t blockBytes);
  /// Frees every idle block.
  void trim();
  void setLimit(int64_t bytes);

  /// Bytes of every block cuMemAlloc gave and no cuMemFree took.
  int64_t heldBytes() const;

private:
  /// Frees idle blocks until `bytes` more fit under the limit; false if
  /// they cannot. Holds mutex_.
  bool makeRoomLocked(int64_t bytes);

  const Driver &driver_;
  mutable std::mutex mutex_;
  std::multimap<int64_t, DevicePointer> idle_; // by block size
  int64_t limit_;
  int64_t held_ = 0; // every block cuMemAlloc gave and no cuMemFree took
};

class StreamAllocator {
public:
  explicit StreamAllocator(DeviceMemoryPool &pool) : pool_(pool) {}
  /// Returns every block to the pool: only after the stream is
  /// synchronised.
  ~StreamAllocator();

  /// A device buffer of `bytes`, or null with error() set (the first
  /// failure is kept).
  void *allocate(int64_t bytes);
  /// `pointer` from allocate() (null is a no-op): reusable by this run's
  /// later allocations.
  void free(void *pointer);

  const Status &error() const { return error_; }
  /// Buffers allocated and not freed (outputs, before they are copied).
  int64_t liveCount() const { return static_cast<int64_t>(live_.size()); }

private:
  DeviceMemoryPool &pool_;
  std::map<DevicePointer, int64_t> live_;       // pointer -> block bytes
  std::multimap<int64_t, DevicePointer> reuse_; // freed during this run
  Status error_;
};

} // namespace anyshape::runtime::cuda

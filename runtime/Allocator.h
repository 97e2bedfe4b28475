// The caching buffer allocator of JITed code.
//
// Every buffer the host flow allocates (intermediates and outputs) comes
// from here: the CPU pipeline lowers memref.alloc/dealloc to calls of MLIR's
// generic allocation functions, which executables bind to these. Buffers
// are 64-byte aligned (a cache line, the widest vector register) and freed
// blocks are kept per size class, and serve requests of their class or of
// up to half their size, so a steady stream of runs at varying sequence
// lengths stops calling the system allocator after warm-up without each
// size keeping blocks of its own. The cache is bounded in bytes; blocks
// beyond the bound go back to the system.
#pragma once

#include <cstdint>

namespace anyshape::runtime {

/// Allocates `size` bytes aligned to 64 (never null unless the system is
/// out of memory). Thread-safe.
extern "C" void *anyshapeAlloc(uint64_t size);
/// As anyshapeAlloc, aligned to `alignment` (a power of two) when it
/// exceeds 64.
extern "C" void *anyshapeAlignedAlloc(uint64_t alignment, uint64_t size);
/// Returns a block from anyshapeAlloc/anyshapeAlignedAlloc; null is a
/// no-op.
extern "C" void anyshapeFree(void *pointer);

struct AllocatorStats {
  int64_t bytesInUse = 0;     ///< handed out and not yet freed (class sizes)
  int64_t peakBytesInUse = 0; ///< highest bytesInUse since the last reset
  int64_t bytesCached = 0;    ///< freed and kept for reuse
  int64_t cacheHits = 0;      ///< allocations served from the cache
  int64_t systemAllocs = 0;   ///< allocations that went to the system
};

AllocatorStats allocatorStats();

/// Starts a new peak: peakBytesInUse becomes the current bytesInUse.
void resetAllocatorPeak();

/// Bounds the bytes kept for reuse (default 1 GiB); excess is released.
void setAllocatorCacheLimit(int64_t bytes);

} // namespace anyshape::runtime

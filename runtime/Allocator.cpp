// Size classes and the free-block cache behind anyshapeAlloc.
//
// Each block carries a header just below the pointer handed out: the
// system allocation it lives in and its size class. Classes are four per
// power of two (waste at most 25%) from 64 bytes up; a request its own
// class cannot serve takes a cached block of up to twice its size (waste
// at most 50% then); requests beyond the largest class, or aligned beyond
// 64, bypass the cache. One mutex guards
// the cache: a host flow allocates a few dozen buffers per run, each a
// short critical section, so contention is negligible next to the kernels.
#include "runtime/Allocator.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace anyshape::runtime {
namespace {

constexpr uint64_t kAlignment = 64;
constexpr uint32_t kUncached = 0xffffffffu;
constexpr uint32_t kMagic = 0xa11c0c8du;
constexpr int kSubClasses = 4;
constexpr int kMaxLog2 = 40; // classes up to 1 TiB; larger bypass the cache

struct alignas(16) Header {
  void *system;       // what the system allocator returned
  uint32_t sizeClass; // index, or kUncached
  uint32_t magic;
};
static_assert(sizeof(Header) <= kAlignment);

uint64_t classSize(uint32_t index) {
  uint32_t log2 = index / kSubClasses, sub = index % kSubClasses;
  uint64_t base = uint64_t{1} << log2;
  return base + sub * (base / kSubClasses);
}

/// The smallest class holding `size` bytes, or kUncached.
uint32_t classFor(uint64_t size) {
  size = std::max<uint64_t>(size, kAlignment);
  int log2 = 63 - __builtin_clzll(size);
  if (log2 >= kMaxLog2)
    return kUncached;
  for (uint32_t index = log2 * kSubClasses;; ++index)
    if (classSize(index) >= size)
      return index;
}

struct Cache {
  std::mutex mutex;
  std::vector<std::vector<void *>> free{kMaxLog2 * kSubClasses + 1};
  AllocatorStats stats;
  int64_t limit = int64_t{1} << 30;

  /// Drops cached blocks, largest classes first, until within `limit`.
  void trimLocked() {
    for (size_t index = free.size(); index-- > 0 && stats.bytesCached > limit;)
      while (!free[index].empty() && stats.bytesCached > limit) {
        std::free(free[index].back());
        free[index].pop_back();
        stats.bytesCached -= classSize(index);
      }
  }
};

Cache &cache() {
  static Cache *instance = new Cache; // never destroyed: JITed code may
                                      // free during static destruction
  return *instance;
}

void *finish(void *system, uint64_t offset, uint32_t sizeClass) {
  char *user = static_cast<char *>(system) + offset;
  auto *header = reinterpret_cast<Header *>(user) - 1;
  header->system = system;
  header->sizeClass = sizeClass;
  header->magic = kMagic;
  return user;
}

} // namespace

extern "C" void *anyshapeAlloc(uint64_t size) {
  uint32_t sizeClass = classFor(size);
  if (sizeClass == kUncached)
    return anyshapeAlignedAlloc(kAlignment * 2, size);
  uint64_t bytes = classSize(sizeClass);
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    // The request's class, or else a cached block up to twice its size
    // (the next kSubClasses classes): with lengths varying from run to
    // run, nearby sizes then share blocks instead of each keeping its own
    // (at batch 8 the cache had grown to its 1 GiB bound).
    uint32_t last = std::min<uint32_t>(
        sizeClass + kSubClasses, static_cast<uint32_t>(c.free.size()) - 1);
    for (uint32_t index = sizeClass; index <= last; ++index) {
      std::vector<void *> &blocks = c.free[index];
      if (blocks.empty())
        continue;
      void *system = blocks.back();
      blocks.pop_back();
      auto held = static_cast<int64_t>(classSize(index));
      c.stats.bytesCached -= held;
      c.stats.bytesInUse += held;
      c.stats.peakBytesInUse =
          std::max(c.stats.peakBytesInUse, c.stats.bytesInUse);
      ++c.stats.cacheHits;
      return finish(system, kAlignment, index);
    }
    c.stats.bytesInUse += static_cast<int64_t>(bytes);
    c.stats.peakBytesInUse =
        std::max(c.stats.peakBytesInUse, c.stats.bytesInUse);
    ++c.stats.systemAllocs;
  }
  // aligned_alloc wants a multiple of the alignment (ASan checks it).
  uint64_t total = (bytes + 2 * kAlignment - 1) / kAlignment * kAlignment;
  void *system = std::aligned_alloc(kAlignment, total);
  if (!system) {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.stats.bytesInUse -= static_cast<int64_t>(bytes);
    return nullptr;
  }
  return finish(system, kAlignment, sizeClass);
}

extern "C" void *anyshapeAlignedAlloc(uint64_t alignment, uint64_t size) {
  if (alignment <= kAlignment)
    return anyshapeAlloc(size);
  // Rare (MLIR asks for 64): a dedicated block with room for the header.
  uint64_t total;
  if (__builtin_add_overflow(size, alignment, &total))
    return nullptr;
  total = (total + alignment - 1) / alignment * alignment;
  void *system = std::aligned_alloc(alignment, total);
  return system ? finish(system, alignment, kUncached) : nullptr;
}

extern "C" void anyshapeFree(void *pointer) {
  if (!pointer)
    return;
  auto *header = static_cast<Header *>(pointer) - 1;
  if (header->magic != kMagic)
    std::abort(); // not ours: a memory-safety bug, never continue
  header->magic = 0;
  void *system = header->system;
  uint32_t sizeClass = header->sizeClass;
  if (sizeClass == kUncached) {
    std::free(system);
    return;
  }
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  int64_t bytes = static_cast<int64_t>(classSize(sizeClass));
  c.stats.bytesInUse -= bytes;
  c.free[sizeClass].push_back(system);
  c.stats.bytesCached += bytes;
  c.trimLocked();
}

AllocatorStats allocatorStats() {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.stats;
}

void resetAllocatorPeak() {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.stats.peakBytesInUse = c.stats.bytesInUse;
}

void setAllocatorCacheLimit(int64_t bytes) {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.limit = std::max<int64_t>(bytes, 0);
  c.trimLocked();
}

} // namespace anyshape::runtime

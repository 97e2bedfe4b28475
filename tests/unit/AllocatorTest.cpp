// The runtime's caching allocator: alignment, reuse by size class, the
// cache bound, and sizes at the edges.
#include "runtime/Allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

using namespace anyshape::runtime;

namespace {

bool aligned(void *p, uintptr_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

TEST(Allocator, BlocksAreAlignedAndWritable) {
  for (uint64_t size : {0ull, 1ull, 63ull, 64ull, 65ull, 1000ull, 1ull << 20}) {
    void *p = anyshapeAlloc(size);
    ASSERT_NE(p, nullptr) << size;
    EXPECT_TRUE(aligned(p, 64)) << size;
    std::memset(p, 0xab, size);
    anyshapeFree(p);
  }
  void *wide = anyshapeAlignedAlloc(4096, 100);
  ASSERT_NE(wide, nullptr);
  EXPECT_TRUE(aligned(wide, 4096));
  std::memset(wide, 1, 100);
  anyshapeFree(wide);
  anyshapeFree(nullptr);
}

TEST(Allocator, FreedBlocksAreReusedForNearbySizes) {
  void *first = anyshapeAlloc(10000);
  anyshapeFree(first);
  AllocatorStats before = allocatorStats();
  void *second = anyshapeAlloc(9999); // same class as 10000
  EXPECT_EQ(second, first);
  AllocatorStats after = allocatorStats();
  EXPECT_EQ(after.cacheHits, before.cacheHits + 1);
  EXPECT_EQ(after.systemAllocs, before.systemAllocs);
  anyshapeFree(second);
}

TEST(Allocator, AMissTakesACachedBlockUpToTwiceItsSize) {
  // Sizes that vary from run to run share blocks: a request whose own
  // class has nothing cached takes a larger cached block (at most twice
  // its size), and a block more than twice as large is left alone.
  setAllocatorCacheLimit(0); // nothing cached by earlier tests
  setAllocatorCacheLimit(int64_t{1} << 30);
  void *large = anyshapeAlloc(3 << 20);
  anyshapeFree(large);
  AllocatorStats before = allocatorStats();
  void *smaller = anyshapeAlloc((3 << 20) * 5 / 8); // 4 classes down
  EXPECT_EQ(smaller, large);
  std::memset(smaller, 7, (3 << 20) * 5 / 8);
  AllocatorStats after = allocatorStats();
  EXPECT_EQ(after.cacheHits, before.cacheHits + 1);
  EXPECT_EQ(after.systemAllocs, before.systemAllocs);
  EXPECT_EQ(after.bytesCached, before.bytesCached - (3 << 20));
  anyshapeFree(smaller); // back to its own class: 3 MiB cached again
  EXPECT_EQ(allocatorStats().bytesCached, before.bytesCached);
  void *tiny = anyshapeAlloc(1 << 20); // 3 MiB is over twice its size
  EXPECT_NE(tiny, large);
  EXPECT_EQ(allocatorStats().systemAllocs, before.systemAllocs + 1);
  anyshapeFree(tiny);
}

TEST(Allocator, DistinctLiveBlocksNeverOverlap) {
  std::vector<char *> blocks;
  for (int k = 0; k < 64; ++k) {
    blocks.push_back(static_cast<char *>(anyshapeAlloc(100 + k)));
    std::memset(blocks.back(), k, 100 + k);
  }
  for (int k = 0; k < 64; ++k)
    for (int i = 0; i < 100 + k; ++i)
      ASSERT_EQ(blocks[k][i], static_cast<char>(k));
  for (char *b : blocks)
    anyshapeFree(b);
}

TEST(Allocator, CacheStaysWithinItsLimit) {
  setAllocatorCacheLimit(1 << 20);
  std::vector<void *> blocks;
  for (int k = 0; k < 8; ++k)
    blocks.push_back(anyshapeAlloc(512 << 10));
  for (void *b : blocks)
    anyshapeFree(b);
  EXPECT_LE(allocatorStats().bytesCached, 1 << 20);
  setAllocatorCacheLimit(0);
  EXPECT_EQ(allocatorStats().bytesCached, 0);
  setAllocatorCacheLimit(int64_t{1} << 30);
}

TEST(Allocator, ImpossibleSizesReturnNull) {
  EXPECT_EQ(anyshapeAlloc(UINT64_MAX - 10), nullptr);
  EXPECT_EQ(anyshapeAlignedAlloc(128, UINT64_MAX - 10), nullptr);
}

} // namespace

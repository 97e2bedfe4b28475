// keepFreedHeap (server/HeapPolicy.h): blocks freed by one request are
// reused by the next without faulting their pages in again. Each case
// runs in a forked child, since the policy is the whole process's.
#include "server/HeapPolicy.h"

#include "runtime/support/Sanitizers.h"

#include <gtest/gtest.h>

#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace anyshape::server {
namespace {

int64_t minorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

/// In a child whose heap starts as a fresh process's does (this process's
/// heap has adjusted its thresholds to what the tests before freed), then
/// keepFreedHeap(keep): the page faults per block, over blocks of 1 MiB
/// and more, each 64 KiB larger than the last, written, then freed, as
/// requests of growing lengths do. -1 on failure.
int64_t faultsPerGrowingBlock(int64_t keep) {
  int pipeFds[2];
  if (pipe(pipeFds) != 0)
    return -1;
  pid_t child = fork();
  if (child < 0) {
    close(pipeFds[0]);
    close(pipeFds[1]);
    return -1;
  }
  if (child == 0) {
    // glibc's initial thresholds: blocks of 128 KiB and more are mapped;
    // 128 KiB free at the heap's top is given back.
    mallopt(M_MMAP_THRESHOLD, 128 << 10);
    mallopt(M_TRIM_THRESHOLD, 128 << 10);
    keepFreedHeap(keep);
    constexpr int kWarmUp = 4, kBlocks = 32;
    int64_t before = 0;
    for (int k = 0; k < kWarmUp + kBlocks; ++k) {
      if (k == kWarmUp)
        before = minorFaults();
      size_t bytes = (size_t{1} << 20) + size_t(k) * (64 << 10);
      void *block = std::malloc(bytes);
      if (!block)
        _exit(1);
      std::memset(block, 1, bytes);
      // Keeps the compiler from eliding the block altogether.
      asm volatile("" : : "r"(block) : "memory");
      std::free(block);
    }
    int64_t perBlock = (minorFaults() - before) / kBlocks;
    _exit(write(pipeFds[1], &perBlock, sizeof perBlock) == sizeof perBlock ? 0
                                                                           : 1);
  }
  close(pipeFds[1]);
  int64_t perBlock = -1;
  if (read(pipeFds[0], &perBlock, sizeof perBlock) != sizeof perBlock)
    perBlock = -1;
  close(pipeFds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return perBlock;
}

TEST(HeapPolicy, FreedBlocksAreReusedWithoutFaults) {
  if (kSanitizedBuild)
    GTEST_SKIP() << "the sanitizers bring their own allocator";
  // Mapped for each block and unmapped when it is freed: all of its 256+
  // pages fault in again.
  int64_t released = faultsPerGrowingBlock(0);
  EXPECT_GT(released, 200);
  // Kept: only the 16 pages each block grows by are new.
  int64_t kept = faultsPerGrowingBlock(kDefaultHeapKeepBytes);
  EXPECT_GE(kept, 0);
  EXPECT_LT(kept, 32);
}

TEST(HeapPolicy, ReportsWhatItDid) {
  EXPECT_EQ(keepFreedHeap(0), "glibc's defaults");
  const char *saved = std::getenv("GLIBC_TUNABLES");
  std::string previous = saved ? saved : "";
  setenv("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=1", 1);
  EXPECT_EQ(keepFreedHeap(kDefaultHeapKeepBytes), "GLIBC_TUNABLES")
      << "the user's own settings win";
  if (saved)
    setenv("GLIBC_TUNABLES", previous.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

} // namespace
} // namespace anyshape::server

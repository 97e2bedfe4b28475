// runOnThreads (runtime/support/RunOnThreads.h): every task runs exactly
// once, the first on the calling thread, the others elsewhere, and all have
// finished when it returns.
#include "runtime/support/RunOnThreads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace anyshape {
namespace {

TEST(RunOnThreads, EveryTaskOnceTheFirstOnTheCaller) {
  std::vector<std::atomic<int>> runs(5);
  std::vector<std::thread::id> where(5);
  runOnThreads(5, [&](int64_t k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5 * (5 - k)));
    where[k] = std::this_thread::get_id();
    ++runs[k];
  });
  for (int k = 0; k < 5; ++k)
    EXPECT_EQ(runs[k].load(), 1) << k; // finished, once, before returning
  EXPECT_EQ(where[0], std::this_thread::get_id());
  for (int k = 1; k < 5; ++k)
    EXPECT_NE(where[k], std::this_thread::get_id()) << k;
}

TEST(RunOnThreads, NoTasksIsNothing) {
  int runs = 0;
  runOnThreads(0, [&](int64_t) { ++runs; });
  EXPECT_EQ(runs, 0);
}

} // namespace
} // namespace anyshape

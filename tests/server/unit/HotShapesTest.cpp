// HotShapes (server/HotShapes.h) without a server: a shape turns hot at
// exactly the threshold, is compiled once in the background and routed
// from then on; other shapes and executables stay dynamic; the bounds on
// shapes and specialisations per executable hold; a failed specialisation
// is not tried again; forget() drops an executable's shapes.
#include "server/HotShapes.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

using namespace anyshape;
using namespace anyshape::server;

namespace {

/// A Specialize that records its calls and answers "special-ID-SEQ", or
/// fails for executable "broken".
struct Recorder {
  std::mutex mutex;
  std::vector<std::pair<std::string, InputShapes>> calls;
  HotShapes::Specialize function() {
    return [this](const std::string &id,
                  const InputShapes &shapes) -> StatusOr<std::string> {
      std::lock_guard<std::mutex> lock(mutex);
      calls.push_back({id, shapes});
      if (id == "broken")
        return invalidArgument("cannot");
      return "special-" + id + "-" + std::to_string(shapes[0][1]);
    };
  }
  size_t count() {
    std::lock_guard<std::mutex> lock(mutex);
    return calls.size();
  }
};

InputShapes seq(int64_t length) { return {{1, length, 768}, {1, length}}; }

/// Routes `id` at `shapes` until it is routed somewhere (the background
/// compile finished) or 5 s pass.
std::string awaitRoute(HotShapes &hot, const std::string &id,
                       const InputShapes &shapes) {
  for (int wait = 0; wait < 500; ++wait) {
    std::string routed = hot.route(id, shapes);
    if (!routed.empty())
      return routed;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "";
}

TEST(HotShapes, AShapeTurnsHotAtTheThresholdAndIsRoutedOnceReady) {
  Recorder recorder;
  HotShapes hot({/*threshold=*/3}, recorder.function());
  EXPECT_EQ(hot.route("a", seq(7)), "");
  EXPECT_EQ(hot.route("a", seq(7)), "");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(recorder.count(), 0u) << "compiled before the threshold";
  EXPECT_EQ(hot.route("a", seq(7)), ""); // the third: queued
  EXPECT_EQ(awaitRoute(hot, "a", seq(7)), "special-a-7");
  ASSERT_EQ(recorder.count(), 1u);
  EXPECT_EQ(recorder.calls[0].second, seq(7));
  // Other lengths and other executables are not routed.
  EXPECT_EQ(hot.route("a", seq(8)), "");
  EXPECT_EQ(hot.route("b", seq(7)), "");
  HotShapeStats stats = hot.stats();
  EXPECT_EQ(stats.compiled, 1);
  EXPECT_EQ(stats.failed, 0);
  EXPECT_GE(stats.runs, 1);
  EXPECT_EQ(recorder.count(), 1u) << "compiled more than once";
}

TEST(HotShapes, AtMostMaxPerExecutableShapesAreSpecialised) {
  Recorder recorder;
  HotShapeOptions options;
  options.threshold = 1;
  options.maxPerExecutable = 2;
  HotShapes hot(options, recorder.function());
  for (int64_t length : {10, 11, 12, 13})
    hot.route("a", seq(length));
  EXPECT_FALSE(awaitRoute(hot, "a", seq(10)).empty());
  EXPECT_FALSE(awaitRoute(hot, "a", seq(11)).empty());
  for (int k = 0; k < 5; ++k)
    EXPECT_EQ(hot.route("a", seq(12)), "");
  EXPECT_EQ(recorder.count(), 2u);
  hot.route("b", seq(12)); // another executable has its own allowance
  EXPECT_FALSE(awaitRoute(hot, "b", seq(12)).empty());
}

TEST(HotShapes, ShapesBeyondMaxShapesAreNotCounted) {
  Recorder recorder;
  HotShapeOptions options;
  options.threshold = 2;
  options.maxShapes = 3;
  HotShapes hot(options, recorder.function());
  for (int64_t length : {1, 2, 3, 4})
    hot.route("a", seq(length));
  hot.route("a", seq(4)); // second run of an untracked shape
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(recorder.count(), 0u);
  hot.route("a", seq(3)); // a tracked one turns hot
  EXPECT_EQ(awaitRoute(hot, "a", seq(3)), "special-a-3");
}

TEST(HotShapes, AFailedSpecialisationIsNotTriedAgain) {
  Recorder recorder;
  HotShapes hot({/*threshold=*/1}, recorder.function());
  hot.route("broken", seq(5));
  for (int wait = 0; wait < 500 && hot.stats().failed == 0; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(hot.stats().failed, 1);
  for (int k = 0; k < 10; ++k)
    EXPECT_EQ(hot.route("broken", seq(5)), "");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(recorder.count(), 1u);
}

TEST(HotShapes, ForgetDropsAnExecutablesShapes) {
  Recorder recorder;
  HotShapes hot({/*threshold=*/2}, recorder.function());
  hot.route("a", seq(6));
  hot.route("a", seq(6));
  EXPECT_EQ(awaitRoute(hot, "a", seq(6)), "special-a-6");
  hot.forget("a");
  EXPECT_EQ(hot.route("a", seq(6)), "") << "still routed after forget";
  EXPECT_EQ(hot.route("a", seq(6)), ""); // counted again from 0: hot again
  EXPECT_EQ(awaitRoute(hot, "a", seq(6)), "special-a-6");
  EXPECT_EQ(recorder.count(), 2u);
}

TEST(HotShapes, StoppingLeavesQueuedShapesUncompiled) {
  std::atomic<int> calls{0};
  std::atomic<bool> release{false};
  HotShapes hot(
      {/*threshold=*/1},
      [&](const std::string &id, const InputShapes &) -> StatusOr<std::string> {
        ++calls;
        while (!release)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return id;
      });
  hot.route("a", seq(1)); // compiling
  for (int wait = 0; wait < 500 && calls == 0; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  hot.route("a", seq(2)); // queued behind it
  hot.stop();
  release = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(calls, 1);
}

} // namespace

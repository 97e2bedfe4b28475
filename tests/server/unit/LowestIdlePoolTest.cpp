// The execute pool (server/LowestIdlePool.h): a client that waits for each
// answer before its next request always gets thread 0 (the answer runs
// after the thread is free); concurrent tasks fill the threads from the
// bottom and queue beyond them; idle threads other than 0 retire and come
// back; the destructor runs every queued task.
#include "server/LowestIdlePool.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <set>
#include <thread>

using namespace anyshape::server;
using namespace std::chrono_literals;

namespace {

/// Lets `count` tasks wait until release().
class Gate {
public:
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    ++waiting_;
    arrived_.notify_all();
    open_.wait(lock, [&] { return released_; });
  }
  bool waitForArrivals(int count) {
    std::unique_lock<std::mutex> lock(mutex_);
    return arrived_.wait_for(lock, 10s, [&] { return waiting_ >= count; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
    open_.notify_all();
  }

  /// Opens `gate` when the scope ends, however it ends: declared after a
  /// pool whose tasks wait on the gate, it lets the pool's destructor run
  /// them (the gate itself must be declared before the pool, to outlive
  /// it; ASan found a test that had them the other way round).
  struct ReleaseOnExit {
    Gate &gate;
    ~ReleaseOnExit() { gate.release(); }
  };

private:
  std::mutex mutex_;
  std::condition_variable arrived_, open_;
  int waiting_ = 0;
  bool released_ = false;
};

bool eventually(const std::function<bool()> &condition) {
  for (int k = 0; k < 1000 && !condition(); ++k)
    std::this_thread::sleep_for(10ms);
  return condition();
}

TEST(LowestIdlePool, AClientThatWaitsForEachAnswerStaysOnThreadZero) {
  LowestIdlePool pool(4);
  std::set<int> threads;
  for (int k = 0; k < 500; ++k) {
    std::promise<void> answered;
    int ranOn = -2;
    pool.enqueue([&]() -> LowestIdlePool::Answer {
      ranOn = LowestIdlePool::currentThread();
      return [&] { answered.set_value(); };
    });
    answered.get_future().wait(); // the next request follows the reply
    threads.insert(ranOn);
  }
  EXPECT_EQ(threads, std::set<int>{0});
  EXPECT_EQ(LowestIdlePool::currentThread(), -1);
}

TEST(LowestIdlePool, ConcurrentTasksFillTheThreadsFromTheBottomThenQueue) {
  // What the tasks use is declared before the pool, which outlives none
  // of it: its destructor runs the tasks however the test ends.
  Gate gate;
  std::mutex mutex;
  std::multiset<int> threads;
  std::atomic<int> done{0};
  LowestIdlePool pool(3);
  Gate::ReleaseOnExit release{gate};
  for (int k = 0; k < 5; ++k)
    pool.enqueue([&]() -> LowestIdlePool::Answer {
      gate.wait();
      std::lock_guard<std::mutex> lock(mutex);
      threads.insert(LowestIdlePool::currentThread());
      ++done;
      return nullptr;
    });
  ASSERT_TRUE(gate.waitForArrivals(3));
  EXPECT_EQ(pool.runningThreads(), 3);
  gate.release();
  ASSERT_TRUE(eventually([&] { return done == 5; }));
  std::lock_guard<std::mutex> lock(mutex);
  EXPECT_EQ(threads.size(), 5u);
  for (int t : {0, 1, 2})
    EXPECT_GE(threads.count(t), 1u) << "thread " << t;
}

TEST(LowestIdlePool, IdleThreadsRetireAndComeBack) {
  // Per round, declared before the pool: a round that fails early leaves
  // its tasks to the pool's destructor, which must find them alive.
  std::array<Gate, 2> gates;
  std::array<std::atomic<int>, 2> dones{};
  LowestIdlePool pool(3, 50ms);
  for (int round = 0; round < 2; ++round) {
    Gate &gate = gates[round];
    Gate::ReleaseOnExit release{gate};
    std::atomic<int> &done = dones[round];
    for (int k = 0; k < 3; ++k)
      pool.enqueue([&]() -> LowestIdlePool::Answer {
        gate.wait();
        ++done;
        return nullptr;
      });
    ASSERT_TRUE(gate.waitForArrivals(3)) << "round " << round;
    EXPECT_EQ(pool.runningThreads(), 3);
    gate.release();
    ASSERT_TRUE(eventually([&] { return done == 3; }));
    EXPECT_TRUE(eventually([&] { return pool.runningThreads() == 1; }))
        << "round " << round << ": threads 1 and 2 did not retire";
  }
}

TEST(LowestIdlePool, TheDestructorRunsEveryQueuedTask) {
  std::atomic<int> ran{0};
  {
    Gate gate;
    LowestIdlePool pool(1);
    Gate::ReleaseOnExit release{gate};
    pool.enqueue([&]() -> LowestIdlePool::Answer {
      gate.wait();
      ++ran;
      return [&] { ++ran; };
    });
    ASSERT_TRUE(gate.waitForArrivals(1));
    for (int k = 0; k < 3; ++k)
      pool.enqueue([&]() -> LowestIdlePool::Answer {
        ++ran;
        return nullptr;
      });
    gate.release();
  }
  EXPECT_EQ(ran, 5);
}

} // namespace

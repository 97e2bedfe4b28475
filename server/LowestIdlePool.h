// LowestIdlePool: a fixed set of threads where each task goes to the
// lowest-numbered idle thread (queued in order when none is idle).
//
// Why not any idle thread: every thread that runs a kernel or a oneDNN
// GEMM owns an OpenMP team. Once the threads of all teams outnumber the
// cores, libgomp throttles: after each parallel region its threads sleep
// at once instead of spinning, and every region pays futex wake-ups.
// MiniLM at batch 1 (about 100 regions a run) then ran 1.6-2.5x slower in
// the server than in process (4.1 vs 2.1 ms at 16 tokens, 16.5 vs 9.2 at
// 128). Here a lone client's requests always run on thread 0, so one team
// does all the work; under load the threads fill from the bottom.
//
// The other threads leave when they have been idle for `retireAfter`
// (and come back when needed): a thread's OpenMP team lives as long as
// the thread, so after a burst of concurrent requests the extra teams go
// and a lone client's runs are not throttled again.
//
// A task returns its answer step (the reply to the client), which runs
// after the thread is marked idle: a client that sends its next request
// as soon as it has the reply finds thread 0 free, not still finishing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace anyshape::server {

class LowestIdlePool {
public:
  explicit LowestIdlePool(int threads, std::chrono::milliseconds retireAfter =
                                           std::chrono::seconds(1));
  /// Runs every task still queued, then joins the threads.
  ~LowestIdlePool();
  LowestIdlePool(const LowestIdlePool &) = delete;
  LowestIdlePool &operator=(const LowestIdlePool &) = delete;

  /// What a task returns: run after its thread is free (may be empty).
  using Answer = std::function<void()>;
  using Task = std::function<Answer()>;

  /// Runs `task` on the lowest-numbered idle thread, or after the tasks
  /// queued before it when every thread is busy. Never blocks.
  void enqueue(Task task);

  /// The number of the pool thread calling this, or -1 off the pool (for
  /// tests: which thread a task ran on).
  static int currentThread();
  /// Threads running now (thread 0 and those not retired).
  int runningThreads();

private:
  struct Worker {
    Task task; // set while handed over, guarded by mutex_
    std::condition_variable wake;
    bool idle = true;
    bool running = false; // its thread is in work(); guarded by mutex_
    std::thread thread;
  };
  void work(int index);
  /// Starts worker `index`'s thread; returns the retired one it replaces
  /// (to be joined without the lock: its exit frees its OpenMP team).
  /// Throws std::system_error when no thread can be created.
  std::thread start(Worker &worker, int index);

  std::mutex mutex_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::deque<Task> queue_; // when no worker is idle
  bool stopping_ = false;
  std::chrono::milliseconds retireAfter_;
};

} // namespace anyshape::server

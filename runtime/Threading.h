// The threads one execution may use. JITed kernels and oneDNN share one
// threading runtime, OpenMP (Debian's oneDNN is built on libgomp; mixing
// runtimes costs, DESIGN.md "CPU backend"). The server shares the cores
// among the executions in flight (CoreShare): a lone request gets all of
// them, and under load each gets its share, so concurrent requests do not
// oversubscribe the cores.
#pragma once

#include <atomic>
#include <cstdint>

namespace anyshape::runtime {

/// Sets the OpenMP team size for parallel work started by this thread.
void setThreadsForThisThread(int threads);

/// The team size parallel work started by this thread gets (what a run
/// takes as its context's team size unless told otherwise).
extern "C" int64_t anyshapeTeamSize();

/// Sets this thread's team size for its lifetime, restoring the previous
/// one after.
class ScopedThreads {
public:
  explicit ScopedThreads(int threads)
      : previous_(static_cast<int>(anyshapeTeamSize())) {
    setThreadsForThisThread(threads);
  }
  ~ScopedThreads() { setThreadsForThisThread(previous_); }
  ScopedThreads(const ScopedThreads &) = delete;
  ScopedThreads &operator=(const ScopedThreads &) = delete;

private:
  int previous_;
};

/// Hardware threads of this machine (at least 1).
int hardwareThreads();

/// The cores shared by the executions running at once. Each takes its team
/// when it starts: cores / (executions running then, itself included),
/// at least 1. A lone request runs on every core; under steady load each
/// of N gets cores / N. A team is fixed for its run, so one that began
/// alone keeps its cores while others start: at most cores - 1 threads
/// over the cores until it ends.
class CoreShare {
public:
  explicit CoreShare(int cores) : cores_(cores < 1 ? 1 : cores) {}

  /// One execution's share for its lifetime: this thread's team size is
  /// set to it, and restored after.
  class Claim {
  public:
    explicit Claim(CoreShare &share);
    ~Claim();
    Claim(const Claim &) = delete;
    Claim &operator=(const Claim &) = delete;
    int threads() const { return threads_; }

  private:
    CoreShare &share_;
    int threads_;
    int previous_;
  };

  int running() const { return running_.load(); }

private:
  int cores_;
  std::atomic<int> running_{0};
};

} // namespace anyshape::runtime

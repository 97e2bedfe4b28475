// The threads one execution may use. JITed kernels and oneDNN share one
// threading runtime, OpenMP (Debian's oneDNN is built on libgomp; mixing
// runtimes costs, DESIGN.md "CPU backend"). The server runs N executions
// at once and gives each cores / N OpenMP threads, so concurrent requests
// never oversubscribe the cores.
#pragma once

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

} // namespace anyshape::runtime

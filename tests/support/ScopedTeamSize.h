// This thread's OpenMP team size for a scope: tests that need more threads
// than rows (split-row versions) on a machine of 2 cores ask for them.
#pragma once

#include "runtime/Threading.h"

namespace anyshape::test {

class ScopedTeamSize {
public:
  explicit ScopedTeamSize(int threads)
      : previous_(static_cast<int>(runtime::anyshapeTeamSize())) {
    runtime::setThreadsForThisThread(threads);
  }
  ~ScopedTeamSize() { runtime::setThreadsForThisThread(previous_); }
  ScopedTeamSize(const ScopedTeamSize &) = delete;
  ScopedTeamSize &operator=(const ScopedTeamSize &) = delete;

private:
  int previous_;
};

} // namespace anyshape::test

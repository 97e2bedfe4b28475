// A few tasks at once on plain threads (RunOnThreads.h).
#include "runtime/support/RunOnThreads.h"

#include <system_error>
#include <thread>
#include <vector>

namespace anyshape {

void runOnThreads(int64_t count, const std::function<void(int64_t)> &task) {
  std::vector<std::thread> threads;
  for (int64_t k = 1; k < count; ++k) {
    try {
      threads.emplace_back(task, k);
    } catch (const std::system_error &) { // no thread to be had
      task(k);
    }
  }
  if (count > 0)
    task(0);
  for (std::thread &thread : threads)
    thread.join();
}

} // namespace anyshape

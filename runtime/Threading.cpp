#include "runtime/Threading.h"

#include <algorithm>
#include <thread>

// From libgomp, declared here rather than through <omp.h> so that no
// compiler flag can switch this file to another OpenMP runtime.
extern "C" void omp_set_num_threads(int threads);
extern "C" int omp_get_max_threads();

namespace anyshape::runtime {

void setThreadsForThisThread(int threads) {
  omp_set_num_threads(std::max(threads, 1));
}

int64_t anyshapeTeamSize() { return omp_get_max_threads(); }

int hardwareThreads() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

CoreShare::Claim::Claim(CoreShare &share)
    : share_(share), previous_(static_cast<int>(anyshapeTeamSize())) {
  int running = ++share.running_;
  threads_ = std::max(1, share.cores_ / running);
  setThreadsForThisThread(threads_);
}

CoreShare::Claim::~Claim() {
  --share_.running_;
  setThreadsForThisThread(previous_);
}

} // namespace anyshape::runtime

// Invariants: regions are forked with GOMP_parallel using the team size
// pushed for the fork (the execution context's, ExecutionContext.h), or
// the calling thread's OpenMP team size without one;
// the static schedule splits [lower, upper] into near-equal contiguous
// blocks, one per thread, as libomp's kmp_sch_static does, so each thread
// streams one contiguous range (good for the prefetcher and for
// vectorised bodies).
#include "runtime/OpenMpAbi.h"

#include "runtime/support/HandOff.h"

#include <algorithm>
#include <cstdarg>
#include <cstdlib>

extern "C" {
void GOMP_parallel(void (*fn)(void *), void *data, unsigned threads,
                   unsigned flags);
void GOMP_barrier();
int omp_get_thread_num();
int omp_get_num_threads();
}

namespace anyshape::runtime {
namespace {

constexpr int kMaxArgs = 8;

struct Region {
  KmpMicrotask task;
  int32_t argc;
  void *args[kMaxArgs];
  int team; // written by thread 0
};

// libomp's push/fork protocol keeps the pushed count per thread; so does
// the test statistic.
thread_local int32_t pushedTeam = 0;
thread_local int largestTeam = 0;

void runRegion(void *data) {
  auto *region = static_cast<Region *>(data);
  // The fork and the join are libgomp's (not instrumented): the region's
  // arguments are handed to each thread, and its writes back at the join.
  handOffAcquire(region);
  struct Join {
    Region *region;
    ~Join() { handOffRelease(region); }
  } join{region};
  int32_t thread = omp_get_thread_num();
  if (thread == 0)
    region->team = omp_get_num_threads();
  int32_t bound = thread;
  void **a = region->args;
  switch (region->argc) {
  case 0:
    return region->task(&thread, &bound);
  case 1:
    return region->task(&thread, &bound, a[0]);
  case 2:
    return region->task(&thread, &bound, a[0], a[1]);
  case 3:
    return region->task(&thread, &bound, a[0], a[1], a[2]);
  case 4:
    return region->task(&thread, &bound, a[0], a[1], a[2], a[3]);
  case 5:
    return region->task(&thread, &bound, a[0], a[1], a[2], a[3], a[4]);
  case 6:
    return region->task(&thread, &bound, a[0], a[1], a[2], a[3], a[4], a[5]);
  case 7:
    return region->task(&thread, &bound, a[0], a[1], a[2], a[3], a[4], a[5],
                        a[6]);
  default:
    return region->task(&thread, &bound, a[0], a[1], a[2], a[3], a[4], a[5],
                        a[6], a[7]);
  }
}

} // namespace

extern "C" int32_t anyshapeKmpcGlobalThreadNum(KmpIdent *) {
  return omp_get_thread_num();
}

extern "C" void anyshapeKmpcForkCall(KmpIdent *, int32_t argc,
                                     KmpMicrotask task, ...) {
  // OpenMPIRBuilder aggregates captured values into one struct, so argc
  // is 1 in practice; more than kMaxArgs would be a compiler change.
  if (argc < 0 || argc > kMaxArgs)
    std::abort();
  Region region{task, argc, {}, 0};
  va_list list;
  va_start(list, task);
  for (int32_t k = 0; k < argc; ++k)
    region.args[k] = va_arg(list, void *);
  va_end(list);
  unsigned threads = static_cast<unsigned>(std::max(pushedTeam, 0));
  pushedTeam = 0;
  handOffRelease(&region);
  GOMP_parallel(&runRegion, &region, threads, 0);
  handOffAcquire(&region);
  largestTeam = std::max(largestTeam, region.team);
}

extern "C" void anyshapeKmpcPushNumThreads(KmpIdent *, int32_t,
                                           int32_t threads) {
  pushedTeam = threads;
}

int largestTeamForkedByThisThread() { return largestTeam; }

void resetLargestTeamForkedByThisThread() { largestTeam = 0; }

extern "C" void anyshapeKmpcForStaticInit8u(
    KmpIdent *, int32_t, int32_t /*schedule*/, int32_t *isLast, uint64_t *lower,
    uint64_t *upper, int64_t *stride, int64_t increment, int64_t /*chunk*/) {
  uint64_t step = increment > 0 ? static_cast<uint64_t>(increment) : 1;
  uint64_t first = *lower, last = *upper; // inclusive
  uint64_t trips = last < first ? 0 : (last - first) / step + 1;
  auto threads = static_cast<uint64_t>(std::max(omp_get_num_threads(), 1));
  auto thread = static_cast<uint64_t>(omp_get_thread_num());
  uint64_t base = trips / threads, extra = trips % threads;
  uint64_t begin = thread * base + std::min(thread, extra);
  uint64_t count = base + (thread < extra ? 1 : 0);
  // An empty share is upper = lower - 1 (the generated code computes its
  // trip count as upper - lower + 1, modulo 2^64).
  *lower = first + begin * step;
  *upper = *lower + count * step - 1;
  *stride = static_cast<int64_t>(trips * step);
  *isLast = count > 0 && begin + count == trips;
}

extern "C" void anyshapeKmpcForStaticFini(KmpIdent *, int32_t) {}

extern "C" void anyshapeKmpcBarrier(KmpIdent *, int32_t) { GOMP_barrier(); }

} // namespace anyshape::runtime

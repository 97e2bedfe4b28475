// The libomp entry points that MLIR's OpenMP lowering calls, implemented
// on libgomp — the OpenMP runtime Debian's oneDNN already runs on — so
// that parallel kernels and GEMM share one thread pool instead of two
// runtimes fighting over the cores (DESIGN.md "CPU backend").
//
// MLIR's OpenMPIRBuilder emits, for an omp.parallel + omp.wsloop with the
// default static schedule: __kmpc_fork_call (the region, its captured
// values aggregated into one struct pointer), __kmpc_global_thread_num,
// __kmpc_for_static_init_8u / __kmpc_for_static_fini (each thread's share
// of the iteration space) and __kmpc_barrier; with a num_threads clause
// (the execution context's team size), __kmpc_push_num_threads before the
// fork. Executables bind these as absolute symbols; nothing else of libomp
// is used.
#pragma once

#include <cstdint>

namespace anyshape::runtime {

struct KmpIdent; // libomp's source-location struct; unused

using KmpMicrotask = void (*)(int32_t *globalThread, int32_t *boundThread, ...);

extern "C" {
int32_t anyshapeKmpcGlobalThreadNum(KmpIdent *);
void anyshapeKmpcForkCall(KmpIdent *, int32_t argc, KmpMicrotask task, ...);
void anyshapeKmpcForStaticInit8u(KmpIdent *, int32_t thread, int32_t schedule,
                                 int32_t *isLast, uint64_t *lower,
                                 uint64_t *upper, int64_t *stride,
                                 int64_t increment, int64_t chunk);
void anyshapeKmpcForStaticFini(KmpIdent *, int32_t thread);
void anyshapeKmpcBarrier(KmpIdent *, int32_t thread);
/// The team size of this thread's next fork (libomp's contract: consumed
/// by that fork).
void anyshapeKmpcPushNumThreads(KmpIdent *, int32_t thread, int32_t threads);
}

/// The largest team a fork started by this thread has had since the last
/// reset (tests: which team size an execution ran with).
int largestTeamForkedByThisThread();
void resetLargestTeamForkedByThisThread();

} // namespace anyshape::runtime

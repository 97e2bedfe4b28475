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

/// The team size parallel work started by this thread gets: what generated
/// kernels ask to choose a row-reduction schedule (jit/SplitRowSchedule.h).
extern "C" int64_t anyshapeTeamSize();

/// Hardware threads of this machine (at least 1).
int hardwareThreads();

} // namespace anyshape::runtime

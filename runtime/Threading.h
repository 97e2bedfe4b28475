// The threads one execution may use. JITed kernels and oneDNN share one
// threading runtime, OpenMP (Debian's oneDNN is built on libgomp; mixing
// runtimes costs, DESIGN.md "CPU backend"). The server runs N executions
// at once and gives each cores / N OpenMP threads, so concurrent requests
// never oversubscribe the cores.
#pragma once

namespace anyshape::runtime {

/// Sets the OpenMP team size for parallel work started by this thread.
void setThreadsForThisThread(int threads);

/// Hardware threads of this machine (at least 1).
int hardwareThreads();

} // namespace anyshape::runtime

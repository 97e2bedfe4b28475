// Runs a few independent tasks at once on plain threads: the seeded
// weights' generation (ir/graph/ConstantData.cpp) and the object code's
// parts (compiler/ParallelCodegen.h). Plain threads, not OpenMP, so that the
// calling thread keeps no OpenMP team spinning afterwards; a thread that
// cannot be started (a process at its thread limit) costs time, never the
// work: its task runs on the calling thread.
#pragma once

#include <cstdint>
#include <functional>

namespace anyshape {

/// Runs task(k) for every k in [0, count): task 0 on the calling thread,
/// the others on threads of their own. Returns once all have finished.
void runOnThreads(int64_t count, const std::function<void(int64_t)> &task);

} // namespace anyshape

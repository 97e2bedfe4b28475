// Compiles out of the server's process: each compile runs in a child
// process (anyshape-compile-worker, WorkerMain.h) with an
// address-space limit and a CPU-time limit, so that nothing a graph does to
// the compiler — a crash, an abort inside MLIR or LLVM, runaway memory or
// time — can take the server or any other request with it.
//
// One process per compile: the compile pool bounds how many run at once,
// a fresh process starts with nothing a previous compile left behind, and
// a per-process CPU limit is exactly a per-compile one. Starting one costs
// a fork and exec and loading the compiler's libraries, so one spare is
// kept started and waiting for its job: each compile takes the spare and
// starts the next (the cost that remains is in docs/benchmarks.md).
//
// The job and the stored tensors its constants reference go in on the
// child's stdin, the result (host object code, the compiled graph, its
// ExecutableInfo) comes back on its stdout, and the executable is loaded
// in the server as one from the disk cache is. A worker is killed when the
// request's deadline passes (DEADLINE_EXCEEDED) and when a drain runs out
// of time (killAll). Every failure is that request's error, counted.
#pragma once

#include "anyshape/v1/worker.pb.h"
#include "ir/graph/ConstantData.h"
#include "server/Metrics.h"
#include "server/cache/CompileCache.h"

#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <sys/types.h>

namespace anyshape::server {

struct CompileWorkerOptions {
  /// The worker program (anyshape-compile-worker), run without arguments.
  std::string program;
  /// RLIMIT_AS of a worker: a compile needing more fails RESOURCE_EXHAUSTED.
  int64_t addressSpaceBytes = int64_t{16} << 30;
  /// RLIMIT_CPU of a worker (its whole compile, every thread).
  int64_t cpuSeconds = 600;
};

class CompileWorkers {
public:
  CompileWorkers(CompileWorkerOptions options, Metrics &metrics)
      : options_(std::move(options)), metrics_(metrics) {}
  ~CompileWorkers();

  /// Runs `job` in a new worker, with the stored tensors `tensors` has of
  /// job.stored_tensor_ids (the others are dropped from the job: the
  /// compile then reports them missing); kills it at `deadline`. A
  /// `background` compile (a hot shape's specialisation, HotShapes.h) runs
  /// at a lower CPU priority than the server's requests.
  StatusOr<CachedExecutable>
  compile(v1::CompileJob job, const TensorLookup &tensors,
          std::chrono::steady_clock::time_point deadline,
          bool background = false);

  /// Kills every running worker; their compiles fail UNAVAILABLE. For a
  /// drain that ran out of time.
  void killAll();
  /// Kills the background compiles and starts no more (they fail
  /// UNAVAILABLE). For a drain: nobody waits for them.
  void stopBackground();

  const CompileWorkerOptions &options() const { return options_; }

private:
  struct Outcome;
  /// A started worker and our ends of its stdin, stdout and stderr.
  struct Child {
    pid_t pid;
    int toChild, fromChild, errFromChild;
  };
  /// Runs `input` through a worker: the spare if `spare` (and it is
  /// alive), else a new one.
  Status run(const std::string &input,
             std::chrono::steady_clock::time_point deadline, bool spare,
             bool background, Outcome &out);
  /// The spare worker if `spare` and it is alive (else a new one); a new
  /// spare whenever none is left.
  StatusOr<Child> takeWorker(bool spare, bool background);
  StatusOr<Child> spawnLocked(); // mutex_ held
  /// Closes `child`'s pipes and reaps it (killing it first if `kill`).
  void reap(Child &child, bool kill); // mutex_ held

  const CompileWorkerOptions options_;
  Metrics &metrics_;
  std::mutex mutex_;
  std::set<pid_t> running_;        // guarded by mutex_; not yet reaped
  std::optional<Child> spare_;     // guarded by mutex_; waiting for a job
  bool killedAll_ = false;         // guarded by mutex_
  std::set<pid_t> background_;     // guarded by mutex_; a subset of running_
  bool backgroundStopped_ = false; // guarded by mutex_
};

} // namespace anyshape::server

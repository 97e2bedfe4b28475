// Dynamic batching (anyshape-server --max-batch, --max-batch-delay-us):
// concurrent Execute requests for one executable whose inputs differ only
// along the symbol its graph is proved row-independent along
// (ir/graph/BatchAxes.h) run as one, and each caller gets its own rows.
//
// How runs form: a request, once its inputs are resolved on an execute
// pool thread, joins the pending list of its key (the executable, and
// every input's dtype and dims but the batch dim). If no thread is running
// that key, this one becomes its runner: it takes pending requests in
// order up to --max-batch rows, runs them as one, answers each, and goes
// on while any are pending; every other thread hands its request over and
// returns at once, so requests that queue behind a run join the next one.
// Before a run the runner waits for more only up to --max-batch-delay-us,
// and only while other requests for the same executable are on their way
// (admitted, not yet pending): a request alone is never delayed.
//
// Invariants: each request is answered exactly once; a joined run that
// fails is rerun request by request, so that one request's data (an index
// out of range) fails it alone; a joined tensor never exceeds the
// server's element limit.
#pragma once

#include "anyshape/v1/service.pb.h"
#include "ir/graph/BatchAxes.h"
#include "server/cache/CompileCache.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace anyshape::server {

class DynamicBatcher {
public:
  using Clock = std::chrono::steady_clock;
  struct Options {
    int64_t maxRows = 0; ///< rows along the batch symbol in one run
    std::chrono::microseconds maxDelay{1000};
    int64_t maxElementsPerTensor = 0; ///< of a joined input
  };
  /// What a request's run gave: its outputs (its own rows), how many
  /// requests ran together (1: alone), when the run started and its
  /// timing (run_us, threads, specialized; set by the RunFunction).
  struct Outcome {
    StatusOr<std::vector<v1::Tensor>> outputs;
    int joined = 1;
    Clock::time_point started;
    v1::ExecuteTiming timing;
  };
  /// Runs an executable on inputs in graph order (the service's run: the
  /// cores claimed, a hot shape routed), filling the timing's run fields.
  using RunFunction = std::function<StatusOr<std::vector<v1::Tensor>>(
      const CachedExecutable &, const std::vector<const v1::Tensor *> &,
      v1::ExecuteTiming &)>;

  struct Request {
    std::shared_ptr<const CachedExecutable> entry;
    std::string executableId;
    /// In graph order, valid (validateTensor) and held by the caller
    /// until `done` is called.
    std::vector<const v1::Tensor *> inputs;
    std::function<void(Outcome)> done;
  };

  DynamicBatcher(Options options, RunFunction run);

  /// The executable's proof (BatchAxes.h), made on first use; null when
  /// its rows are not shown independent (it then always runs alone).
  const BatchAxes *axesOf(const std::shared_ptr<jit::Executable> &executable);

  /// A request for `executableId` was admitted: a runner of that
  /// executable may wait for it. Each is matched by one arrived().
  void expect(const std::string &executableId);
  /// It reached run() or left before (refused, not batchable).
  void arrived(const std::string &executableId);

  /// Runs `request` joined with others (BatchAxes `axes`) on this thread,
  /// or hands it to the thread running its key; `done` is called once,
  /// on whichever thread ran it. Calls arrived() for it.
  void run(Request request, const BatchAxes &axes);

private:
  struct Pending {
    Request request;
    int64_t rows = 0;
  };
  struct Key {
    std::deque<Pending> pending;
    Clock::time_point firstPendingSince;
  };
  /// The key of a request, or "" when its inputs do not agree with the
  /// proof (a rank or batch size that differs: it runs alone and gets the
  /// executable's own error).
  static std::string keyOf(const Request &request, const BatchAxes &axes,
                           int64_t &rows);
  /// arrived() with mutex_ held.
  void arrivedLocked(const std::string &executableId);
  /// Takes the next run's requests off `key` (mutex_ held).
  std::vector<Pending> take(Key &key, const BatchAxes &axes);
  void runJoined(std::vector<Pending> batch, const BatchAxes &axes);
  void runAlone(Pending &pending);

  Options options_;
  RunFunction run_;
  std::mutex mutex_;
  std::condition_variable arrivals_;
  std::unordered_map<std::string, Key> keys_; ///< keys with a runner
  std::unordered_map<std::string, int> expected_;
  /// Proofs by executable (their graphs' addresses); an expired
  /// executable's entry is dropped when the next is added.
  std::map<const jit::Executable *,
           std::pair<std::weak_ptr<jit::Executable>,
                     std::shared_ptr<const std::optional<BatchAxes>>>>
      proofs_;
};

} // namespace anyshape::server

// Where anyshape-load's requests go: a server (one connection per client)
// or an executable in the load generator's own process (--in-process),
// compiled in one of the modes a user weighs: once for every shape, once
// per length (static, as XLA-style systems do), or once per power-of-two
// bucket with the inputs zero-padded (a zero mask entry masks a padded
// token).
#pragma once

#include "Compare.h"
#include "anyshape/client/Client.h"
#include "compiler/Compiler.h"
#include "runtime/Threading.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

namespace anyshape::load {

/// The counters of a run's compile cache (in process: compiles only).
struct CacheCounts {
  int64_t compiles = 0, hits = 0, misses = 0;
};

enum class CompileMode {
  Dynamic,   ///< one compile, every shape (anyshape's)
  Static,    ///< a compile for each new length
  Buckets,   ///< a compile for each power-of-two bucket; inputs padded
  Reference, ///< no compile: the reference evaluator, one op at a time
};
std::optional<CompileMode> parseCompileMode(std::string_view name);
const char *compileModeName(CompileMode mode);

struct Target {
  /// Runs one request: `length` is the varying symbol's size in `inputs`,
  /// which it may consume (a server's target moves them into the request,
  /// as a client that builds its inputs per request would); a server's
  /// target fills `timing`.
  std::function<Status(int64_t client, int64_t length,
                       std::vector<v1::Tensor> &inputs, ServerTiming &timing)>
      execute;
  std::function<StatusOr<CacheCounts>()> counts;
  CacheCounts before;   ///< counts before the setup's compile
  double compileMs = 0; ///< the setup's compile (0 on a cache hit)

  // What execute and counts use.
  std::unique_ptr<client::Client> control;
  std::vector<std::unique_ptr<client::Client>> clients;
  std::optional<client::Compiled> compiled;
  std::shared_ptr<jit::Executable> executable; ///< Dynamic
  std::unique_ptr<runtime::CoreShare> cores;
  std::mutex mutex; ///< guards bySize
  /// Static and Buckets: the executable of each size compiled so far.
  std::map<int64_t, std::shared_ptr<jit::Executable>> bySize;
};

/// In-process setup: compiles `graph` (Dynamic: now; Static and Buckets:
/// each size when first asked for, inside the run as those systems
/// would; Reference: never) with `symbol` the varying symbol and
/// `otherDims` the fixed ones.
Status compileInProcess(const v1::Graph &graph, CompileMode mode,
                        const std::string &symbol,
                        const std::map<std::string, int64_t> &otherDims,
                        Target &target);

} // namespace anyshape::load

// Hot-shape specialisation in the background: the server counts the
// executions of each executable per concrete input shapes; once one shape
// has run `threshold` times, a static specialisation of the executable for
// those sizes (CompileOptions.static_symbols, ir/graph/Specialize.h) is
// compiled off the request path, and from then on that shape runs on it
// while every other shape keeps running on the dynamic executable.
//
// One background thread compiles the specialisations, one at a time, so
// they never take a compile slot from a client's compile; the service runs
// each in a compile worker at nice 10 (a server compiling in process runs
// it at normal priority). A specialisation is an ordinary cache entry
// (its key is the graph's with the symbols bound): it is shared through the
// tiers and found again after a restart without compiling.
//
// Bounded: at most `maxShapes` shapes are counted (a shape first seen after
// that is not), at most `maxPerExecutable` are specialised per executable,
// and at most `maxQueued` wait for the background thread (a shape that
// finds the queue full is counted on and tried again at its next
// execution). A specialisation that fails is logged and not tried again
// for that shape; the dynamic executable keeps serving it.
#pragma once

#include "runtime/support/Status.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace anyshape::server {

struct HotShapeOptions {
  /// Executions of one shape that make it hot; 0: never (off).
  int64_t threshold = 0;
  int64_t maxShapes = 4096;
  int64_t maxPerExecutable = 8;
  int64_t maxQueued = 16;
};

struct HotShapeStats {
  int64_t compiled = 0; ///< specialisations ready
  int64_t failed = 0;   ///< specialisations that could not be compiled
  int64_t runs = 0;     ///< executions routed to a specialisation
};

using InputShapes = std::vector<std::vector<int64_t>>;

class HotShapes {
public:
  /// Compiles (or finds in the cache) executable `id` specialised to
  /// `shapes`, on the background thread; returns the specialisation's
  /// executable id.
  using Specialize = std::function<StatusOr<std::string>(
      const std::string &id, const InputShapes &shapes)>;

  HotShapes(HotShapeOptions options, Specialize specialize);
  /// Finishes the specialisation in progress, drops the queued ones.
  ~HotShapes();
  /// Starts nothing more (a drain): the one in progress finishes or is
  /// stopped by the service (CompileWorkers::stopBackground).
  void stop();
  HotShapes(const HotShapes &) = delete;
  HotShapes &operator=(const HotShapes &) = delete;

  /// Counts one execution of `id` at `shapes`: the specialisation's id
  /// when one is ready for them (counted as a routed run), else empty.
  std::string route(const std::string &id, const InputShapes &shapes);
  /// Forgets every shape of `id` (Unload); its specialisations stay in
  /// the cache.
  void forget(const std::string &id);

  HotShapeStats stats() const;

private:
  enum class State { Counting, Queued, Ready, Failed };
  struct Shape {
    std::string id; ///< the dynamic executable
    InputShapes shapes;
    int64_t runs = 0;
    State state = State::Counting;
    std::string special; ///< Ready: the specialisation's id
  };
  void compileInBackground();

  const HotShapeOptions options_;
  const Specialize specialize_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  /// Keyed by id and shapes (shapeKey); guarded by mutex_.
  std::unordered_map<std::string, Shape> shapes_;
  std::map<std::string, int64_t> specialisedPer_; // id -> queued or ready
  std::deque<std::string> queue_;                 // keys of shapes_
  HotShapeStats stats_;
  bool stopping_ = false;
  std::thread background_; // last: it uses everything above
};

} // namespace anyshape::server

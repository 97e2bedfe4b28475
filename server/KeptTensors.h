// Kept outputs: tensors an Execute left in the server instead of returning
// them (ExecuteRequest.keep_outputs), named by later requests as inputs
// and freed by FreeTensors. A decoder's KV cache lives here between steps,
// so a decode loop sends one token id per step, not the whole cache.
//
// Unlike the tensor store (content-addressed, never evicted: graphs refer
// to it), kept tensors are per request and bounded three ways, so that a
// client that abandons its loop cannot fill the server: their bytes, their
// count, and their idle time (a tensor not named by any request for
// `idleSeconds` is dropped; naming it afterwards is NOT_FOUND, saying so).
// Ids are 128 random bits ("kept-" and 32 hex digits): unguessable, and
// never reused, so a freed id cannot come to mean another tensor.
#pragma once

#include "anyshape/v1/graph.pb.h"
#include "runtime/support/Status.h"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace anyshape::server {

class KeptTensors {
public:
  using Clock = std::chrono::steady_clock;

  struct Limits {
    int64_t maxBytes = int64_t{2} << 30;
    int64_t maxCount = 4096;
    double idleSeconds = 300;
  };
  explicit KeptTensors(Limits limits);

  static bool isKeptId(const std::string &id) {
    return id.rfind(kPrefix, 0) == 0;
  }

  /// Keeps all of `tensors` or none: RESOURCE_EXHAUSTED, naming the limit,
  /// if they do not fit after the idle ones are dropped. Returns their
  /// ids, in order.
  StatusOr<std::vector<std::string>> keep(std::vector<v1::Tensor> tensors);
  /// The kept tensor (held by the caller for its run), its idle clock
  /// reset to `now`; NOT_FOUND when it was freed, expired or never kept.
  StatusOr<std::shared_ptr<const v1::Tensor>>
  get(const std::string &id, Clock::time_point now = Clock::now());
  struct Freed {
    int64_t count = 0, bytes = 0;
  };
  /// Frees the ids that are kept; others are skipped (freeing twice is
  /// not an error: a retried FreeTensors must succeed).
  Freed free(const std::vector<std::string> &ids);

  int64_t count() const;
  int64_t bytes() const;
  int64_t expired() const;

  /// Drops the tensors idle for longer than the limit (also done by keep
  /// and get); `now` for tests.
  void expire(Clock::time_point now = Clock::now());

private:
  static constexpr const char *kPrefix = "kept-";
  struct Entry {
    std::shared_ptr<const v1::Tensor> tensor;
    int64_t bytes = 0;
    Clock::time_point lastUse;
  };
  void expireLocked(Clock::time_point now);
  std::string freshIdLocked();

  const Limits limits_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
  int64_t bytes_ = 0;
  int64_t expired_ = 0;
  std::mt19937_64 random_;
};

} // namespace anyshape::server

// Kept outputs (KeptTensors.h): a map from random id to tensor with its
// last use, under one mutex; expiry is a sweep at each keep and get (the
// map holds at most maxCount entries, so the sweep is bounded).
#include "server/KeptTensors.h"

#include <cstdio>

namespace anyshape::server {

KeptTensors::KeptTensors(Limits limits) : limits_(limits) {
  std::random_device device;
  std::seed_seq seed{device(), device(), device(), device()};
  random_.seed(seed);
}

std::string KeptTensors::freshIdLocked() {
  for (;;) {
    char hex[33];
    std::snprintf(hex, sizeof hex, "%016llx%016llx",
                  static_cast<unsigned long long>(random_()),
                  static_cast<unsigned long long>(random_()));
    std::string id = kPrefix + std::string(hex);
    if (!entries_.count(id))
      return id;
  }
}

void KeptTensors::expireLocked(Clock::time_point now) {
  auto idle = std::chrono::duration<double>(limits_.idleSeconds);
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (now - it->second.lastUse > idle) {
      bytes_ -= it->second.bytes;
      ++expired_;
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
}

void KeptTensors::expire(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  expireLocked(now);
}

StatusOr<std::vector<std::string>>
KeptTensors::keep(std::vector<v1::Tensor> tensors) {
  int64_t adding = 0;
  for (const v1::Tensor &t : tensors)
    adding += static_cast<int64_t>(t.data().size());
  std::lock_guard<std::mutex> lock(mutex_);
  Clock::time_point now = Clock::now();
  expireLocked(now);
  auto count = static_cast<int64_t>(entries_.size() + tensors.size());
  if (count > limits_.maxCount)
    return resourceExhausted("keeping " + std::to_string(tensors.size()) +
                             " outputs would make " + std::to_string(count) +
                             " kept tensors, over the server's limit of " +
                             std::to_string(limits_.maxCount) +
                             " (--max-kept-tensors); free "
                             "those no longer needed with FreeTensors");
  if (adding > limits_.maxBytes - bytes_)
    return resourceExhausted(
        "keeping " + std::to_string(adding) + " bytes of outputs would make " +
        std::to_string(bytes_ + adding) +
        " kept bytes, over the server's "
        "limit of " +
        std::to_string(limits_.maxBytes) +
        " (--max-kept-bytes); free those no longer needed with FreeTensors");
  std::vector<std::string> ids;
  for (v1::Tensor &t : tensors) {
    std::string id = freshIdLocked();
    auto bytes = static_cast<int64_t>(t.data().size());
    entries_[id] = {std::make_shared<const v1::Tensor>(std::move(t)), bytes,
                    now};
    bytes_ += bytes;
    ids.push_back(std::move(id));
  }
  return ids;
}

StatusOr<std::shared_ptr<const v1::Tensor>>
KeptTensors::get(const std::string &id, Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  expireLocked(now);
  auto it = entries_.find(id);
  if (it == entries_.end())
    return notFound("kept tensor '" + id +
                    "' is not held: freed, never kept, or dropped after " +
                    "idling longer than " +
                    std::to_string(static_cast<int64_t>(limits_.idleSeconds)) +
                    " s");
  it->second.lastUse = now;
  return it->second.tensor;
}

KeptTensors::Freed KeptTensors::free(const std::vector<std::string> &ids) {
  std::lock_guard<std::mutex> lock(mutex_);
  Freed freed;
  for (const std::string &id : ids) {
    auto it = entries_.find(id);
    if (it == entries_.end())
      continue;
    ++freed.count;
    freed.bytes += it->second.bytes;
    bytes_ -= it->second.bytes;
    entries_.erase(it);
  }
  return freed;
}

int64_t KeptTensors::count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(entries_.size());
}

int64_t KeptTensors::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

int64_t KeptTensors::expired() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return expired_;
}

} // namespace anyshape::server

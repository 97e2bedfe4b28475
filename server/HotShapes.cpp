// Counting shapes and compiling their specialisations (HotShapes.h).
#include "server/HotShapes.h"

#include "server/Log.h"

namespace anyshape::server {
namespace {

/// The executable id, then each input's rank and dims as raw bytes: the
/// same key for the same call shape, cheap to make on every execution.
std::string shapeKey(const std::string &id, const InputShapes &shapes) {
  std::string key = id;
  for (const std::vector<int64_t> &shape : shapes) {
    int64_t rank = static_cast<int64_t>(shape.size());
    key.append(reinterpret_cast<const char *>(&rank), sizeof(rank));
    key.append(reinterpret_cast<const char *>(shape.data()),
               shape.size() * sizeof(int64_t));
  }
  return key;
}

std::string describe(const InputShapes &shapes) {
  std::string text;
  for (const std::vector<int64_t> &shape : shapes) {
    text += text.empty() ? "[" : ", [";
    for (size_t d = 0; d < shape.size(); ++d)
      text += (d ? "," : "") + std::to_string(shape[d]);
    text += "]";
  }
  return text;
}

} // namespace

HotShapes::HotShapes(HotShapeOptions options, Specialize specialize)
    : options_(options), specialize_(std::move(specialize)),
      background_([this] { compileInBackground(); }) {}

HotShapes::~HotShapes() {
  stop();
  background_.join();
}

void HotShapes::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
}

std::string HotShapes::route(const std::string &id, const InputShapes &shapes) {
  std::string key = shapeKey(id, shapes);
  std::unique_lock<std::mutex> lock(mutex_);
  auto found = shapes_.find(key);
  if (found == shapes_.end()) {
    if (static_cast<int64_t>(shapes_.size()) >= options_.maxShapes)
      return "";
    found =
        shapes_.emplace(key, Shape{id, shapes, 0, State::Counting, {}}).first;
  }
  Shape &shape = found->second;
  if (shape.state == State::Ready) {
    ++stats_.runs;
    return shape.special;
  }
  ++shape.runs;
  if (shape.state != State::Counting || shape.runs < options_.threshold)
    return "";
  int64_t &specialised = specialisedPer_[id];
  if (specialised >= options_.maxPerExecutable ||
      static_cast<int64_t>(queue_.size()) >= options_.maxQueued)
    return ""; // counted on; tried again at its next run
  ++specialised;
  shape.state = State::Queued;
  queue_.push_back(key);
  lock.unlock();
  wake_.notify_one();
  return "";
}

void HotShapes::forget(const std::string &id) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = shapes_.begin(); it != shapes_.end();)
    it = it->second.id == id ? shapes_.erase(it) : std::next(it);
  specialisedPer_.erase(id);
  // A queued key whose shape is gone is skipped by the background thread.
}

HotShapeStats HotShapes::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void HotShapes::compileInBackground() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_)
      return;
    std::string key = std::move(queue_.front());
    queue_.pop_front();
    auto found = shapes_.find(key);
    if (found == shapes_.end()) // forgotten while queued
      continue;
    std::string id = found->second.id;
    InputShapes shapes = found->second.shapes;
    lock.unlock();
    StatusOr<std::string> special = specialize_(id, shapes);
    if (special.isOk())
      logEvent("info", "specialised",
               {{"executable", id},
                {"shapes", describe(shapes)},
                {"specialisation", *special}});
    else
      logEvent("warning", "specialisation_failed",
               {{"executable", id},
                {"shapes", describe(shapes)},
                {"error", special.status().message()}});
    lock.lock();
    found = shapes_.find(key); // forget() may have run meanwhile
    if (special.isOk()) {
      ++stats_.compiled;
      if (found != shapes_.end()) {
        found->second.state = State::Ready;
        found->second.special = *special;
      }
    } else {
      ++stats_.failed;
      if (found != shapes_.end())
        found->second.state = State::Failed;
    }
  }
}

} // namespace anyshape::server

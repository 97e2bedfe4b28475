// Joining requests into runs (DynamicBatcher.h): the keys with a runner,
// the wait for requests on their way, the joined run and its split.
#include "server/DynamicBatcher.h"

#include "ir/graph/DType.h"

#include <algorithm>

namespace anyshape::server {

DynamicBatcher::DynamicBatcher(Options options, RunFunction run)
    : options_(options), run_(std::move(run)) {}

const BatchAxes *
DynamicBatcher::axesOf(const std::shared_ptr<jit::Executable> &executable) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = proofs_.find(executable.get());
  if (found != proofs_.end() && !found->second.first.expired())
    return found->second.second->has_value() ? &**found->second.second
                                             : nullptr;
  for (auto it = proofs_.begin(); it != proofs_.end();)
    it = it->second.first.expired() ? proofs_.erase(it) : std::next(it);
  // Proved under the lock: once per executable, linear in its nodes.
  auto proof = std::make_shared<const std::optional<BatchAxes>>(
      findBatchAxes(executable->graph(), executable->info()));
  proofs_[executable.get()] = {executable, proof};
  return proof->has_value() ? &**proof : nullptr;
}

void DynamicBatcher::expect(const std::string &executableId) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++expected_[executableId];
}

void DynamicBatcher::arrived(const std::string &executableId) {
  std::lock_guard<std::mutex> lock(mutex_);
  arrivedLocked(executableId);
}

void DynamicBatcher::arrivedLocked(const std::string &executableId) {
  auto it = expected_.find(executableId);
  if (it != expected_.end() && --it->second <= 0)
    expected_.erase(it);
  arrivals_.notify_all();
}

std::string DynamicBatcher::keyOf(const Request &request, const BatchAxes &axes,
                                  int64_t &rows) {
  const v1::Graph &graph = request.entry->executable->graph();
  std::string key = request.executableId;
  rows = -1;
  for (size_t k = 0; k < request.inputs.size(); ++k) {
    const v1::Tensor &tensor = *request.inputs[k];
    int axis = axes.inputAxes[k];
    if (tensor.shape_size() !=
            graph.inputs(static_cast<int>(k)).type().dims_size() ||
        axis < 0 || axis >= tensor.shape_size())
      return "";
    if (rows >= 0 && tensor.shape(axis) != rows)
      return "";
    rows = tensor.shape(axis);
    key += "|" + std::to_string(tensor.dtype()) + ":";
    for (int d = 0; d < tensor.shape_size(); ++d)
      key += (d == axis ? std::string("b") : std::to_string(tensor.shape(d))) +
             ",";
  }
  return rows >= 0 ? key : "";
}

void DynamicBatcher::run(Request request, const BatchAxes &axes) {
  std::string executableId = request.executableId;
  int64_t rows = 0;
  std::string key = keyOf(request, axes, rows);
  if (key.empty() || rows > options_.maxRows) {
    arrived(executableId);
    Pending alone{std::move(request), rows};
    runAlone(alone);
    return;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  arrivedLocked(executableId);
  // The entry itself stays put while other keys come and go (a node of
  // the map), though an iterator to it would not: it is erased by key.
  auto [entry, isRunner] = keys_.try_emplace(key);
  Key &state = entry->second;
  if (state.pending.empty())
    state.firstPendingSince = Clock::now();
  state.pending.push_back({std::move(request), rows});
  if (!isRunner)
    return; // the key's runner takes it
  while (!state.pending.empty()) {
    // Wait for requests on their way, up to the delay and the row bound.
    Clock::time_point deadline = state.firstPendingSince + options_.maxDelay;
    auto pendingRows = [&] {
      int64_t total = 0;
      for (const Pending &p : state.pending)
        total += p.rows;
      return total;
    };
    while (pendingRows() < options_.maxRows && expected_.count(executableId) &&
           Clock::now() < deadline)
      arrivals_.wait_until(lock, deadline);
    std::vector<Pending> batch = take(state, axes);
    if (!state.pending.empty())
      state.firstPendingSince = Clock::now();
    lock.unlock();
    runJoined(std::move(batch), axes);
    lock.lock();
  }
  keys_.erase(key);
}

std::vector<DynamicBatcher::Pending>
DynamicBatcher::take(Key &key, const BatchAxes &axes) {
  std::vector<Pending> batch;
  int64_t rows = 0;
  // Elements of the largest joined input per row of the batch.
  int64_t perRow = 0;
  const Request &first = key.pending.front().request;
  for (size_t k = 0; k < first.inputs.size(); ++k) {
    int64_t elements = 1;
    for (int d = 0; d < first.inputs[k]->shape_size(); ++d)
      if (d != axes.inputAxes[k])
        elements *= first.inputs[k]->shape(d);
    perRow = std::max(perRow, elements);
  }
  while (!key.pending.empty()) {
    int64_t next = rows + key.pending.front().rows;
    bool fits = next <= options_.maxRows &&
                (perRow == 0 || next <= options_.maxElementsPerTensor / perRow);
    if (!batch.empty() && !fits)
      break;
    rows = next;
    batch.push_back(std::move(key.pending.front()));
    key.pending.pop_front();
  }
  return batch;
}

void DynamicBatcher::runAlone(Pending &pending) {
  Outcome outcome{Status::ok(), 1, Clock::now(), {}};
  outcome.outputs =
      run_(*pending.request.entry, pending.request.inputs, outcome.timing);
  pending.request.done(std::move(outcome));
}

void DynamicBatcher::runJoined(std::vector<Pending> batch,
                               const BatchAxes &axes) {
  if (batch.size() == 1) {
    runAlone(batch.front());
    return;
  }
  const Request &first = batch.front().request;
  std::vector<v1::Tensor> joined;
  std::vector<const v1::Tensor *> inputs;
  for (size_t k = 0; k < first.inputs.size(); ++k) {
    std::vector<const v1::Tensor *> parts;
    for (const Pending &p : batch)
      parts.push_back(p.request.inputs[k]);
    joined.push_back(joinRows(parts, axes.inputAxes[k]));
  }
  for (const v1::Tensor &t : joined)
    inputs.push_back(&t);
  Clock::time_point started = Clock::now();
  v1::ExecuteTiming timing;
  StatusOr<std::vector<v1::Tensor>> outputs =
      run_(*first.entry, inputs, timing);
  std::vector<int64_t> rows;
  int64_t total = 0;
  for (const Pending &p : batch)
    total += rows.emplace_back(p.rows);
  // Each output's rows are the joined ones (its type says so); checked,
  // since splitting reads by it.
  bool rowsAsProved = outputs.isOk();
  for (size_t o = 0; rowsAsProved && o < outputs->size(); ++o) {
    int axis = axes.outputAxes[o];
    const v1::Tensor &out = (*outputs)[o];
    rowsAsProved = axis == BatchAxes::kShared ||
                   (axis < out.shape_size() && out.shape(axis) == total);
  }
  if (!rowsAsProved) {
    // Whose data failed it is unknown: each runs again, alone.
    for (Pending &p : batch)
      runAlone(p);
    return;
  }
  std::vector<std::vector<v1::Tensor>> split(batch.size());
  for (size_t o = 0; o < outputs->size(); ++o) {
    std::vector<v1::Tensor> parts =
        splitRows((*outputs)[o], axes.outputAxes[o], rows);
    for (size_t r = 0; r < batch.size(); ++r)
      split[r].push_back(std::move(parts[r]));
  }
  int joinedCount = static_cast<int>(batch.size());
  for (size_t r = 0; r < batch.size(); ++r)
    batch[r].request.done({std::move(split[r]), joinedCount, started, timing});
}

} // namespace anyshape::server

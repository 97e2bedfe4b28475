// What one Execute does once admitted: its inputs resolved (inline bytes,
// a stored tensor, an output kept by an earlier request), the run (on a
// hot shape's specialisation when one is ready), and its outputs returned
// or kept (ExecuteRequest.keep_outputs; KeptTensors.h).
#include "server/AnyShapeService.h"

#include "runtime/Threading.h"

#include <algorithm>

namespace anyshape::server {

Status AnyShapeService::resolveInputs(
    const v1::Graph &graph,
    const google::protobuf::RepeatedPtrField<v1::NamedTensor> &inputs,
    std::vector<const v1::Tensor *> &ordered,
    std::vector<std::shared_ptr<const v1::Tensor>> &stored) {
  ordered.assign(graph.inputs_size(), nullptr);
  for (const v1::NamedTensor &input : inputs) {
    int index = 0;
    while (index < graph.inputs_size() &&
           graph.inputs(index).name() != input.name())
      ++index;
    if (index == graph.inputs_size()) {
      std::string names;
      for (const v1::Input &declared : graph.inputs())
        names += (names.empty() ? "'" : ", '") + declared.name() + "'";
      return invalidArgument("the graph has no input '" + input.name() +
                             "' (its inputs: " + names + ")");
    }
    if (ordered[index])
      return invalidArgument("input '" + input.name() + "' is given twice");
    std::string what = "input '" + input.name() + "'";
    switch (input.value_case()) {
    case v1::NamedTensor::kTensor:
      ANYSHAPE_RETURN_IF_ERROR(validateTensor(
          input.tensor(), what, options_.limits.maxElementsPerTensor));
      ordered[index] = &input.tensor();
      break;
    case v1::NamedTensor::kTensorId: {
      if (KeptTensors::isKeptId(input.tensor_id())) {
        StatusOr<std::shared_ptr<const v1::Tensor>> held =
            kept_.get(input.tensor_id());
        if (!held.isOk())
          return Status(held.status().code(),
                        what + ": " + held.status().message());
        ordered[index] = held->get();
        stored.push_back(std::move(*held));
        break;
      }
      std::shared_ptr<const v1::Tensor> tensor =
          tensors_.get(input.tensor_id());
      if (!tensor)
        return notFound(what + " names stored tensor '" + input.tensor_id() +
                        "', which is not in the tensor store");
      ordered[index] = tensor.get();
      stored.push_back(std::move(tensor));
      break;
    }
    default:
      return invalidArgument(what + " has no value");
    }
  }
  for (int k = 0; k < graph.inputs_size(); ++k)
    if (!ordered[k])
      return invalidArgument("missing input '" + graph.inputs(k).name() + "'");
  return Status::ok();
}

StatusOr<std::vector<v1::Tensor>>
AnyShapeService::runRouted(const CachedExecutable &entry,
                           const std::vector<const v1::Tensor *> &ordered,
                           v1::ExecuteTiming &timing) {
  // A hot shape runs on its specialisation once that is ready; should it
  // have left the cache since, on the executable itself.
  const jit::Executable *executable = entry.executable.get();
  std::shared_ptr<const CachedExecutable> specialised;
  if (hotShapes_ && !entry.info.symbols().empty()) {
    InputShapes shapes(ordered.size());
    for (size_t k = 0; k < ordered.size(); ++k)
      shapes[k].assign(ordered[k]->shape().begin(), ordered[k]->shape().end());
    std::string id = hotShapes_->route(entry.info.executable_id(), shapes);
    if (!id.empty())
      if (StatusOr<CacheResult> found = cache_->find(id); found.isOk()) {
        specialised = found->entry;
        executable = specialised->executable.get();
      }
  }
  auto start = Clock::now();
  StatusOr<std::vector<v1::Tensor>> outputs = executable->run(ordered);
  timing.set_specialized(specialised != nullptr);
  timing.set_run_us(
      std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  timing.set_threads(static_cast<int32_t>(runtime::anyshapeTeamSize()));
  timing.set_joined_requests(1); // a joined run's caller says how many
  return outputs;
}

Status AnyShapeService::execute(
    const CachedExecutable &entry,
    const google::protobuf::RepeatedPtrField<v1::NamedTensor> &inputs,
    const google::protobuf::RepeatedPtrField<std::string> &keep,
    v1::ExecuteResponse &response) {
  const v1::Graph &graph = entry.executable->graph();
  // Which outputs stay here, checked before the run costs anything.
  std::vector<bool> kept(graph.outputs_size(), false);
  for (const std::string &name : keep) {
    int k = 0;
    while (k < graph.outputs_size() && graph.outputs(k) != name)
      ++k;
    if (k == graph.outputs_size())
      return invalidArgument("keep_outputs names '" + name +
                             "', which is not an output of the graph");
    if (kept[k])
      return invalidArgument("keep_outputs names '" + name + "' twice");
    kept[k] = true;
  }
  std::vector<const v1::Tensor *> ordered;
  std::vector<std::shared_ptr<const v1::Tensor>> stored; // held for the run
  ANYSHAPE_RETURN_IF_ERROR(resolveInputs(graph, inputs, ordered, stored));
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::vector<v1::Tensor> outputs,
      runRouted(entry, ordered, *response.mutable_timing()));
  // All the kept outputs are stored, or none (and the request fails).
  std::vector<v1::Tensor> keeping;
  std::vector<v1::KeptTensor> described;
  for (int k = 0; k < graph.outputs_size(); ++k) {
    if (!kept[k])
      continue;
    v1::KeptTensor d;
    d.set_name(graph.outputs(k));
    d.set_dtype(outputs[k].dtype());
    *d.mutable_shape() = outputs[k].shape();
    d.set_bytes(static_cast<int64_t>(outputs[k].data().size()));
    described.push_back(std::move(d));
    keeping.push_back(std::move(outputs[k]));
  }
  std::vector<std::string> ids;
  if (!keeping.empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(ids, kept_.keep(std::move(keeping)));
  }
  for (int k = 0, next = 0; k < graph.outputs_size(); ++k) {
    v1::NamedTensor *out = response.add_outputs();
    out->set_name(graph.outputs(k));
    if (kept[k]) {
      out->set_tensor_id(ids[next]);
      described[next].set_tensor_id(ids[next]);
      *response.add_kept() = std::move(described[next]);
      ++next;
    } else {
      *out->mutable_tensor() = std::move(outputs[k]);
    }
  }
  return Status::ok();
}

bool AnyShapeService::joinable(const v1::ExecuteRequest &request) const {
  if (!batcher_ || !request.keep_outputs().empty() ||
      !request.free_after().empty())
    return false;
  return std::all_of(request.inputs().begin(), request.inputs().end(),
                     [](const v1::NamedTensor &input) {
                       return input.value_case() == v1::NamedTensor::kTensor;
                     });
}

grpc::ServerUnaryReactor *
AnyShapeService::executeJoined(grpc::CallbackServerContext *context,
                               const v1::ExecuteRequest *request,
                               v1::ExecuteResponse *response) {
  grpc::ServerUnaryReactor *reactor = newReactor();
  if (Status admitted = admit(queuedExecutions_, options_.maxQueuedExecutions);
      !admitted.isOk()) {
    finish(reactor, admitted);
    return reactor;
  }
  const std::string &id = request->executable_id();
  batcher_->expect(id);
  Clock::time_point queuedAt = Clock::now();
  // Answered by whichever thread runs it: counted, dequeued, finished.
  auto answer = [this, reactor, queuedAt](Status status) {
    countExecution(status, queuedAt);
    --queuedExecutions_;
    finish(reactor, status);
  };
  executePool_->enqueue([this, context, request, response, &id, queuedAt,
                         answer]() -> LowestIdlePool::Answer {
    Status status = stillWanted(context);
    if (status.isOk())
      status = checkExecutableId(id);
    std::shared_ptr<const CachedExecutable> entry;
    if (status.isOk()) {
      StatusOr<CacheResult> found = cache_->find(id);
      status = found.status();
      if (found.isOk())
        entry = found->entry;
    }
    const BatchAxes *axes =
        status.isOk() ? batcher_->axesOf(entry->executable) : nullptr;
    std::vector<const v1::Tensor *> ordered;
    std::vector<std::shared_ptr<const v1::Tensor>> stored; // none: inline
    if (axes)
      status = resolveInputs(entry->executable->graph(), request->inputs(),
                             ordered, stored);
    if (!axes || !status.isOk()) {
      // Refused, or an executable that always runs alone.
      batcher_->arrived(id);
      if (status.isOk()) {
        runtime::CoreShare::Claim threads(cores_);
        response->mutable_timing()->set_queue_us(
            std::chrono::duration<double, std::micro>(Clock::now() - queuedAt)
                .count());
        status = execute(*entry, request->inputs(), {}, *response);
      }
      return [answer, status] { answer(status); };
    }
    DynamicBatcher::Request joining{entry, id, std::move(ordered), nullptr};
    joining.done = [this, response, entry, queuedAt,
                    answer](DynamicBatcher::Outcome outcome) {
      if (!outcome.outputs.isOk())
        return answer(outcome.outputs.status());
      v1::ExecuteTiming &timing = *response->mutable_timing();
      timing = outcome.timing;
      timing.set_queue_us(
          std::chrono::duration<double, std::micro>(outcome.started - queuedAt)
              .count());
      timing.set_joined_requests(outcome.joined);
      const v1::Graph &graph = entry->executable->graph();
      for (int k = 0; k < graph.outputs_size(); ++k) {
        v1::NamedTensor *out = response->add_outputs();
        out->set_name(graph.outputs(k));
        *out->mutable_tensor() = std::move((*outcome.outputs)[k]);
      }
      answer(Status::ok());
    };
    batcher_->run(std::move(joining), *axes);
    return {};
  });
  return reactor;
}

} // namespace anyshape::server

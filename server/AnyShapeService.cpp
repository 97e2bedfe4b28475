// Request flow: admit (draining? queue full?) -> enqueue on a pool ->
// check the call is still wanted (cancelled, deadline) -> work -> Finish.
// The in-flight gauge covers exactly admitted and unfinished requests, so
// drain waits for precisely the work that was accepted.
#include "server/AnyShapeService.h"

#include "ir/graph/Bindings.h"
#include "runtime/Threading.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/support/HandOff.h"
#include "server/TensorUpload.h"
#include "server/cache/CacheKey.h"
#include "server/cache/DiskCache.h"
#include "server/cache/EntryKey.h"
#include "server/worker/WorkerProtocol.h"

#include <grpcpp/grpcpp.h>

#include <thread>
#include <unistd.h>

namespace anyshape::server {
namespace {

using Clock = std::chrono::steady_clock;

double microsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start)
      .count();
}

/// The call's deadline on the steady clock; a call without one (or with
/// one further away) gets an hour: a compile worker is never left to run
/// unbounded, and its CPU-time limit stops it sooner.
Clock::time_point deadlineOf(grpc::CallbackServerContext *context) {
  auto now = std::chrono::system_clock::now();
  auto left = context->deadline() > now
                  ? context->deadline() - now
                  : std::chrono::system_clock::duration::zero();
  return Clock::now() + std::min<std::chrono::system_clock::duration>(
                            left, std::chrono::hours(1));
}

/// Runs `work` on `arena`. TBB's queue orders the enqueue before the run,
/// out of TSan's sight: the work is told so (HandOff.h), and TBB's task
/// holds only a pointer to it, so TBB's copies of the task are its own
/// uninstrumented writes.
template <typename Work> void enqueueOn(tbb::task_arena &arena, Work work) {
  auto owned = std::make_unique<Work>(std::move(work));
  Work *task = owned.get();
  handOffRelease(task);
  arena.enqueue([task] {
    handOffAcquire(task);
    std::unique_ptr<Work> ran(task);
    (*ran)();
  });
  owned.release(); // the task deletes it
}

} // namespace

grpc::Status toGrpcStatus(const Status &status) {
  if (status.isOk())
    return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      status.message());
}

AnyShapeService::AnyShapeService(const ServiceOptions &options)
    : options_(options),
      tensors_(options.tensorStoreBytes, options.limits.maxElementsPerTensor),
      kept_(options.kept) {}

AnyShapeService::~AnyShapeService() = default;

StatusOr<std::unique_ptr<AnyShapeService>>
AnyShapeService::create(const ServiceOptions &options) {
  if (options.compileThreads < 1 || options.executeThreads < 1 ||
      options.maxQueuedCompiles < 1 || options.maxQueuedExecutions < 1)
    return invalidArgument("thread and queue counts must be at least 1");
  // Every compile runs in a worker process: the server links no compiler.
  if (options.compileWorkers.program.empty() ||
      ::access(options.compileWorkers.program.c_str(), X_OK) != 0)
    return Status(
        StatusCode::FailedPrecondition,
        "no compile worker program at '" + options.compileWorkers.program +
            "' (anyshape-compile-worker, installed beside anyshape-server; "
            "--compile-worker-program FILE names another)");
  std::vector<std::unique_ptr<CacheTier>> tiers;
  if (!options.cacheDir.empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(
        std::string entryKey,
        loadOrCreateEntryKey(options.cacheKeyFile.empty()
                                 ? defaultEntryKeyPath(options.cacheDir)
                                 : options.cacheKeyFile));
    ANYSHAPE_ASSIGN_OR_RETURN(std::unique_ptr<DiskCache> disk,
                              DiskCache::open(options.cacheDir,
                                              compilerIdentity(),
                                              std::move(entryKey)));
    tiers.push_back(std::move(disk));
  }
  const RedisCache *redis = nullptr;
  if (options.redis) {
    // Every server of the fleet authenticates the others' entries: the
    // key must be one they share, not a fresh one per cache directory.
    if (options.cacheKeyFile.empty())
      return invalidArgument("--redis needs --cache-key-file: the key every "
                             "server sharing the Redis cache holds");
    ANYSHAPE_ASSIGN_OR_RETURN(std::string entryKey,
                              loadOrCreateEntryKey(options.cacheKeyFile));
    auto shared = std::make_unique<RedisCache>(
        *options.redis, compilerIdentity(), std::move(entryKey));
    redis = shared.get();
    tiers.push_back(std::move(shared));
  }
  std::unique_ptr<AnyShapeService> service(new AnyShapeService(options));
  service->cache_ = std::make_unique<CompileCache>(
      options.cacheBytes, std::move(tiers), options.limits);
  service->redis_ = redis;
  // Enough TBB workers for the compile pool at full concurrency (TBB's
  // default is one fewer than the cores), and no arena slots reserved for
  // external threads: gRPC threads only enqueue.
  service->workers_ = std::make_unique<tbb::global_control>(
      tbb::global_control::max_allowed_parallelism,
      static_cast<size_t>(options.compileThreads + 1));
  service->compileWorkers_ = std::make_unique<CompileWorkers>(
      options.compileWorkers, service->metrics_);
  service->compilePool_ =
      std::make_unique<tbb::task_arena>(options.compileThreads, 0);
  service->executePool_ =
      std::make_unique<LowestIdlePool>(options.executeThreads);
  if (options.batching.maxRows > 0) {
    AnyShapeService *self = service.get();
    DynamicBatcher::Options batching = options.batching;
    batching.maxElementsPerTensor = options.limits.maxElementsPerTensor;
    service->batcher_ = std::make_unique<DynamicBatcher>(
        batching, [self](const CachedExecutable &entry,
                         const std::vector<const v1::Tensor *> &inputs,
                         v1::ExecuteTiming &timing) {
          runtime::CoreShare::Claim threads(self->cores_);
          return self->runRouted(entry, inputs, timing);
        });
  }
  if (options.hotShapes.threshold > 0) {
    AnyShapeService *self = service.get();
    service->hotShapes_ = std::make_unique<HotShapes>(
        options.hotShapes,
        [self](const std::string &id, const InputShapes &shapes) {
          return self->specialize(id, shapes);
        });
  }
  return service;
}

void AnyShapeService::startDraining() {
  draining_ = true;
  if (hotShapes_)
    hotShapes_->stop();
  if (compileWorkers_)
    compileWorkers_->stopBackground();
}

Status AnyShapeService::admit(std::atomic<int> &queued, int limit,
                              bool admittedBefore) {
  if (draining_ && !admittedBefore) {
    ++metrics_.rejectedRequests;
    return Status(StatusCode::Unavailable, "the server is shutting down");
  }
  if (queued.fetch_add(1) >= limit) {
    --queued;
    ++metrics_.rejectedRequests;
    return resourceExhausted("the server's queue is full (" +
                             std::to_string(limit) +
                             " requests waiting); retry later");
  }
  return Status::ok();
}

/// A unary reactor counted in flight from creation until gRPC is done with
/// the call (reply sent or call cancelled), so drain waits for replies to
/// leave, not merely for handlers to return.
///
/// Finish serialises the response on the finishing thread; gRPC then calls
/// OnDone on one of its own threads and destroys the messages. OnDone
/// waits for Finish to have returned (in practice it has: the reply
/// crossed the network in between), which orders everything the
/// finishing thread did before the teardown in a way ThreadSanitizer sees
/// too (gRPC's own ordering is in its uninstrumented library).
class AnyShapeService::Reactor : public grpc::ServerUnaryReactor {
public:
  explicit Reactor(Metrics &metrics) : metrics_(metrics) {
    ++metrics_.inFlight;
  }
  void finishWith(const grpc::Status &status) {
    Finish(status);
    finished_.store(true, std::memory_order_release);
  }
  void OnDone() override {
    while (!finished_.load(std::memory_order_acquire))
      std::this_thread::yield();
    --metrics_.inFlight;
    delete this;
  }

private:
  Metrics &metrics_;
  std::atomic<bool> finished_{false};
};

grpc::ServerUnaryReactor *AnyShapeService::newReactor() {
  return new Reactor(metrics_);
}

grpc::ServerUnaryReactor *AnyShapeService::refuse(const Status &refusal) {
  grpc::ServerUnaryReactor *reactor = newReactor();
  finish(reactor, refusal);
  return reactor;
}

Status AnyShapeService::authorize(const grpc::CallbackServerContext *context,
                                  unsigned roles) {
  if (!options_.auth)
    return Status::ok();
  Status allowed = options_.auth->authorize(*context, roles);
  if (!allowed.isOk())
    ++metrics_.unauthorizedRequests;
  return allowed;
}

Status checkExecutableId(const std::string &id) {
  if (isCacheKey(id))
    return Status::ok();
  // Quoted in part: the id is the client's, of any length.
  return invalidArgument("'" + id.substr(0, 40) +
                         (id.size() > 40 ? "...'" : "'") +
                         " is not an executable id (32 hex digits, as "
                         "Compile returns)");
}

void AnyShapeService::finish(grpc::ServerUnaryReactor *reactor,
                             const Status &status) {
  // Every unary reactor is a Reactor (newReactor).
  static_cast<Reactor *>(reactor)->finishWith(toGrpcStatus(status));
}

Status AnyShapeService::stillWanted(grpc::CallbackServerContext *context) {
  if (context->IsCancelled())
    return Status(StatusCode::DeadlineExceeded,
                  "cancelled by the client before it started");
  if (context->deadline() < std::chrono::system_clock::now())
    return Status(StatusCode::DeadlineExceeded,
                  "the deadline passed while the request was queued");
  return Status::ok();
}

bool AnyShapeService::waitUntilIdle(Clock::time_point deadline) const {
  while (metrics_.inFlight.load() > 0) {
    if (Clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

StatusOr<std::string>
AnyShapeService::compileKey(const v1::CompileRequest &request) {
  if (request.model_case() == v1::CompileRequest::MODEL_NOT_SET)
    return invalidArgument("the request has no graph (nor an ONNX model)");
  ANYSHAPE_ASSIGN_OR_RETURN(CompileSettings settings,
                            resolveCompileOptions(request.options()));
  if (request.model_case() == v1::CompileRequest::kOnnxModel)
    return onnxCacheKey(request.onnx_model(), settings,
                        options_.limits.maxElementsPerTensor);
  return compileCacheKey(request.graph(), settings,
                         options_.limits.maxElementsPerTensor);
}

StatusOr<CacheResult> AnyShapeService::compileOrShare(
    const v1::CompileRequest &request, const std::string &key,
    Clock::time_point deadline, v1::CompileResponse &response,
    bool background) {
  return cache_->getOrCompile(key, [&]() -> StatusOr<CachedExecutable> {
    auto start = Clock::now();
    v1::CompileJob job;
    *job.mutable_request() = request;
    job.set_key(key);
    job.set_max_elements_per_tensor(options_.limits.maxElementsPerTensor);
    for (const std::string &id : storedTensorIds(request.graph()))
      job.add_stored_tensor_ids(id);
    job.set_testing_delay_ms(options_.testingCompileDelayMs);
    // Test-only faults, chosen by graph name so that a test can send a
    // misbehaving compile next to good ones.
    const std::string prefix = "anyshape-testing-";
    if (options_.testingCompileFaults &&
        request.graph().name().rfind(prefix, 0) == 0)
      job.set_testing_fault(request.graph().name().substr(prefix.size()));
    StatusOr<CachedExecutable> compiled = compileWorkers_->compile(
        std::move(job), tensors_, deadline, background);
    if (compiled.isOk()) {
      // The request's view: the whole miss, worker start and load included.
      double seconds =
          std::chrono::duration<double>(Clock::now() - start).count();
      metrics_.compileSeconds.observe(seconds);
      response.set_compile_ms(seconds * 1e3);
    }
    return compiled;
  });
}

StatusOr<std::string> AnyShapeService::specialize(const std::string &id,
                                                  const InputShapes &shapes) {
  ANYSHAPE_ASSIGN_OR_RETURN(CacheResult dynamic, cache_->find(id));
  const CachedExecutable &entry = *dynamic.entry;
  if (entry.info.target() == v1::TARGET_CUDA)
    return Status(StatusCode::FailedPrecondition,
                  "CUDA executables are not specialised");
  // The executable's own graph (an ONNX model's, imported) with the sizes
  // bound; its target's default options (a compile's disable_fusion is
  // not kept with the executable).
  ANYSHAPE_ASSIGN_OR_RETURN(auto symbols,
                            bindSymbols(entry.executable->graph(), shapes));
  if (symbols.empty())
    return Status(StatusCode::FailedPrecondition,
                  "the shapes bind no named symbol");
  v1::CompileRequest request;
  *request.mutable_graph() = entry.executable->graph();
  request.mutable_options()->set_target(entry.info.target());
  for (const auto &[name, size] : symbols)
    (*request.mutable_options()->mutable_static_symbols())[name] = size;
  ANYSHAPE_ASSIGN_OR_RETURN(std::string key, compileKey(request));
  v1::CompileResponse response;
  ANYSHAPE_RETURN_IF_ERROR(compileOrShare(request, key,
                                          Clock::now() + std::chrono::hours(1),
                                          response, /*background=*/true)
                               .status());
  return key;
}

Status AnyShapeService::answerCompile(const CacheResult &result,
                                      v1::CompileResponse &response,
                                      const AfterCompile &then,
                                      Clock::time_point queuedAt) {
  *response.mutable_info() = result.entry->info;
  response.set_cache_hit(result.source != CacheSource::Compiled);
  if (response.cache_hit())
    response.set_compile_ms(0);
  return then(*result.entry, queuedAt);
}

grpc::ServerUnaryReactor *AnyShapeService::submitCompile(
    grpc::CallbackServerContext *context, const v1::CompileRequest &request,
    v1::CompileResponse &response, AfterCompile then) {
  grpc::ServerUnaryReactor *reactor = newReactor();
  Status admitted = admit(queuedExecutions_, options_.maxQueuedExecutions);
  if (!admitted.isOk()) {
    finish(reactor, admitted);
    return reactor;
  }
  executePool_->enqueue([this, context, reactor, &request, &response,
                         then = std::move(then),
                         queuedAt = Clock::now()]() -> LowestIdlePool::Answer {
    Status status = stillWanted(context);
    bool compiling = false;
    if (status.isOk()) {
      StatusOr<std::string> key = compileKey(request);
      StatusOr<CacheResult> found =
          key.isOk() ? cache_->findWithoutWaiting(*key) : key.status();
      StatusCode code = found.status().code();
      if (found.isOk())
        status = answerCompile(*found, response, then, queuedAt);
      else if (key.isOk() && (code == StatusCode::NotFound ||
                              code == StatusCode::Unavailable))
        compiling = (status = queueCompile(context, reactor, request, *key,
                                           response, then, queuedAt))
                        .isOk();
      else
        status = found.status();
    }
    --queuedExecutions_;
    if (compiling) // the compile pool answers
      return nullptr;
    return [this, reactor, status] { finish(reactor, status); };
  });
  return reactor;
}

Status AnyShapeService::queueCompile(grpc::CallbackServerContext *context,
                                     grpc::ServerUnaryReactor *reactor,
                                     const v1::CompileRequest &request,
                                     const std::string &key,
                                     v1::CompileResponse &response,
                                     const AfterCompile &then,
                                     Clock::time_point queuedAt) {
  ANYSHAPE_RETURN_IF_ERROR(admit(queuedCompiles_, options_.maxQueuedCompiles,
                                 /*admittedBefore=*/true));
  enqueueOn(*compilePool_, [this, context, reactor, &request, key, &response,
                            then, queuedAt] {
    Status status = stillWanted(context);
    if (status.isOk()) {
      StatusOr<CacheResult> result =
          compileOrShare(request, key, deadlineOf(context), response);
      status = result.isOk() ? answerCompile(*result, response, then, queuedAt)
                             : result.status();
    }
    --queuedCompiles_;
    finish(reactor, status);
  });
  return Status::ok();
}

template <typename Work>
grpc::ServerUnaryReactor *
AnyShapeService::submit(grpc::CallbackServerContext *context,
                        LowestIdlePool &pool, std::atomic<int> &queued,
                        int limit, Work work) {
  grpc::ServerUnaryReactor *reactor = newReactor();
  Status admitted = admit(queued, limit);
  if (!admitted.isOk()) {
    finish(reactor, admitted);
    return reactor;
  }
  pool.enqueue([this, context, reactor, &queued, work = std::move(work),
                queuedAt = Clock::now()]() -> LowestIdlePool::Answer {
    Status status = stillWanted(context);
    status = work(status, queuedAt);
    --queued;
    return [this, reactor, status] { finish(reactor, status); };
  });
  return reactor;
}

void AnyShapeService::countExecution(const Status &status,
                                     Clock::time_point since) {
  ++metrics_.executions;
  if (!status.isOk())
    ++metrics_.executionErrors;
  metrics_.executeSeconds.observe(microsSince(since) * 1e-6);
}

grpc::ServerUnaryReactor *
AnyShapeService::Compile(grpc::CallbackServerContext *context,
                         const v1::CompileRequest *request,
                         v1::CompileResponse *response) {
  if (Status allowed = authorize(context, kRoleCompile); !allowed.isOk())
    return refuse(allowed);
  ++metrics_.compileRequests;
  return submitCompile(
      context, *request, *response,
      [](const CachedExecutable &, Clock::time_point) { return Status::ok(); });
}

grpc::ServerUnaryReactor *
AnyShapeService::Execute(grpc::CallbackServerContext *context,
                         const v1::ExecuteRequest *request,
                         v1::ExecuteResponse *response) {
  if (Status allowed = authorize(context, kRoleExecute); !allowed.isOk())
    return refuse(allowed);
  if (joinable(*request))
    return executeJoined(context, request, response);
  return submit(
      context, *executePool_, queuedExecutions_, options_.maxQueuedExecutions,
      [this, request, response](Status status, Clock::time_point queuedAt) {
        runtime::CoreShare::Claim threads(cores_);
        response->mutable_timing()->set_queue_us(microsSince(queuedAt));
        if (status.isOk())
          status = checkExecutableId(request->executable_id());
        if (status.isOk()) {
          auto entry = cache_->find(request->executable_id());
          status = entry.isOk() ? execute(*entry->entry, request->inputs(),
                                          request->keep_outputs(), *response)
                                : entry.status();
        }
        if (!request->free_after().empty())
          kept_.free(std::vector<std::string>(request->free_after().begin(),
                                              request->free_after().end()));
        countExecution(status, queuedAt); // refused ones count as errors
        return status;
      });
}

grpc::ServerUnaryReactor *
AnyShapeService::CompileAndExecute(grpc::CallbackServerContext *context,
                                   const v1::CompileAndExecuteRequest *request,
                                   v1::CompileAndExecuteResponse *response) {
  if (Status allowed = authorize(context, kRoleCompile | kRoleExecute);
      !allowed.isOk())
    return refuse(allowed);
  ++metrics_.compileRequests;
  // A cache hit executes on the execute pool, a compile on the compile
  // pool right after compiling.
  return submitCompile(context, request->compile(),
                       *response->mutable_compile(),
                       [this, request, response](const CachedExecutable &entry,
                                                 Clock::time_point queuedAt) {
                         runtime::CoreShare::Claim threads(cores_);
                         Status status = execute(entry, request->inputs(), {},
                                                 *response->mutable_execute());
                         countExecution(status, queuedAt);
                         return status;
                       });
}

grpc::ServerUnaryReactor *
AnyShapeService::GetExecutable(grpc::CallbackServerContext *context,
                               const v1::GetExecutableRequest *request,
                               v1::ExecutableInfo *response) {
  if (Status allowed = authorize(context, kRoleExecute); !allowed.isOk())
    return refuse(allowed);
  // On the execute pool: a miss in memory may load from disk.
  return submit(context, *executePool_, queuedExecutions_,
                options_.maxQueuedExecutions,
                [this, request, response](Status status, Clock::time_point) {
                  if (status.isOk())
                    status = checkExecutableId(request->executable_id());
                  if (!status.isOk())
                    return status;
                  auto entry = cache_->find(request->executable_id());
                  if (entry.isOk())
                    *response = entry->entry->info;
                  return entry.status();
                });
}

grpc::ServerUnaryReactor *
AnyShapeService::Unload(grpc::CallbackServerContext *context,
                        const v1::UnloadRequest *request,
                        v1::UnloadResponse *response) {
  if (Status allowed = authorize(context, kRoleAdmin); !allowed.isOk())
    return refuse(allowed);
  grpc::ServerUnaryReactor *reactor = newReactor();
  Status valid = checkExecutableId(request->executable_id());
  if (valid.isOk()) {
    response->set_was_loaded(cache_->unload(request->executable_id()));
    if (hotShapes_)
      hotShapes_->forget(request->executable_id());
  }
  finish(reactor, valid);
  return reactor;
}

grpc::ServerUnaryReactor *
AnyShapeService::FreeTensors(grpc::CallbackServerContext *context,
                             const v1::FreeTensorsRequest *request,
                             v1::FreeTensorsResponse *response) {
  if (Status allowed = authorize(context, kRoleExecute); !allowed.isOk())
    return refuse(allowed);
  grpc::ServerUnaryReactor *reactor = newReactor();
  KeptTensors::Freed freed = kept_.free(std::vector<std::string>(
      request->tensor_ids().begin(), request->tensor_ids().end()));
  response->set_freed(freed.count);
  response->set_bytes_freed(freed.bytes);
  finish(reactor, Status::ok());
  return reactor;
}

grpc::ServerUnaryReactor *
AnyShapeService::Stats(grpc::CallbackServerContext *context,
                       const v1::StatsRequest *, v1::StatsResponse *response) {
  if (Status allowed = authorize(context, kRoleAdmin); !allowed.isOk())
    return refuse(allowed);
  grpc::ServerUnaryReactor *reactor = newReactor();
  *response = stats();
  finish(reactor, Status::ok());
  return reactor;
}

v1::StatsResponse AnyShapeService::stats() const {
  CompileCacheStats cache = cache_->stats();
  v1::StatsResponse s;
  s.set_compiles(cache.compiles);
  s.set_compile_errors(cache.compileErrors);
  s.set_cache_hits(cache.memoryHits + cache.tierLoads);
  s.set_cache_misses(cache.compiles + cache.compileErrors);
  s.set_disk_loads(cache.tierLoads);
  s.set_evictions(cache.evictions);
  s.set_cache_dropped_entries(cache.droppedTierEntries);
  s.set_cache_store_errors(cache.tierStoreErrors);
  s.set_cache_tier_errors(cache.tierUnavailable);
  if (redis_) {
    RedisCacheStats redis = redis_->stats();
    s.set_redis_hits(redis.hits);
    s.set_redis_errors(redis.errors);
    s.set_redis_leases_taken(redis.leasesTaken);
    s.set_redis_lease_waits(redis.leaseWaits);
    s.set_redis_lease_takeovers(redis.leaseTakeovers);
    s.set_redis_available(redis.available);
  }
  s.set_executions(metrics_.executions.load());
  s.set_execution_errors(metrics_.executionErrors.load());
  s.set_loaded_executables(cache.loaded);
  s.set_cache_bytes(cache.bytes);
  s.set_stored_tensors(tensors_.count());
  s.set_stored_tensor_bytes(tensors_.bytes());
  s.set_kept_tensors(kept_.count());
  s.set_kept_tensor_bytes(kept_.bytes());
  s.set_kept_tensors_expired(kept_.expired());
  s.set_requests_in_flight(metrics_.inFlight.load());
  if (hotShapes_) {
    HotShapeStats hot = hotShapes_->stats();
    s.set_specializations(hot.compiled);
    s.set_specialization_errors(hot.failed);
    s.set_specialized_executions(hot.runs);
  }
  // Probed once; a server without a driver reports none.
  static const std::string cudaDevice = [] {
    auto device = runtime::cuda::probeDevice();
    return device.isOk()
               ? device->name + ", sm_" + std::to_string(device->smVersion)
               : std::string();
  }();
  s.set_cuda_device(cudaDevice);
  return s;
}

// UploadTensor: the stream's rules are TensorUpload's; the reactor only
// reads chunks into it and answers. gRPC calls it back on any of its
// threads, one callback at a time: each read hands the reactor to the
// next callback (HandOff.h), through gRPC.
class AnyShapeService::Upload
    : public grpc::ServerReadReactor<v1::UploadTensorChunk> {
public:
  Upload(AnyShapeService &service, v1::UploadTensorResponse *response)
      : service_(service), response_(response),
        upload_(service.tensors_, service.options_.maxUploadBytes,
                service.options_.limits.maxElementsPerTensor) {
    handOffRelease(this);
    StartRead(&chunk_);
  }

  void OnReadDone(bool ok) override {
    handOffAcquire(this);
    if (!ok) { // the client finished sending (or went away)
      complete();
      return;
    }
    Status status = upload_.take(chunk_);
    if (!status.isOk()) {
      finishWith(toGrpcStatus(status));
      return;
    }
    handOffRelease(this);
    StartRead(&chunk_);
  }

  void OnDone() override {
    // As Reactor's: Finish has returned before the teardown.
    while (!finished_.load(std::memory_order_acquire))
      std::this_thread::yield();
    --service_.metrics_.inFlight;
    delete this;
  }

private:
  void complete() {
    auto added = upload_.finish(service_.tensors_);
    if (added.isOk()) {
      response_->set_tensor_id(added->id);
      response_->set_bytes(upload_.expectedBytes());
      response_->set_already_stored(added->alreadyStored);
    }
    finishWith(toGrpcStatus(added.status()));
  }

  void finishWith(const grpc::Status &status) {
    Finish(status);
    finished_.store(true, std::memory_order_release);
  }

  AnyShapeService &service_;
  v1::UploadTensorResponse *response_;
  v1::UploadTensorChunk chunk_;
  TensorUpload upload_;
  std::atomic<bool> finished_{false};
};

grpc::ServerReadReactor<v1::UploadTensorChunk> *
AnyShapeService::UploadTensor(grpc::CallbackServerContext *context,
                              v1::UploadTensorResponse *response) {
  Status refusal = authorize(context, kRoleCompile);
  if (refusal.isOk() && draining_) {
    refusal = Status(StatusCode::Unavailable, "the server is shutting down");
    ++metrics_.rejectedRequests;
  }
  if (!refusal.isOk()) {
    // A reactor that refuses at once (OnDone still balances inFlight).
    ++metrics_.inFlight;
    struct Refuse : grpc::ServerReadReactor<v1::UploadTensorChunk> {
      Refuse(Metrics &m, const Status &refusal) : metrics(m) {
        Finish(toGrpcStatus(refusal));
        finished.store(true, std::memory_order_release);
      }
      void OnDone() override {
        while (!finished.load(std::memory_order_acquire)) // as Reactor's
          std::this_thread::yield();
        --metrics.inFlight;
        delete this;
      }
      Metrics &metrics;
      std::atomic<bool> finished{false};
    };
    return new Refuse(metrics_, refusal);
  }
  ++metrics_.inFlight;
  return new Upload(*this, response);
}

} // namespace anyshape::server

// The AnyShape gRPC service (proto/anyshape/v1/service.proto) on gRPC's
// callback API.
//
// gRPC threads only parse, admit and hand off: compiles run on a compile
// pool and executions on an execute pool (oneTBB arenas of fixed
// concurrency). A compile request first looks its executable up on the
// execute pool, so a cache hit never waits behind a compile. Each pool has
// a bounded queue — a full queue answers
// RESOURCE_EXHAUSTED at once instead of letting latency grow without
// bound. Every request is validated before anything is allocated for it.
// Errors keep their Status code (INVALID_ARGUMENT names the input, node
// or dim; INTERNAL only for anyshape's own bugs). While draining, new
// requests get UNAVAILABLE and admitted ones finish.
#pragma once

#include "anyshape/v1/service.grpc.pb.h"
#include "ir/graph/Limits.h"
#include "runtime/Threading.h"
#include "server/Auth.h"
#include "server/DynamicBatcher.h"
#include "server/HotShapes.h"
#include "server/KeptTensors.h"
#include "server/LowestIdlePool.h"
#include "server/Metrics.h"
#include "server/TensorStore.h"
#include "server/cache/CompileCache.h"
#include "server/cache/RedisCache.h"
#include "server/worker/CompileWorkers.h"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>

namespace anyshape::server {

struct ServiceOptions {
  std::string cacheDir; ///< empty: memory only
  /// The key that authenticates the disk cache's entries (EntryKey.h);
  /// empty: defaultEntryKeyPath(cacheDir), created if missing.
  std::string cacheKeyFile;
  int64_t cacheBytes = int64_t{2} << 30; ///< in-memory executables
  /// The Redis tier shared with other servers, behind the disk; its
  /// entries are authenticated with the key in cacheKeyFile, which every
  /// server sharing it must hold (so cacheKeyFile is required with it).
  std::optional<RedisCacheOptions> redis;
  int compileThreads = 1;
  int executeThreads = 2;
  int maxQueuedCompiles = 64;
  int maxQueuedExecutions = 1024;
  int64_t tensorStoreBytes = int64_t{4} << 30;
  int64_t maxUploadBytes = int64_t{2} << 30; ///< one UploadTensor
  /// Outputs kept between requests (ExecuteRequest.keep_outputs).
  KeptTensors::Limits kept;
  GraphLimits limits;
  /// Null: no authentication (the loopback default). Otherwise every call
  /// but the health check needs a token with its method's roles (Auth.h).
  std::shared_ptr<const TokenAuth> auth;
  /// Compiles run in worker processes (CompileWorkers.h):
  /// compileWorkers.program must name the worker (anyshape-compile-worker).
  CompileWorkerOptions compileWorkers;
  /// Hot-shape specialisation (HotShapes.h); off when threshold is 0.
  HotShapeOptions hotShapes;
  /// Dynamic batching (DynamicBatcher.h); off when maxRows is 0. Its
  /// element bound is limits.maxElementsPerTensor.
  DynamicBatcher::Options batching;
  /// Test-only: every compile sleeps this long before it starts, so that
  /// fault tests can hold a compile slot (anyshape-server
  /// --testing-compile-delay-ms).
  int testingCompileDelayMs = 0;
  /// Test-only: a graph named "anyshape-testing-FAULT" makes its worker
  /// misbehave (WorkerMain.cpp: abort, spin, sleep, allocate).
  bool testingCompileFaults = false;
};

class AnyShapeService final : public v1::AnyShape::CallbackService {
public:
  static StatusOr<std::unique_ptr<AnyShapeService>>
  create(const ServiceOptions &options);
  ~AnyShapeService() override;

  grpc::ServerUnaryReactor *Compile(grpc::CallbackServerContext *context,
                                    const v1::CompileRequest *request,
                                    v1::CompileResponse *response) override;
  grpc::ServerUnaryReactor *Execute(grpc::CallbackServerContext *context,
                                    const v1::ExecuteRequest *request,
                                    v1::ExecuteResponse *response) override;
  grpc::ServerUnaryReactor *
  CompileAndExecute(grpc::CallbackServerContext *context,
                    const v1::CompileAndExecuteRequest *request,
                    v1::CompileAndExecuteResponse *response) override;
  grpc::ServerUnaryReactor *
  GetExecutable(grpc::CallbackServerContext *context,
                const v1::GetExecutableRequest *request,
                v1::ExecutableInfo *response) override;
  grpc::ServerUnaryReactor *Unload(grpc::CallbackServerContext *context,
                                   const v1::UnloadRequest *request,
                                   v1::UnloadResponse *response) override;
  grpc::ServerReadReactor<v1::UploadTensorChunk> *
  UploadTensor(grpc::CallbackServerContext *context,
               v1::UploadTensorResponse *response) override;
  grpc::ServerUnaryReactor *Stats(grpc::CallbackServerContext *context,
                                  const v1::StatsRequest *request,
                                  v1::StatsResponse *response) override;
  grpc::ServerUnaryReactor *
  FreeTensors(grpc::CallbackServerContext *context,
              const v1::FreeTensorsRequest *request,
              v1::FreeTensorsResponse *response) override;

  /// New requests get UNAVAILABLE from now on; no more specialisations
  /// are compiled (the one in progress is stopped).
  void startDraining();
  /// Kills every compile worker (their requests fail UNAVAILABLE): for a
  /// drain out of time. No-op when compiling in process.
  void stopCompiles() {
    if (compileWorkers_)
      compileWorkers_->killAll();
  }
  /// Waits until no request is in flight or `deadline`; true if idle.
  bool waitUntilIdle(std::chrono::steady_clock::time_point deadline) const;

  v1::StatsResponse stats() const;
  Metrics &metrics() { return metrics_; }

private:
  explicit AnyShapeService(const ServiceOptions &options);
  class Upload;
  class Reactor;
  grpc::ServerUnaryReactor *newReactor();
  /// A reactor that answers `refusal` at once: a call refused before any
  /// work (a missing token, the wrong role).
  grpc::ServerUnaryReactor *refuse(const Status &refusal);
  /// OK, or why `context`'s token may not make a call needing `roles`
  /// (counted in metrics); always OK without --auth-tokens.
  Status authorize(const grpc::CallbackServerContext *context, unsigned roles);

  using Clock = std::chrono::steady_clock;

  /// Admission: draining or a full queue refuse the request (draining
  /// only a new one: a request admitted before, moving on to its second
  /// stage, goes on).
  Status admit(std::atomic<int> &queued, int limit,
               bool admittedBefore = false);
  /// Admits a call and runs it on `pool`: `work(wanted, queuedAt)` gets
  /// whether the call is still wanted (cancellation, deadline) and returns
  /// the call's status.
  template <typename Work>
  grpc::ServerUnaryReactor *
  submit(grpc::CallbackServerContext *context, LowestIdlePool &pool,
         std::atomic<int> &queued, int limit, Work work);
  void countExecution(const Status &status, Clock::time_point since);
  void finish(grpc::ServerUnaryReactor *reactor, const Status &status);

  /// What a compile request does with its executable once it has it
  /// (CompileAndExecute: the execution); returns the call's status.
  using AfterCompile =
      std::function<Status(const CachedExecutable &, Clock::time_point)>;
  /// A compile request in two stages, so that a cache hit never waits for
  /// a compile slot: on the execute pool, validate, key, and look the
  /// executable up without waiting (memory, then the tiers); a hit is
  /// answered there. Only a miss, or a key another request is compiling,
  /// queues on the compile pool (queueCompile), where getOrCompile compiles
  /// or shares that compile.
  grpc::ServerUnaryReactor *submitCompile(grpc::CallbackServerContext *context,
                                          const v1::CompileRequest &request,
                                          v1::CompileResponse &response,
                                          AfterCompile then);
  Status queueCompile(grpc::CallbackServerContext *context,
                      grpc::ServerUnaryReactor *reactor,
                      const v1::CompileRequest &request, const std::string &key,
                      v1::CompileResponse &response, const AfterCompile &then,
                      Clock::time_point queuedAt);
  /// The options checked and the cache key of the request's graph.
  StatusOr<std::string> compileKey(const v1::CompileRequest &request);
  /// `background`: a specialisation's compile (lower CPU priority).
  StatusOr<CacheResult> compileOrShare(const v1::CompileRequest &request,
                                       const std::string &key,
                                       Clock::time_point deadline,
                                       v1::CompileResponse &response,
                                       bool background = false);
  /// HotShapes' compile: executable `id` with its symbols bound to the
  /// sizes of `shapes`, compiled in the background or found in the cache;
  /// returns its id.
  StatusOr<std::string> specialize(const std::string &id,
                                   const InputShapes &shapes);
  Status answerCompile(const CacheResult &result, v1::CompileResponse &response,
                       const AfterCompile &then, Clock::time_point queuedAt);
  /// The request's inputs in graph order: inline, stored (held in
  /// `stored` for the run) or kept; each named once, none missing.
  Status resolveInputs(
      const v1::Graph &graph,
      const google::protobuf::RepeatedPtrField<v1::NamedTensor> &inputs,
      std::vector<const v1::Tensor *> &ordered,
      std::vector<std::shared_ptr<const v1::Tensor>> &stored);
  /// Runs `entry`, or its specialisation where the shapes are hot, on the
  /// ordered inputs; sets the timing's run fields.
  StatusOr<std::vector<v1::Tensor>>
  runRouted(const CachedExecutable &entry,
            const std::vector<const v1::Tensor *> &ordered,
            v1::ExecuteTiming &timing);
  /// Whether dynamic batching may join `request` with others: batching
  /// on, only inline inputs, nothing kept or freed.
  bool joinable(const v1::ExecuteRequest &request) const;
  /// Execute through the batcher (DynamicBatcher.h): answered by the
  /// thread that runs it.
  grpc::ServerUnaryReactor *executeJoined(grpc::CallbackServerContext *context,
                                          const v1::ExecuteRequest *request,
                                          v1::ExecuteResponse *response);
  /// Runs `entry` on `inputs`; the outputs named in `keep` stay in kept_
  /// and come back as ids.
  Status
  execute(const CachedExecutable &entry,
          const google::protobuf::RepeatedPtrField<v1::NamedTensor> &inputs,
          const google::protobuf::RepeatedPtrField<std::string> &keep,
          v1::ExecuteResponse &response);
  /// Checks cancellation and the deadline before work starts.
  static Status stillWanted(grpc::CallbackServerContext *context);

  ServiceOptions options_;
  std::unique_ptr<CompileCache> cache_;
  const RedisCache *redis_ = nullptr; // one of cache_'s tiers, or none
  std::unique_ptr<CompileWorkers> compileWorkers_; // null: in process
  TensorStore tensors_;
  KeptTensors kept_;
  Metrics metrics_;
  std::unique_ptr<tbb::global_control> workers_;
  std::atomic<int> queuedCompiles_{0};
  std::atomic<int> queuedExecutions_{0};
  std::atomic<bool> draining_{false};
  /// The cores, shared by the executions running (runtime/Threading.h).
  runtime::CoreShare cores_{runtime::hardwareThreads()};
  /// Null when off. Destroyed after the pools (their tasks route through
  /// it) and before what its background compile uses (above).
  std::unique_ptr<HotShapes> hotShapes_;
  /// Null when off; destroyed after the pools, whose tasks run through it.
  std::unique_ptr<DynamicBatcher> batcher_;
  // Last, so that they are destroyed first: their tasks use everything
  // above. The execute pool joins its threads; TBB's arena does not wait
  // for queued compiles, which the drain (waitUntilIdle) waits for.
  std::unique_ptr<tbb::task_arena> compilePool_;
  /// Executions, and the cache lookups of compiles: lowest idle thread
  /// first, so that a lone client keeps one OpenMP team warm.
  std::unique_ptr<LowestIdlePool> executePool_;
};

/// OK, or why `id` is not an executable id (as Compile returns them).
Status checkExecutableId(const std::string &id);

/// The gRPC status for `status` (same code and message).
grpc::Status toGrpcStatus(const Status &status);

} // namespace anyshape::server

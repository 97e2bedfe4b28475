// The service's overheads, measured side by side in one run over real
// gRPC on loopback:
//   - Execute of a small graph vs a raw gRPC echo of the same request
//     bytes (a callback generic service that returns what it receives):
//     the ratio is what anyshape adds to a round trip (goal <= 1.5x);
//   - the echo through gRPC's other APIs (a completion queue polled by the
//     thread that answers; a client that waits on its own queue): the
//     floor of a round trip, whichever API the service used;
//   - Compile when the executable is cached (the graph's weights stored
//     by id, so the request is small): the cache-hit latency (goal < 1 ms);
//   - Compile on a miss through the server (a compile worker process) vs
//     the same compile and load in this process, as a worker and the
//     server do them without the process between: what compiling out of
//     process costs (worker start, job and result through pipes, the RPC).
// The servers run in this process on their own ports; clients use the
// callback API and wait for each reply.
//
//   build/bin/anyshape-bench-service [--benchmark_filter=...]
#include "ir/graph/ConstantData.h"
#include "ir/graph/GraphText.h"
#include "server/HeapPolicy.h"
#include "server/Server.h"
#include "server/worker/CompileJob.h"

#include <benchmark/benchmark.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace anyshape;

namespace {

/// Echoes every unary call's request bytes back.
class EchoService : public grpc::CallbackGenericService {
  grpc::ServerGenericBidiReactor *
  CreateReactor(grpc::GenericCallbackServerContext *) override {
    class Reactor : public grpc::ServerGenericBidiReactor {
    public:
      Reactor() { StartRead(&message_); }
      void OnReadDone(bool ok) override {
        if (ok)
          StartWrite(&message_);
        else
          Finish(grpc::Status::OK);
      }
      void OnWriteDone(bool) override { Finish(grpc::Status::OK); }
      void OnDone() override { delete this; }

    private:
      grpc::ByteBuffer message_;
    };
    return new Reactor;
  }
};

/// Echoes like EchoService, but through the completion-queue API: one
/// thread both polls the connection and answers, so a call costs no
/// hand-off between threads (the callback API's nexting threads and
/// executor take several).
class PollingEcho {
public:
  void start(grpc::ServerBuilder &builder) {
    builder.RegisterAsyncGenericService(&service_);
    queue_ = builder.AddCompletionQueue();
  }
  void run() {
    thread_ = std::thread([this] {
      requestOne();
      void *tag;
      bool ok;
      while (queue_->Next(&tag, &ok)) {
        auto *call = static_cast<Call *>(tag);
        switch (call->step++) {
        case 0: // a call arrived, or the server is shutting down
          if (!ok) {
            delete call;
            break;
          }
          requestOne();
          call->stream.Read(&call->message, call);
          break;
        case 1: // its request was read, or the client went away
          if (ok)
            call->stream.WriteAndFinish(call->message, grpc::WriteOptions(),
                                        grpc::Status::OK, call);
          else
            call->stream.Finish(grpc::Status::CANCELLED, call);
          break;
        default:
          delete call;
        }
      }
    });
  }

private:
  struct Call {
    grpc::GenericServerContext context;
    grpc::GenericServerAsyncReaderWriter stream{&context};
    grpc::ByteBuffer message;
    int step = 0;
  };
  void requestOne() {
    auto *call = new Call;
    service_.RequestCall(&call->context, &call->stream, queue_.get(),
                         queue_.get(), call);
  }
  grpc::AsyncGenericService service_;
  std::unique_ptr<grpc::ServerCompletionQueue> queue_;
  std::thread thread_;
};

struct Servers {
  PollingEcho pollingEcho;
  std::unique_ptr<grpc::Server> pollingEchoServer;
  std::string pollingEchoAddress;
  std::unique_ptr<server::Server> anyshape; // compiles in process
  EchoService echo;
  std::unique_ptr<grpc::Server> echoServer;
  std::string echoAddress;
};

Servers &servers() {
  static Servers *s = [] {
    // As anyshape-server's main does (both sides of every round trip here
    // are in this process, so the echoes get it too).
    server::keepFreedHeap(server::kDefaultHeapKeepBytes);
    auto *s = new Servers;
    server::ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.service.compileWorkers.program = ANYSHAPE_COMPILE_WORKER;
    auto server = server::Server::start(options);
    if (!server) {
      std::fprintf(stderr, "%s\n", server.status().toString().c_str());
      std::exit(1);
    }
    s->anyshape = std::move(*server);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.SetMaxReceiveMessageSize(256 << 20);
    builder.SetMaxSendMessageSize(256 << 20);
    builder.RegisterCallbackGenericService(&s->echo);
    s->echoServer = builder.BuildAndStart();
    s->echoAddress = "127.0.0.1:" + std::to_string(port);
    grpc::ServerBuilder polling;
    polling.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    polling.SetMaxReceiveMessageSize(256 << 20);
    polling.SetMaxSendMessageSize(256 << 20);
    s->pollingEcho.start(polling);
    s->pollingEchoServer = polling.BuildAndStart();
    s->pollingEcho.run();
    s->pollingEchoAddress = "127.0.0.1:" + std::to_string(port);
    return s;
  }();
  return *s;
}

std::shared_ptr<grpc::Channel> channelTo(const std::string &address) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(256 << 20);
  args.SetMaxSendMessageSize(256 << 20);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(),
                                   args);
}

/// y = x + x over f32[n].
v1::Graph addGraph() {
  v1::Graph graph;
  graph.set_name("add");
  v1::Input *x = graph.add_inputs();
  x->set_name("x");
  x->mutable_type()->set_dtype(v1::DTYPE_F32);
  x->mutable_type()->add_dims()->set_symbol("n");
  v1::Node *y = graph.add_nodes();
  y->set_name("y");
  y->set_op("add");
  y->add_operands("x");
  y->add_operands("x");
  graph.add_outputs("y");
  return graph;
}

/// Waits for one callback-API call.
class Wait {
public:
  void done(grpc::Status status) {
    std::lock_guard<std::mutex> lock(mutex_);
    status_ = std::move(status);
    finished_ = true;
    cv_.notify_one();
  }
  grpc::Status get() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return finished_; });
    finished_ = false;
    return status_;
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool finished_ = false;
  grpc::Status status_;
};

v1::ExecuteRequest executeRequest(const std::string &id, int64_t n) {
  v1::ExecuteRequest request;
  request.set_executable_id(id);
  v1::NamedTensor *x = request.add_inputs();
  x->set_name("x");
  x->mutable_tensor()->set_dtype(v1::DTYPE_F32);
  x->mutable_tensor()->add_shape(n);
  x->mutable_tensor()->mutable_data()->assign(static_cast<size_t>(n) * 4, 1);
  return request;
}

std::string compiledAddId() {
  auto stub = v1::AnyShape::NewStub(channelTo(servers().anyshape->address()));
  v1::CompileRequest request;
  *request.mutable_graph() = addGraph();
  grpc::ClientContext context;
  v1::CompileResponse response;
  if (!stub->Compile(&context, request, &response).ok())
    std::exit(1);
  return response.info().executable_id();
}

/// f32 elements per request: one; the encoder's hidden state at 8 tokens,
/// at 29 (the log-uniform trace's median) and at 128; and 256 KiB.
void payloadSizes(benchmark::internal::Benchmark *b) {
  for (int64_t n : {int64_t{1}, int64_t{8 * 768}, int64_t{29 * 768},
                    int64_t{128 * 768}, int64_t{1} << 16})
    b->Arg(n);
}

void BM_Execute(benchmark::State &state) {
  static const std::string id = compiledAddId();
  auto stub = v1::AnyShape::NewStub(channelTo(servers().anyshape->address()));
  v1::ExecuteRequest request = executeRequest(id, state.range(0));
  Wait wait;
  for (auto _ : state) {
    grpc::ClientContext context;
    v1::ExecuteResponse response;
    stub->async()->Execute(&context, &request, &response,
                           [&](grpc::Status s) { wait.done(std::move(s)); });
    if (!wait.get().ok())
      state.SkipWithError("Execute failed");
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}
BENCHMARK(BM_Execute)->Apply(payloadSizes)->UseRealTime();

/// Round trips of an ExecuteRequest's bytes (n f32) to the echo at
/// `address`, each called with the callback API and waited on.
void echoWithCallbacks(benchmark::State &state, const std::string &address) {
  grpc::GenericStub stub(channelTo(address));
  std::string bytes =
      executeRequest(std::string(32, '0'), state.range(0)).SerializeAsString();
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1);
  Wait wait;
  for (auto _ : state) {
    grpc::ClientContext context;
    grpc::ByteBuffer response;
    stub.UnaryCall(&context, "/bench.Echo/Echo", grpc::StubOptions(), &request,
                   &response, [&](grpc::Status s) { wait.done(std::move(s)); });
    if (!wait.get().ok())
      state.SkipWithError("echo failed");
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

void BM_RawGrpcEcho(benchmark::State &state) {
  echoWithCallbacks(state, servers().echoAddress);
}
BENCHMARK(BM_RawGrpcEcho)->Apply(payloadSizes)->UseRealTime();

void BM_PollingGrpcEcho(benchmark::State &state) {
  echoWithCallbacks(state, servers().pollingEchoAddress);
}
BENCHMARK(BM_PollingGrpcEcho)->Apply(payloadSizes)->UseRealTime();

/// The client side without the callback API's threads: the calling thread
/// starts the call and waits on its own completion queue, as a blocking
/// call does.
template <bool Polling> void BM_BlockingGrpcEcho(benchmark::State &state) {
  grpc::GenericStub stub(channelTo(Polling ? servers().pollingEchoAddress
                                           : servers().echoAddress));
  std::string bytes =
      executeRequest(std::string(32, '0'), state.range(0)).SerializeAsString();
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::CompletionQueue queue;
  for (auto _ : state) {
    grpc::ClientContext context;
    grpc::ByteBuffer response;
    grpc::Status status;
    auto call =
        stub.PrepareUnaryCall(&context, "/bench.Echo/Echo", request, &queue);
    call->StartCall();
    call->Finish(&response, &status, &queue);
    void *tag;
    bool ok;
    if (!queue.Next(&tag, &ok) || !ok || !status.ok())
      state.SkipWithError("echo failed");
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}
BENCHMARK(BM_BlockingGrpcEcho<false>)->Apply(payloadSizes)->UseRealTime();
BENCHMARK(BM_BlockingGrpcEcho<true>)->Apply(payloadSizes)->UseRealTime();

/// The encoder with its weights in the tensor store (as clients that
/// upload weights once send it), compiled once before timing.
v1::CompileRequest cachedEncoderRequest(v1::AnyShape::Stub &stub) {
  auto graph = loadGraphFile(std::string(ANYSHAPE_SOURCE_DIR) +
                             "/examples/bert_encoder_layer.pbtxt");
  if (!graph)
    std::exit(1);
  for (v1::Node &node : *graph->mutable_nodes()) {
    if (node.op() != "constant")
      continue;
    auto tensor = materializeConstant(node.constant(), nullptr);
    grpc::ClientContext context;
    v1::UploadTensorResponse uploaded;
    auto writer = stub.UploadTensor(&context, &uploaded);
    v1::UploadTensorChunk chunk;
    chunk.set_dtype(tensor->dtype());
    *chunk.mutable_shape() = tensor->shape();
    chunk.set_data(tensor->data());
    writer->Write(chunk);
    writer->WritesDone();
    if (!writer->Finish().ok())
      std::exit(1);
    node.mutable_constant()->set_tensor_id(uploaded.tensor_id());
  }
  v1::CompileRequest request;
  *request.mutable_graph() = *graph;
  grpc::ClientContext context;
  v1::CompileResponse response;
  if (!stub.Compile(&context, request, &response).ok())
    std::exit(1);
  return request;
}

void BM_CompileCacheHitEncoder(benchmark::State &state) {
  auto stub = v1::AnyShape::NewStub(channelTo(servers().anyshape->address()));
  static const v1::CompileRequest request = cachedEncoderRequest(*stub);
  std::vector<double> micros;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    grpc::ClientContext context;
    v1::CompileResponse response;
    if (!stub->Compile(&context, request, &response).ok() ||
        !response.cache_hit())
      state.SkipWithError("not a cache hit");
    micros.push_back(std::chrono::duration<double, std::micro>(
                         std::chrono::steady_clock::now() - start)
                         .count());
  }
  // Latency percentiles of single calls (the goal is on p50).
  std::sort(micros.begin(), micros.end());
  state.counters["p50_us"] = micros[micros.size() / 2];
  state.counters["p99_us"] = micros[micros.size() * 99 / 100];
}
BENCHMARK(BM_CompileCacheHitEncoder)->UseRealTime();

/// A compile that misses every time (Unload after each; no disk tier)
/// through the server, in a worker (arg 1), or compiled and loaded in this
/// process as the worker and the server would (arg 0), of the one-op graph
/// (worst case for the worker's share) or the encoder.
template <bool Encoder> void BM_CompileMiss(benchmark::State &state) {
  server::Server &server = *servers().anyshape;
  auto stub = v1::AnyShape::NewStub(channelTo(server.address()));
  v1::CompileRequest request;
  if (Encoder) {
    auto graph = loadGraphFile(std::string(ANYSHAPE_SOURCE_DIR) +
                               "/examples/bert_encoder_layer.pbtxt");
    if (!graph)
      std::exit(1);
    *request.mutable_graph() = *graph;
  } else {
    *request.mutable_graph() = addGraph();
  }
  if (state.range(0) == 0) {
    for (auto _ : state) {
      compiler::CompileReport report;
      auto stored = server::compileForCache(request, "key", nullptr,
                                            GraphLimits{}, &report);
      if (!stored.isOk() ||
          !server::loadStored(std::move(*stored), GraphLimits{}).isOk())
        state.SkipWithError("not compiled");
    }
    state.SetLabel("in process");
    return;
  }
  for (auto _ : state) {
    grpc::ClientContext context;
    v1::CompileResponse response;
    if (!stub->Compile(&context, request, &response).ok() ||
        response.cache_hit())
      state.SkipWithError("not a compile");
    state.PauseTiming();
    grpc::ClientContext unloadContext;
    v1::UnloadRequest unload;
    unload.set_executable_id(response.info().executable_id());
    v1::UnloadResponse unloaded;
    (void)stub->Unload(&unloadContext, unload, &unloaded);
    state.ResumeTiming();
  }
  state.SetLabel("worker process");
}
BENCHMARK_TEMPLATE(BM_CompileMiss, false)
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_CompileMiss, true)
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();

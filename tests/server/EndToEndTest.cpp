// End-to-end tests of anyshape-server, each against a real server process
// on 127.0.0.1 (port 0) over real gRPC: one compile shared by concurrent
// clients, restarts served from the disk cache, damaged cache files
// recompiled, bad requests answered with the right codes, uploaded
// tensors, health, metrics, drain on SIGTERM, cache hits answered while a
// slow compile holds the only compile slot, and convolutions on every
// execute thread.
#include "../support/ExampleGraph.h"
#include "E2eSupport.h"
#include "anyshape/client/GraphBuilder.h"

#include "ir/graph/Bindings.h"
#include "ir/graph/ConstantData.h"
#include "ir/graph/GraphText.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"

#include "../jit/RandomInputs.h"

#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cstdlib>
#include <dirent.h>
#include <filesystem>
#include <future>
#include <random>
#include <sys/socket.h>
#include <thread>

using namespace anyshape;
using namespace anyshape::test;

namespace {

TEST(ServerEndToEnd, SixteenClientsFiftyShapesOneCompile) {
  ServerProcess server({"--cache-dir", freshDirectory()});
  ASSERT_FALSE(server.address().empty()) << "the server did not start";
  v1::Graph graph = test::exampleGraph("mlp");
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  std::vector<std::string> ids(16);
  for (int c = 0; c < 16; ++c)
    clients.emplace_back([&, c] {
      auto stub = v1::AnyShape::NewStub(server.channel()); // own channel
      Called called = compile(*stub, graph);
      if (!called.status.ok()) {
        ++failures;
        return;
      }
      ids[c] = called.compiled.info().executable_id();
      std::mt19937_64 random(c);
      for (int run = 0; run < 50; ++run) {
        int64_t batch = std::uniform_int_distribution<int64_t>(1, 40)(random);
        if (!executeAndCheck(*stub, ids[c], graph, {{"batch", batch}},
                             c * 100 + run)
                 .ok())
          ++failures;
      }
    });
  for (std::thread &t : clients)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  for (const std::string &id : ids)
    EXPECT_EQ(id, ids[0]);
  auto stub = server.stub();
  v1::StatsResponse s = stats(*stub);
  EXPECT_EQ(s.compiles(), 1);
  EXPECT_EQ(s.cache_hits(), 15);
  EXPECT_EQ(s.executions(), 16 * 50);
  EXPECT_EQ(s.execution_errors(), 0);
  EXPECT_EQ(server.stop(), 0);
}

TEST(ServerEndToEnd, ConvolutionsServeFromEveryExecuteThread) {
  // oneDNN's convolution primitives, cached per size in the runtime, run
  // on whichever execute thread takes the request (its own scratch memory
  // was a thread-local of the thread that made the primitive: a segfault
  // on any other).
  ServerProcess server({"--execute-threads", "4"});
  ASSERT_FALSE(server.address().empty()) << "the server did not start";
  client::GraphBuilder b("conv_on_threads");
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"n", 3, "h", "w"});
  client::Value w = b.seededUniform(v1::DTYPE_F32, {8, 3, 7, 7}, 11, -0.5, 0.5);
  b.output(b.tanh(b.convolution(x, w, {2, 2}, {1, 1}, {3, 3}, {3, 3})));
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto stub = server.stub();
  Called called = compile(*stub, *graph);
  ASSERT_TRUE(called.status.ok()) << called.status.error_message();
  std::string id = called.compiled.info().executable_id();
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c)
    clients.emplace_back([&, c] {
      auto own = v1::AnyShape::NewStub(server.channel());
      for (int run = 0; run < 12; ++run) {
        int64_t side = 1 + (c * 12 + run) % 5;
        if (!executeAndCheck(*own, id, *graph,
                             {{"n", 1 + run % 2}, {"h", side}, {"w", side}},
                             c * 100 + run)
                 .ok())
          ++failures;
      }
    });
  for (std::thread &t : clients)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(stats(*stub).execution_errors(), 0);
  EXPECT_EQ(server.stop(), 0);
}

TEST(ServerEndToEnd, RestartServesFromDiskWithZeroCompiles) {
  std::string dir = freshDirectory();
  v1::Graph graph = test::exampleGraph("bert_encoder_layer");
  std::string id;
  {
    ServerProcess first({"--cache-dir", dir});
    ASSERT_FALSE(first.address().empty());
    auto stub = first.stub();
    Called called = compile(*stub, graph);
    ASSERT_TRUE(called.status.ok()) << called.status.error_message();
    EXPECT_FALSE(called.compiled.cache_hit());
    EXPECT_GT(called.compiled.compile_ms(), 0);
    id = called.compiled.info().executable_id();
    EXPECT_GT(called.compiled.info().kernel_count(), 0);
    EXPECT_EQ(first.stop(), 0);
  }
  ServerProcess second({"--cache-dir", dir});
  ASSERT_FALSE(second.address().empty());
  auto stub = second.stub();
  Called called = compile(*stub, graph);
  ASSERT_TRUE(called.status.ok());
  EXPECT_TRUE(called.compiled.cache_hit());
  EXPECT_EQ(called.compiled.info().executable_id(), id);
  for (int64_t seq : {1, 17, 64})
    EXPECT_TRUE(
        executeAndCheck(*stub, id, graph, {{"batch", 1}, {"seq", seq}}, seq)
            .ok());
  v1::StatsResponse s = stats(*stub);
  EXPECT_EQ(s.compiles(), 0);
  EXPECT_EQ(s.disk_loads(), 1);
}

TEST(ServerEndToEnd, CudaCompilesAnywhereAndItsCubinsAreCachedOnDisk) {
  // A CUDA compile needs no GPU (a fleet's cache can be filled from any
  // server); its entry holds the host object and the cubins, and a
  // restarted server loads it instead of compiling. Executing needs a
  // device: without one it is FAILED_PRECONDITION saying so.
  std::string dir = freshDirectory();
  v1::Graph graph = test::exampleGraph("mlp");
  v1::CompileOptions cuda;
  cuda.set_target(v1::TARGET_CUDA);
  std::string id;
  {
    ServerProcess first({"--cache-dir", dir});
    ASSERT_FALSE(first.address().empty());
    auto stub = first.stub();
    Called called = compile(*stub, graph, cuda);
    ASSERT_TRUE(called.status.ok()) << called.status.error_message();
    EXPECT_EQ(called.compiled.info().target(), v1::TARGET_CUDA);
    EXPECT_GT(called.compiled.info().kernel_count(), 0);
    id = called.compiled.info().executable_id();
    // The chip and the target are part of the key.
    v1::CompileOptions a100 = cuda;
    a100.set_cuda_arch("sm_80");
    Called other = compile(*stub, graph, a100);
    ASSERT_TRUE(other.status.ok()) << other.status.error_message();
    EXPECT_NE(other.compiled.info().executable_id(), id);
    EXPECT_NE(compiledId(*stub, graph), id);
    EXPECT_EQ(first.stop(), 0);
  }
  ServerProcess second({"--cache-dir", dir});
  ASSERT_FALSE(second.address().empty());
  auto stub = second.stub();
  Called called = compile(*stub, graph, cuda);
  ASSERT_TRUE(called.status.ok()) << called.status.error_message();
  EXPECT_TRUE(called.compiled.cache_hit());
  EXPECT_EQ(called.compiled.info().executable_id(), id);
  EXPECT_EQ(called.compiled.info().target(), v1::TARGET_CUDA);
  v1::StatsResponse s = stats(*stub);
  EXPECT_EQ(s.compiles(), 0);
  EXPECT_EQ(s.disk_loads(), 1);
  grpc::Status executed = executeAndCheck(*stub, id, graph, {{"batch", 3}}, 5);
  if (s.cuda_device().empty()) {
    EXPECT_EQ(executed.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_NE(executed.error_message().find("CUDA device"), std::string::npos)
        << executed.error_message();
  } else {
    EXPECT_TRUE(executed.ok()) << executed.error_message();
  }
}

TEST(ServerEndToEnd, DamagedCacheFilesAreRecompiledAndReplaced) {
  v1::Graph graph = test::exampleGraph("elementwise_reduce");
  for (const std::string damage : {"truncate", "bitflip"}) {
    SCOPED_TRACE(damage);
    std::string dir = freshDirectory();
    std::string id;
    {
      ServerProcess first({"--cache-dir", dir});
      auto stub = first.stub();
      Called called = compile(*stub, graph);
      ASSERT_TRUE(called.status.ok());
      id = called.compiled.info().executable_id();
    }
    std::string file = cacheFileIn(dir);
    ASSERT_FALSE(file.empty());
    auto size = std::filesystem::file_size(file);
    if (damage == "truncate") {
      std::filesystem::resize_file(file, size / 2);
    } else {
      std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(static_cast<std::streamoff>(size / 2));
      char byte = 0;
      f.read(&byte, 1);
      byte ^= 0x10;
      f.seekp(static_cast<std::streamoff>(size / 2));
      f.write(&byte, 1);
    }
    {
      ServerProcess second({"--cache-dir", dir});
      auto stub = second.stub();
      Called called = compile(*stub, graph);
      ASSERT_TRUE(called.status.ok());
      EXPECT_FALSE(called.compiled.cache_hit());
      EXPECT_EQ(stats(*stub).compiles(), 1);
      EXPECT_TRUE(
          executeAndCheck(*stub, id, graph, {{"rows", 9}, {"cols", 5}}, 3)
              .ok());
    }
    // The recompile replaced the entry: a third start loads it.
    ServerProcess third({"--cache-dir", dir});
    auto stub = third.stub();
    EXPECT_TRUE(compile(*stub, graph).compiled.cache_hit());
    EXPECT_EQ(stats(*stub).disk_loads(), 1);
  }
}

TEST(ServerEndToEnd, CacheEntriesTheServerDidNotWriteAreRefused) {
  // A second server over the same directory with a key of its own plays
  // someone who can write the cache directory but not read the first
  // server's key: every entry it wrote is refused and recompiled. The
  // first server's key was created beside the directory, private.
  v1::Graph graph = test::exampleGraph("elementwise_reduce");
  std::string dir = freshDirectory();
  {
    ServerProcess first({"--cache-dir", dir});
    ASSERT_TRUE(compile(*first.stub(), graph).status.ok());
  }
  struct stat key;
  ASSERT_EQ(::stat((dir + ".key").c_str(), &key), 0) << "no key beside " << dir;
  EXPECT_EQ(key.st_mode & 07777, 0600u);
  ASSERT_FALSE(cacheFileIn(dir).empty());
  {
    ServerProcess other(
        {"--cache-dir", dir, "--cache-key-file", dir + ".other-key"});
    auto stub = other.stub();
    Called called = compile(*stub, graph);
    ASSERT_TRUE(called.status.ok()) << called.status.error_message();
    EXPECT_FALSE(called.compiled.cache_hit());
    v1::StatsResponse s = stats(*stub);
    EXPECT_EQ(s.disk_loads(), 0);
    EXPECT_EQ(s.compiles(), 1);
  }
  // That server replaced the entry with one of its own: the first key now
  // refuses it in turn.
  ServerProcess first({"--cache-dir", dir});
  auto stub = first.stub();
  EXPECT_FALSE(compile(*stub, graph).compiled.cache_hit());
  EXPECT_EQ(stats(*stub).disk_loads(), 0);
}

TEST(ServerEndToEnd, BadRequestsGetTheRightCodesAndTheServerLives) {
  ServerProcess server({"--tensor-store-bytes", "1K"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();

  // Every malformed graph of the test corpus: INVALID_ARGUMENT, or
  // RESOURCE_EXHAUSTED for one beyond the limits.
  int checked = 0;
  for (const auto &entry : std::filesystem::directory_iterator(
           std::string(ANYSHAPE_SOURCE_DIR) + "/tests/graphs/invalid")) {
    auto graph = loadGraphFile(entry.path());
    if (!graph.isOk())
      continue; // a parse error: never reaches the wire
    Called called = compile(*stub, *graph);
    grpc::StatusCode code = called.status.error_code();
    EXPECT_TRUE(code == grpc::StatusCode::INVALID_ARGUMENT ||
                code == grpc::StatusCode::RESOURCE_EXHAUSTED)
        << entry.path() << ": " << code << " " << called.status.error_message();
    EXPECT_FALSE(called.status.error_message().empty());
    ++checked;
  }
  EXPECT_GT(checked, 20);

  v1::Graph graph = test::exampleGraph("mlp");
  v1::CompileOptions badArch;
  badArch.set_target(v1::TARGET_CUDA);
  badArch.set_cuda_arch("sm_50");
  EXPECT_EQ(compile(*stub, graph, badArch).status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  v1::CompileOptions unknownSymbol;
  (*unknownSymbol.mutable_static_symbols())["nope"] = 3;
  EXPECT_EQ(compile(*stub, graph, unknownSymbol).status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);

  std::string id = compiledId(*stub, graph);
  ASSERT_FALSE(id.empty());
  auto execute = [&](const std::string &executable,
                     std::function<void(v1::ExecuteRequest &)> edit) {
    auto shapes = inputShapesFor(graph, {{"batch", 3}});
    auto inputs = test::randomInputs(graph, *shapes, 1);
    v1::ExecuteRequest request;
    request.set_executable_id(executable);
    for (int k = 0; k < graph.inputs_size(); ++k) {
      v1::NamedTensor *input = request.add_inputs();
      input->set_name(graph.inputs(k).name());
      *input->mutable_tensor() = inputs.tensors[k];
    }
    edit(request);
    grpc::ClientContext context;
    v1::ExecuteResponse response;
    return stub->Execute(&context, request, &response);
  };
  auto code = [](const grpc::Status &s) { return s.error_code(); };
  EXPECT_EQ(code(execute(id, [](auto &) {})), grpc::StatusCode::OK);
  EXPECT_EQ(code(execute(std::string(32, 'a'), [](auto &) {})),
            grpc::StatusCode::NOT_FOUND);
  // Not an id at all (ids name cache files: never a path).
  EXPECT_EQ(code(execute("../../etc/passwd", [](auto &) {})),
            grpc::StatusCode::INVALID_ARGUMENT);
  grpc::Status wrongBytes = execute(id, [](v1::ExecuteRequest &r) {
    r.mutable_inputs(0)->mutable_tensor()->mutable_data()->pop_back();
  });
  EXPECT_EQ(code(wrongBytes), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(wrongBytes.error_message().find(graph.inputs(0).name()),
            std::string::npos)
      << wrongBytes.error_message();
  EXPECT_EQ(code(execute(id,
                         [](v1::ExecuteRequest &r) {
                           auto *t = r.mutable_inputs(0)->mutable_tensor();
                           t->clear_shape();
                           t->add_shape(int64_t{1} << 40);
                           t->add_shape(int64_t{1} << 40);
                         })),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(
      code(execute(
          id, [](v1::ExecuteRequest &r) { r.mutable_inputs()->RemoveLast(); })),
      grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(code(execute(id,
                         [](v1::ExecuteRequest &r) {
                           r.mutable_inputs(0)->set_name("no_such_input");
                         })),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(code(execute(id,
                         [](v1::ExecuteRequest &r) {
                           r.mutable_inputs(0)->set_tensor_id("feedbeef");
                         })),
            grpc::StatusCode::NOT_FOUND);
  // A shape that breaks the graph's constraints (static feature dim).
  grpc::Status badShape = execute(id, [](v1::ExecuteRequest &r) {
    v1::Tensor *t = r.mutable_inputs(0)->mutable_tensor();
    int64_t last = t->shape(t->shape_size() - 1);
    t->set_shape(t->shape_size() - 1, last + 1);
    t->mutable_data()->resize(t->data().size() / last * (last + 1));
  });
  EXPECT_EQ(code(badShape), grpc::StatusCode::INVALID_ARGUMENT)
      << badShape.error_message();

  // The tensor store holds 1 KiB: a 2 KiB upload is refused.
  {
    grpc::ClientContext context;
    v1::UploadTensorResponse response;
    auto writer = stub->UploadTensor(&context, &response);
    v1::UploadTensorChunk chunk;
    chunk.set_dtype(v1::DTYPE_F32);
    chunk.add_shape(512);
    chunk.set_data(std::string(2048, '\0'));
    writer->Write(chunk);
    writer->WritesDone();
    EXPECT_EQ(writer->Finish().error_code(),
              grpc::StatusCode::RESOURCE_EXHAUSTED);
  }
  // The server is still alive and counted the failures.
  v1::StatsResponse s = stats(*stub);
  EXPECT_GE(s.execution_errors(), 8);
  EXPECT_EQ(server.stop(), 0);
}

/// Uploads `tensor` in chunks of `chunkBytes`.

TEST(ServerEndToEnd, UploadedTensorsServeAsWeightsAndInputs) {
  ServerProcess server({});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  v1::Graph graph = test::exampleGraph("mlp");
  // Every constant moves to the tensor store; the graph references ids.
  v1::Graph byId = graph;
  int moved = 0;
  for (v1::Node &node : *byId.mutable_nodes()) {
    if (node.op() != "constant")
      continue;
    auto tensor = materializeConstant(node.constant(), nullptr);
    ASSERT_TRUE(tensor.isOk());
    v1::UploadTensorResponse uploaded;
    ASSERT_TRUE(upload(*stub, *tensor, 1000, uploaded).ok());
    EXPECT_EQ(uploaded.bytes(), static_cast<int64_t>(tensor->data().size()));
    node.mutable_constant()->set_tensor_id(uploaded.tensor_id());
    ++moved;
  }
  ASSERT_GT(moved, 0);
  Called called = compile(*stub, byId);
  ASSERT_TRUE(called.status.ok()) << called.status.error_message();
  // Checked against the reference on the original graph (inline weights).
  EXPECT_TRUE(executeAndCheck(*stub, called.compiled.info().executable_id(),
                              graph, {{"batch", 6}}, 5)
                  .ok());

  // An input by id; the same upload again stores nothing new.
  auto shapes = inputShapesFor(graph, {{"batch", 2}});
  auto inputs = test::randomInputs(graph, *shapes, 9);
  v1::UploadTensorResponse first, again;
  ASSERT_TRUE(upload(*stub, inputs.tensors[0], 64, first).ok());
  ASSERT_TRUE(upload(*stub, inputs.tensors[0], 1 << 20, again).ok());
  EXPECT_EQ(first.tensor_id(), again.tensor_id());
  EXPECT_TRUE(again.already_stored());
  v1::ExecuteRequest request;
  request.set_executable_id(called.compiled.info().executable_id());
  request.add_inputs()->set_name(graph.inputs(0).name());
  request.mutable_inputs(0)->set_tensor_id(first.tensor_id());
  grpc::ClientContext context;
  v1::ExecuteResponse response;
  ASSERT_TRUE(stub->Execute(&context, request, &response).ok());
  auto expected = evaluateGraph(graph, inputs.literals);
  auto actual = literalFromTensor(response.outputs(0).tensor());
  ASSERT_TRUE(actual.isOk());
  EXPECT_TRUE(compareLiterals(*actual, (*expected)[0]).ok());
}

/// The services server reflection lists (grpc.reflection.v1alpha), from
/// one ServerReflectionRequest { list_services: "" } on the bidi stream.
std::string reflectedServices(const std::shared_ptr<grpc::Channel> &channel) {
  grpc::GenericStub generic(channel);
  grpc::CompletionQueue queue;
  grpc::ClientContext context;
  auto call = generic.PrepareCall(
      &context,
      "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &queue);
  auto step = [&](int tag) {
    void *got = nullptr;
    bool ok = false;
    return queue.Next(&got, &ok) && ok &&
           got == reinterpret_cast<void *>(static_cast<intptr_t>(tag));
  };
  auto tag = [](int t) {
    return reinterpret_cast<void *>(static_cast<intptr_t>(t));
  };
  call->StartCall(tag(1));
  if (!step(1))
    return "";
  std::string request("\x3a\x00", 2); // field 7 (list_services), empty
  grpc::Slice slice(request);
  grpc::ByteBuffer message(&slice, 1);
  call->Write(message, tag(2));
  if (!step(2))
    return "";
  call->WritesDone(tag(3));
  step(3);
  grpc::ByteBuffer reply;
  call->Read(&reply, tag(4));
  std::string bytes;
  if (step(4)) {
    std::vector<grpc::Slice> slices;
    reply.Dump(&slices);
    for (const grpc::Slice &s : slices)
      bytes.append(reinterpret_cast<const char *>(s.begin()), s.size());
  }
  grpc::Status status;
  call->Finish(&status, tag(5));
  step(5);
  queue.Shutdown();
  void *ignored;
  bool ok;
  while (queue.Next(&ignored, &ok)) {
  }
  return bytes;
}

std::string httpGet(const std::string &address, const std::string &path) {
  size_t colon = address.rfind(':');
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(std::atoi(address.c_str() + colon + 1));
  ::inet_pton(AF_INET, address.substr(0, colon).c_str(), &addr.sin_addr);
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return "";
  }
  std::string request = "GET " + path + " HTTP/1.0\r\n\r\n";
  ::send(fd, request.data(), request.size(), 0);
  std::string reply;
  char buffer[4096];
  ssize_t n;
  while ((n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0)
    reply.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  return reply;
}

TEST(ServerEndToEnd, ALoneExecutionRunsOnEveryCore) {
  // With one execution in flight, its kernels get every core, as in the
  // caller's own process (not cores / --execute-threads).
  ServerProcess server({"--execute-threads", "4"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  v1::Graph graph = test::exampleGraph("mlp");
  std::string id = compiledId(*stub, graph);
  ASSERT_FALSE(id.empty());
  int cores =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int64_t batch : {1, 7}) {
    v1::ExecuteTiming timing;
    ASSERT_TRUE(
        executeAndCheck(*stub, id, graph, {{"batch", batch}}, 3, &timing).ok());
    EXPECT_EQ(timing.threads(), cores) << "batch " << batch;
  }
}

TEST(ServerEndToEnd, AUnixSocketServesAndItsPortFileNamesIt) {
  // --listen unix:PATH, for clients on the same machine: the port file
  // holds the address a client dials (it said "unix:1"), and requests
  // are served through it.
  std::string path =
      "/tmp/anyshape-test-" + std::to_string(::getpid()) + ".sock";
  std::remove(path.c_str());
  ServerProcess server({"--listen", "unix:" + path});
  ASSERT_EQ(server.address(), "unix:" + path);
  auto stub = server.stub();
  v1::Graph graph = test::exampleGraph("mlp");
  std::string id = compiledId(*stub, graph);
  ASSERT_FALSE(id.empty());
  EXPECT_TRUE(executeAndCheck(*stub, id, graph, {{"batch", 5}}, 3).ok());
  EXPECT_EQ(server.stop(), 0);
  std::remove(path.c_str());
}

TEST(ServerEndToEnd, HealthReflectionAndPrometheusMetrics) {
  int port = 20000 + ::getpid() % 20000;
  std::string metrics = "127.0.0.1:" + std::to_string(port);
  ServerProcess server({"--metrics-listen", metrics});
  ASSERT_FALSE(server.address().empty());
  EXPECT_EQ(test::healthStatus(server.channel()), 1); // SERVING
  std::string services = reflectedServices(server.channel());
  EXPECT_NE(services.find("anyshape.v1.AnyShape"), std::string::npos)
      << services;
  EXPECT_NE(services.find("grpc.health.v1.Health"), std::string::npos);
  auto stub = server.stub();
  Called called = compile(*stub, test::exampleGraph("mlp"));
  ASSERT_TRUE(called.status.ok());
  std::string reply = httpGet(metrics, "/metrics");
  EXPECT_NE(reply.find("200 OK"), std::string::npos) << reply;
  EXPECT_NE(reply.find("anyshape_compiles_total 1"), std::string::npos);
  EXPECT_NE(reply.find("anyshape_compile_seconds_count 1"), std::string::npos);
  EXPECT_NE(reply.find("anyshape_process_resident_memory_bytes"),
            std::string::npos);
  EXPECT_NE(httpGet(metrics, "/other").find("404"), std::string::npos);
}

/// Waits until the server has finished `count` executions.
void waitForExecutions(v1::AnyShape::Stub &stub, int64_t count) {
  for (int wait = 0; wait < 500 && stats(stub).executions() < count; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

/// Starts `count` executions of the encoder at seq 512 without waiting;
/// returns once every one has been issued and a run has finished after
/// that, so all of them have reached the server (waiting for the first
/// run alone raced the slower threads' requests: 3 of 48 came after a
/// SIGTERM on a loaded machine).
std::vector<std::future<grpc::Status>>
startLongRuns(const ServerProcess &server, const std::string &id,
              const v1::Graph &graph, int count) {
  auto shapes = inputShapesFor(graph, {{"batch", 1}, {"seq", 512}});
  auto inputs = test::randomInputs(graph, *shapes, 1);
  auto issued = std::make_shared<std::atomic<int>>(0);
  std::vector<std::future<grpc::Status>> runs;
  for (int k = 0; k < count; ++k)
    runs.push_back(std::async(std::launch::async, [&server, id, graph, issued,
                                                   tensors = inputs.tensors] {
      v1::ExecuteRequest request = executeRequest(id, graph, tensors);
      grpc::ClientContext context;
      v1::ExecuteResponse response;
      auto stub = server.stub();
      ++*issued;
      return stub->Execute(&context, request, &response);
    }));
  for (int wait = 0; wait < 2000 && issued->load() < count; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto stub = server.stub();
  waitForExecutions(*stub, stats(*stub).executions() + 1);
  return runs;
}

TEST(ServerEndToEnd, SigtermLetsRequestsInFlightFinish) {
  ServerProcess server({"--execute-threads", "1"});
  ASSERT_FALSE(server.address().empty());
  v1::Graph graph = test::exampleGraph("bert_encoder_layer");
  auto stub = server.stub();
  std::string id = compiledId(*stub, graph);
  ASSERT_FALSE(id.empty());
  // Queued behind one execute thread, so most wait when SIGTERM comes
  // (12 runs and a fixed 200 ms sleep once raced the runs' own
  // connection setup).
  auto runs = startLongRuns(server, id, graph, 48);
  server.terminate();
  // Draining: health says NOT_SERVING (polled: the signal handler's turn
  // may take longer than any fixed sleep on a loaded machine) and new
  // work is refused.
  int health = 0;
  for (int wait = 0; wait < 500 && health != 2; ++wait) {
    health = test::healthStatus(server.channel());
    if (health != 2)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(health, 2);
  {
    v1::ExecuteRequest request;
    request.set_executable_id(id);
    grpc::ClientContext context;
    v1::ExecuteResponse response;
    EXPECT_EQ(stub->Execute(&context, request, &response).error_code(),
              grpc::StatusCode::UNAVAILABLE);
  }
  for (auto &run : runs) {
    grpc::Status status = run.get();
    EXPECT_TRUE(status.ok()) << status.error_message();
  }
  EXPECT_EQ(server.wait(), 0);
}

TEST(ServerEndToEnd, CacheHitsNeverWaitForACompile) {
  // One compile thread, and every compile held 2 s (a test-only delay):
  // while a slow compile holds the slot, eight compiles of a cached graph
  // are answered as hits on the execute pool, all before it finishes.
  ServerProcess server(
      {"--compile-threads", "1", "--testing-compile-delay-ms", "2000"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  v1::Graph cached = test::exampleGraph("mlp");
  ASSERT_FALSE(compiledId(*stub, cached).empty());
  v1::Graph slow = test::exampleGraph("elementwise_reduce");
  auto slowCompile =
      std::async(std::launch::async, [&] { return compile(*stub, slow); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::vector<std::future<std::pair<Called, double>>> hits;
  for (int i = 0; i < 8; ++i)
    hits.push_back(std::async(std::launch::async, [&] {
      auto start = std::chrono::steady_clock::now();
      Called called = compile(*stub, cached);
      return std::pair{called, std::chrono::duration<double, std::milli>(
                                   std::chrono::steady_clock::now() - start)
                                   .count()};
    }));
  for (auto &hit : hits) {
    auto [called, ms] = hit.get();
    EXPECT_TRUE(called.status.ok()) << called.status.error_message();
    EXPECT_TRUE(called.compiled.cache_hit());
    std::printf("cached compile answered in %.1f ms\n", ms);
  }
  EXPECT_EQ(slowCompile.wait_for(std::chrono::seconds(0)),
            std::future_status::timeout)
      << "the slow compile ended before the hits were answered";
  Called slowResult = slowCompile.get();
  EXPECT_TRUE(slowResult.status.ok()) << slowResult.status.error_message();
  EXPECT_FALSE(slowResult.compiled.cache_hit());
  v1::StatsResponse s = stats(*stub);
  EXPECT_EQ(s.compiles(), 2);
  EXPECT_EQ(s.cache_hits(), 8);
}

TEST(ServerEndToEnd, DeadlinesExpireInTheQueue) {
  ServerProcess server({"--execute-threads", "1"});
  ASSERT_FALSE(server.address().empty());
  v1::Graph graph = test::exampleGraph("bert_encoder_layer");
  auto stub = server.stub();
  std::string id = compiledId(*stub, graph);
  ASSERT_FALSE(id.empty());
  // 32 runs at seq 512 (~15 ms each) keep the one execute thread busy
  // long after the first has run (8 runs and a fixed 100 ms sleep once
  // raced the runs' own connection setup).
  auto runs = startLongRuns(server, id, graph, 32);
  // Queued behind the long runs: its deadline passes before it starts.
  v1::ExecuteRequest request;
  request.set_executable_id(id);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(20));
  v1::ExecuteResponse response;
  EXPECT_EQ(stub->Execute(&context, request, &response).error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
  for (auto &run : runs)
    EXPECT_TRUE(run.get().ok());
  // The server dropped the expired request without running it: the
  // long runs and one refused request are all it counted.
  v1::StatsResponse s = stats(*stub);
  for (int wait = 0; wait < 100 && s.executions() < 33; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    s = stats(*stub);
  }
  EXPECT_EQ(s.executions(), 33);
  EXPECT_EQ(s.execution_errors(), 1);
}

TEST(ServerEndToEnd, DeadlinesExpireInFlight) {
  // A long run (batch 8, seq 512: 0.1-0.5 s) under a deadline of half its
  // own time, measured first: it starts at once (nothing else is queued),
  // so the deadline passes while its kernels run. The client hears
  // DEADLINE_EXCEEDED on time; the server finishes the run (kernels are
  // not interrupted), counts it as run, not refused, and serves on.
  ServerProcess server({"--execute-threads", "1"});
  ASSERT_FALSE(server.address().empty());
  v1::Graph graph = test::exampleGraph("bert_encoder_layer");
  auto stub = server.stub();
  std::string id = compiledId(*stub, graph);
  ASSERT_FALSE(id.empty());
  auto shapes = inputShapesFor(graph, {{"batch", 8}, {"seq", 512}});
  ASSERT_TRUE(shapes.isOk());
  auto inputs = test::randomInputs(graph, *shapes, 1);
  v1::ExecuteRequest request = executeRequest(id, graph, inputs.tensors);
  double runMs = 0;
  {
    grpc::ClientContext context;
    v1::ExecuteResponse response;
    ASSERT_TRUE(stub->Execute(&context, request, &response).ok());
    runMs = response.timing().run_us() / 1e3;
  }
  auto deadline = std::chrono::milliseconds(static_cast<int>(runMs / 2));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + deadline);
  v1::ExecuteResponse response;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(stub->Execute(&context, request, &response).error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(std::chrono::steady_clock::now() - start, deadline + deadline / 2)
      << "the client waited for the run (" << runMs
      << " ms) instead of its deadline";
  v1::StatsResponse s = stats(*stub);
  for (int wait = 0; wait < 250 && s.executions() < 2; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    s = stats(*stub);
  }
  EXPECT_EQ(s.executions(), 2);
  EXPECT_EQ(s.execution_errors(), 0)
      << "refused in the queue, not run: a run of " << runMs
      << " ms did not start within half of it";
  EXPECT_TRUE(
      executeAndCheck(*stub, id, graph, {{"batch", 1}, {"seq", 5}}, 2).ok());
  EXPECT_EQ(server.stop(), 0);
}

} // namespace

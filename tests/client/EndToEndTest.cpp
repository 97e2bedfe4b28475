// The client SDK against a real anyshape-server on 127.0.0.1 (port 0): sync
// and async runs agree with the reference evaluator, offloaded weights give
// the results of inline ones, one compile serves every shape, the server's
// error codes arrive unchanged, ONNX models compile on the server, and
// UNAVAILABLE is retried across a server restart. Skipped (not failed)
// when the server binary is missing.
#include "../support/ScratchDir.h"
#include "../support/ServerProcess.h"
#include "anyshape/client/Client.h"
#include "anyshape/client/GraphBuilder.h"
#include "frontend/onnx/OnnxImport.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

namespace anyshape::client {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

/// A server on `listen`, draining for at most 5 s; null if it did not
/// start.
std::unique_ptr<test::ServerProcess>
startServer(const std::string &listen = "127.0.0.1:0",
            const std::string &cacheDir = "",
            const std::vector<std::string> &extraArgs = {}) {
  std::vector<std::string> args = {"--listen", listen, "--drain-seconds", "5"};
  if (!cacheDir.empty())
    args.insert(args.end(), {"--cache-dir", cacheDir});
  args.insert(args.end(), extraArgs.begin(), extraArgs.end());
  auto server = std::make_unique<test::ServerProcess>(args);
  return server->address().empty() ? nullptr : std::move(server);
}

bool serverBuilt() { return fs::exists(ANYSHAPE_SERVER_BINARY); }

/// tanh(x @ w + b) with w f32[64, 32] as inline bytes (8 KiB, offloadable)
/// and x f32[batch, 64].
v1::Graph denseGraph(uint64_t seed) {
  GraphBuilder b("dense");
  std::mt19937 rng(seed);
  std::vector<float> w(64 * 32);
  for (float &v : w)
    v = std::uniform_real_distribution<float>(-0.2f, 0.2f)(rng);
  Value x = b.parameter("x", v1::DTYPE_F32, {"batch", 64});
  Value weights = b.constant(
      v1::DTYPE_F32, {64, 32},
      std::string(reinterpret_cast<const char *>(w.data()), w.size() * 4));
  Value bias = b.seededUniform(v1::DTYPE_F32, {32}, seed, -0.1, 0.1);
  b.output(b.tanh(b.linear(x, weights, bias)), "y");
  auto graph = b.build();
  EXPECT_TRUE(graph.isOk()) << graph.status().toString();
  return graph.isOk() ? *graph : v1::Graph();
}

std::vector<v1::Tensor> inputsFor(int64_t batch, uint64_t seed) {
  return {literalToTensor(randomLiteral(v1::DTYPE_F32, {batch, 64}, seed))};
}

/// Checks `outputs` against the reference evaluator on the same inputs.
void expectMatchesReference(const v1::Graph &graph,
                            const std::vector<v1::Tensor> &inputs,
                            const std::vector<v1::Tensor> &outputs) {
  std::vector<Literal> literals;
  for (const v1::Tensor &t : inputs)
    literals.push_back(*literalFromTensor(t));
  auto expected = evaluateGraph(graph, literals);
  ASSERT_TRUE(expected.isOk()) << expected.status().toString();
  ASSERT_EQ(outputs.size(), expected->size());
  for (size_t k = 0; k < outputs.size(); ++k) {
    auto actual = literalFromTensor(outputs[k]);
    ASSERT_TRUE(actual.isOk()) << actual.status().toString();
    NumericDiff diff = compareLiterals(*actual, (*expected)[k]);
    EXPECT_TRUE(diff.ok()) << diff.firstMismatch;
  }
}

class ClientEndToEnd : public testing::Test {
protected:
  static void SetUpTestSuite() {
    if (serverBuilt())
      server_ = startServer().release();
  }
  static void TearDownTestSuite() {
    if (server_)
      EXPECT_EQ(server_->stop(), 0);
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (!serverBuilt())
      GTEST_SKIP() << ANYSHAPE_SERVER_BINARY << " is not built";
    ASSERT_NE(server_, nullptr) << "anyshape-server did not start";
    auto connected = Client::connect(server_->address());
    ASSERT_TRUE(connected.isOk()) << connected.status().toString();
    client_ = std::move(*connected);
  }

  static test::ServerProcess *server_;
  std::unique_ptr<Client> client_;
};
test::ServerProcess *ClientEndToEnd::server_ = nullptr;

TEST_F(ClientEndToEnd, OneCompileRunsEveryBatchSize) {
  v1::Graph graph = denseGraph(1);
  auto offloaded = client_->offloadConstants(graph);
  ASSERT_TRUE(offloaded.isOk()) << offloaded.status().toString();
  int stored = 0;
  for (const v1::Node &node : offloaded->nodes())
    stored += node.has_constant() && node.constant().has_tensor_id();
  EXPECT_EQ(stored, 1); // the weights; the seeded bias stays as it is
  auto compiled = client_->compile(*offloaded);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_EQ(compiled->id.size(), 32u);
  ASSERT_EQ(compiled->info.inputs_size(), 1);
  EXPECT_EQ(compiled->info.inputs(0).name(), "x");
  auto before = client_->stats();
  ASSERT_TRUE(before.isOk());
  for (int64_t batch : {1, 7, 33, 0}) {
    std::vector<v1::Tensor> inputs = inputsFor(batch, batch);
    auto outputs = client_->run(*compiled, inputs);
    ASSERT_TRUE(outputs.isOk()) << outputs.status().toString();
    ASSERT_EQ(outputs->size(), 1u);
    EXPECT_EQ(outputs->at(0).shape(0), batch);
    expectMatchesReference(graph, inputs, *outputs);
  }
  auto again = client_->compile(*offloaded);
  ASSERT_TRUE(again.isOk());
  EXPECT_EQ(again->id, compiled->id);
  EXPECT_TRUE(again->cacheHit);
  auto after = client_->stats();
  ASSERT_TRUE(after.isOk());
  EXPECT_EQ(after->compiles(), before->compiles());
  EXPECT_GE(after->executions() - before->executions(), 4);
}

TEST_F(ClientEndToEnd, AsyncRunsFromManyThreadsShareOneCompile) {
  v1::Graph graph = denseGraph(2);
  auto compiled = client_->compile(*client_->offloadConstants(graph));
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  auto before = client_->stats();
  ASSERT_TRUE(before.isOk());

  std::vector<std::vector<v1::Tensor>> inputs;
  std::vector<std::future<Client::RunResult>> futures;
  for (int k = 0; k < 16; ++k) {
    inputs.push_back(inputsFor(1 + k * 3, 100 + k));
    futures.push_back(client_->runAsync(*compiled, inputs.back()));
  }
  // Shared with the callbacks, not on this frame: a failed assertion below
  // returns while callbacks may still be running.
  struct Callbacks {
    std::mutex mutex;
    std::condition_variable allDone;
    int done = 0;
    std::vector<Status> errors;
  };
  auto callbacks = std::make_shared<Callbacks>();
  for (int k = 0; k < 16; ++k)
    client_->runAsync(*compiled, inputsFor(k + 1, k),
                      [callbacks, k](Client::RunResult result) {
                        std::lock_guard<std::mutex> lock(callbacks->mutex);
                        if (!result.isOk())
                          callbacks->errors.push_back(result.status());
                        else if (result->at(0).shape(0) != k + 1)
                          callbacks->errors.push_back(
                              internalError("wrong batch size"));
                        ++callbacks->done;
                        callbacks->allDone.notify_all();
                      });
  for (int k = 0; k < 16; ++k) {
    Client::RunResult result = futures[k].get();
    ASSERT_TRUE(result.isOk()) << result.status().toString();
    expectMatchesReference(graph, inputs[k], *result);
  }
  std::unique_lock<std::mutex> lock(callbacks->mutex);
  ASSERT_TRUE(callbacks->allDone.wait_for(
      lock, std::chrono::seconds(60), [&] { return callbacks->done == 16; }));
  for (const Status &error : callbacks->errors)
    ADD_FAILURE() << error.toString();
  auto after = client_->stats();
  ASSERT_TRUE(after.isOk());
  EXPECT_EQ(after->compiles(), before->compiles());
}

TEST_F(ClientEndToEnd, OffloadedWeightsGiveTheResultsOfInlineOnes) {
  v1::Graph graph = denseGraph(3);
  auto inlineCompiled = client_->compile(graph);
  auto offloaded = client_->offloadConstants(graph);
  ASSERT_TRUE(inlineCompiled.isOk()) << inlineCompiled.status().toString();
  ASSERT_TRUE(offloaded.isOk());
  auto storedCompiled = client_->compile(*offloaded);
  ASSERT_TRUE(storedCompiled.isOk()) << storedCompiled.status().toString();
  std::vector<v1::Tensor> inputs = inputsFor(5, 9);
  auto a = client_->run(*inlineCompiled, inputs);
  auto b = client_->run(*storedCompiled, inputs);
  ASSERT_TRUE(a.isOk() && b.isOk());
  EXPECT_EQ(a->at(0).data(), b->at(0).data());
}

TEST_F(ClientEndToEnd, NamedRunsInfoAndUnload) {
  auto compiled = client_->compile(denseGraph(4));
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  // An input may itself be a stored tensor.
  auto id = client_->uploadTensor(inputsFor(3, 1)[0]);
  ASSERT_TRUE(id.isOk()) << id.status().toString();
  v1::NamedTensor x;
  x.set_name("x");
  x.set_tensor_id(*id);
  auto outputs = client_->run(compiled->id, {x});
  ASSERT_TRUE(outputs.isOk()) << outputs.status().toString();
  ASSERT_EQ(outputs->size(), 1u);
  EXPECT_EQ(outputs->at(0).name(), "y");
  EXPECT_EQ(outputs->at(0).tensor().shape(0), 3);

  auto info = client_->info(compiled->id);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  EXPECT_EQ(info->executable_id(), compiled->id);
  EXPECT_EQ(info->outputs(0).name(), "y");
  auto unloaded = client_->unload(compiled->id);
  ASSERT_TRUE(unloaded.isOk()) << unloaded.status().toString();
  EXPECT_TRUE(*unloaded);
  auto twice = client_->unload(compiled->id);
  ASSERT_TRUE(twice.isOk());
  EXPECT_FALSE(*twice);
}

TEST_F(ClientEndToEnd, ServerErrorsKeepTheirCodes) {
  auto unknown = client_->run(std::string(32, '0'), {});
  EXPECT_EQ(unknown.status().code(), StatusCode::NotFound);

  auto compiled = client_->compile(denseGraph(5));
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  std::vector<v1::Tensor> wrongWidth = {
      literalToTensor(randomLiteral(v1::DTYPE_F32, {2, 63}, 0))};
  auto bad = client_->run(*compiled, wrongWidth);
  EXPECT_EQ(bad.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(bad.status().message().find("x"), std::string::npos)
      << bad.status().message();

  v1::Graph broken = denseGraph(5);
  for (v1::Node &node : *broken.mutable_nodes())
    if (node.operands_size() > 0) {
      node.set_operands(0, "nowhere");
      break;
    }
  EXPECT_EQ(client_->compile(broken).status().code(),
            StatusCode::InvalidArgument);

  // The wrong number of inputs never leaves the client.
  auto tooMany = client_->runAsync(*compiled, {wrongWidth[0], wrongWidth[0]});
  EXPECT_EQ(tooMany.get().status().code(), StatusCode::InvalidArgument);
}

/// The bytes of tests/graphs/onnx/NAME.
std::string onnxFixture(const std::string &name) {
  std::ifstream in(std::string(ANYSHAPE_SOURCE_DIR) + "/tests/graphs/onnx/" +
                       name,
                   std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(ClientEndToEnd, OnnxModelsAreImportedAndCachedByTheServer) {
  std::string model = onnxFixture("mlp.onnx");
  ASSERT_FALSE(model.empty());
  auto graph = onnx::importOnnx(model); // the reference's view of it
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto before = client_->stats();
  ASSERT_TRUE(before.isOk());
  auto compiled = client_->compileOnnx(model);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_FALSE(compiled->cacheHit);
  ASSERT_EQ(compiled->info.inputs_size(), 1);
  EXPECT_EQ(compiled->info.inputs(0).name(), "x");
  for (int64_t batch : {1, 5, 64}) {
    std::vector<v1::Tensor> inputs = {literalToTensor(
        randomLiteral(v1::DTYPE_F32, {batch, 4}, uint64_t(batch)))};
    auto outputs = client_->run(*compiled, inputs);
    ASSERT_TRUE(outputs.isOk()) << outputs.status().toString();
    ASSERT_EQ(outputs->size(), 1u);
    EXPECT_EQ(outputs->at(0).shape(0), batch);
    expectMatchesReference(*graph, inputs, *outputs);
  }
  // The same bytes again: a hit, answered without importing.
  auto again = client_->compileOnnx(model);
  ASSERT_TRUE(again.isOk()) << again.status().toString();
  EXPECT_TRUE(again->cacheHit);
  EXPECT_EQ(again->id, compiled->id);
  auto after = client_->stats();
  ASSERT_TRUE(after.isOk());
  EXPECT_EQ(after->compiles() - before->compiles(), 1);
}

TEST_F(ClientEndToEnd, BadOnnxModelsAreClearErrorsAndTheServerLives) {
  auto before = client_->stats();
  ASSERT_TRUE(before.isOk());
  auto truncated = client_->compileOnnx(onnxFixture("truncated.onnx"));
  ASSERT_FALSE(truncated.isOk());
  EXPECT_EQ(truncated.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(truncated.status().message().find("ONNX"), std::string::npos)
      << truncated.status().toString();
  auto garbage = client_->compileOnnx("not a model at all");
  ASSERT_FALSE(garbage.isOk());
  EXPECT_EQ(garbage.status().code(), StatusCode::InvalidArgument);
  auto empty = client_->compileOnnx("");
  ASSERT_FALSE(empty.isOk());
  EXPECT_EQ(empty.status().code(), StatusCode::InvalidArgument);
  auto after = client_->stats();
  ASSERT_TRUE(after.isOk()) << "the server died";
  EXPECT_GE(after->compile_errors() - before->compile_errors(), 2);
  // And it still compiles good models.
  EXPECT_TRUE(client_->compileOnnx(onnxFixture("mlp.onnx")).isOk());
}

TEST_F(ClientEndToEnd, DeadlineExceeded) {
  ClientOptions options;
  options.deadline = milliseconds(1);
  auto hurried = Client::connect(server_->address(), options);
  ASSERT_TRUE(hurried.isOk());
  // A graph never compiled before cannot compile in a millisecond.
  auto compiled = (*hurried)->compile(denseGraph(6));
  EXPECT_EQ(compiled.status().code(), StatusCode::DeadlineExceeded)
      << compiled.status().toString();
}

/// One decode step's shape: the cache grows by the step's row, and y is
/// the sum of every row so far. present = concat(past, 2 x), y = sum of
/// present over its rows.
v1::Graph cacheStepGraph() {
  GraphBuilder b("cache_step");
  Value x = b.parameter("x", v1::DTYPE_F32, {"batch", 1, 8});
  Value past = b.parameter("past", v1::DTYPE_F32, {"batch", "past", 8});
  Value present =
      b.concatenate({past, b.mul(x, b.scalar(2.0, v1::DTYPE_F32))}, 1);
  b.output(present, "present");
  b.output(b.reduce(present, {1}, Reduction::Sum), "y");
  auto graph = b.build();
  EXPECT_TRUE(graph.isOk()) << graph.status().toString();
  return graph.isOk() ? *graph : v1::Graph();
}

v1::NamedTensor named(const std::string &name, v1::Tensor tensor) {
  v1::NamedTensor t;
  t.set_name(name);
  *t.mutable_tensor() = std::move(tensor);
  return t;
}

v1::NamedTensor namedId(const std::string &name, const std::string &id) {
  v1::NamedTensor t;
  t.set_name(name);
  t.set_tensor_id(id);
  return t;
}

TEST(ClientKeptOutputs, ADecodeLoopKeepsItsCacheInTheServer) {
  // A kept output stays in the server and comes back as an id the next
  // step names as its input; the loop's results are those of sending the
  // cache each time. The store is bounded: an unknown output name, a freed
  // or idled-out id and a keep over the count limit are clear errors, and
  // the server serves on.
  if (!serverBuilt())
    GTEST_SKIP() << ANYSHAPE_SERVER_BINARY << " is not built";
  auto server =
      startServer("127.0.0.1:0", "",
                  {"--max-kept-tensors", "3", "--kept-idle-seconds", "2"});
  ASSERT_NE(server, nullptr) << "anyshape-server did not start";
  auto client = Client::connect(server->address());
  ASSERT_TRUE(client.isOk()) << client.status().toString();
  auto compiled = (*client)->compile(cacheStepGraph());
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const std::string &id = compiled->id;

  Literal empty = Literal::zeros(v1::DTYPE_F32, {2, 0, 8});
  v1::NamedTensor past = named("past", literalToTensor(empty));
  std::vector<double> sums(16, 0.0);
  std::string previous;
  for (int step = 0; step < 6; ++step) {
    Literal x = randomLiteral(v1::DTYPE_F32, {2, 1, 8}, 100 + step);
    for (int k = 0; k < 16; ++k)
      sums[k] += static_cast<float>(2 * x.f[k]);
    auto out =
        (*client)->run(id, {named("x", literalToTensor(x)), past}, {"present"});
    ASSERT_TRUE(out.isOk()) << out.status().toString();
    ASSERT_EQ(out->size(), 2u);
    ASSERT_EQ(out->at(0).value_case(), v1::NamedTensor::kTensorId);
    auto y = literalFromTensor(out->at(1).tensor());
    ASSERT_TRUE(y.isOk());
    for (int k = 0; k < 16; ++k)
      EXPECT_NEAR(y->f[k], sums[k], 1e-4) << "step " << step;
    if (!previous.empty()) {
      auto freed = (*client)->freeTensors({previous});
      ASSERT_TRUE(freed.isOk());
      EXPECT_EQ(*freed, 1);
    }
    previous = out->at(0).tensor_id();
    past = namedId("past", previous);
  }
  auto stats = (*client)->stats();
  ASSERT_TRUE(stats.isOk());
  EXPECT_EQ(stats->kept_tensors(), 1);
  EXPECT_EQ(stats->kept_tensor_bytes(), 2 * 6 * 8 * 4); // [2, 6, 8] f32

  // free_after: the step frees the cache it consumed itself.
  Literal next = randomLiteral(v1::DTYPE_F32, {2, 1, 8}, 99);
  auto step = (*client)->run(id, {named("x", literalToTensor(next)), past},
                             {"present"}, {previous});
  ASSERT_TRUE(step.isOk()) << step.status().toString();
  auto consumed = (*client)->run(id, {named("x", literalToTensor(next)), past});
  EXPECT_EQ(consumed.status().code(), StatusCode::NotFound);
  stats = (*client)->stats();
  ASSERT_TRUE(stats.isOk());
  EXPECT_EQ(stats->kept_tensors(), 1);
  previous = step->at(0).tensor_id();
  past = namedId("past", previous);

  Literal x = randomLiteral(v1::DTYPE_F32, {2, 1, 8}, 7);
  auto unknown =
      (*client)->run(id, {named("x", literalToTensor(x)), past}, {"logits"});
  EXPECT_EQ(unknown.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(unknown.status().message().find("'logits', which is not an output"),
            std::string::npos);

  ASSERT_TRUE((*client)->freeTensors({previous}).isOk());
  auto freed = (*client)->run(id, {named("x", literalToTensor(x)), past});
  EXPECT_EQ(freed.status().code(), StatusCode::NotFound);
  EXPECT_NE(freed.status().message().find("input 'past': kept tensor"),
            std::string::npos)
      << freed.status().message();

  // Three kept at once at most: the fourth keep fails and stores nothing.
  v1::NamedTensor first = named("past", literalToTensor(empty));
  std::vector<std::string> held;
  for (int k = 0; k < 3; ++k) {
    auto out = (*client)->run(id, {named("x", literalToTensor(x)), first},
                              {"present"});
    ASSERT_TRUE(out.isOk()) << out.status().toString();
    held.push_back(out->at(0).tensor_id());
  }
  auto over =
      (*client)->run(id, {named("x", literalToTensor(x)), first}, {"present"});
  EXPECT_EQ(over.status().code(), StatusCode::ResourceExhausted);
  EXPECT_NE(over.status().message().find("--max-kept-tensors"),
            std::string::npos);
  EXPECT_TRUE(
      (*client)->run(id, {named("x", literalToTensor(x)), first}).isOk())
      << "a run that keeps nothing still runs";

  // Named by no request for longer than 2 s, they are dropped.
  std::this_thread::sleep_for(milliseconds(2500));
  auto idle = (*client)->run(
      id, {named("x", literalToTensor(x)), namedId("past", held[0])});
  EXPECT_EQ(idle.status().code(), StatusCode::NotFound);
  EXPECT_NE(idle.status().message().find("idling longer than 2 s"),
            std::string::npos);
  stats = (*client)->stats();
  ASSERT_TRUE(stats.isOk());
  EXPECT_EQ(stats->kept_tensors(), 0);
  EXPECT_EQ(stats->kept_tensors_expired(), 3);
  EXPECT_EQ(server->stop(), 0);
}

TEST(ClientRetry, UnavailableIsRetriedAcrossARestart) {
  if (!serverBuilt())
    GTEST_SKIP() << ANYSHAPE_SERVER_BINARY << " is not built";
  test::ScratchDir scratch; // the cache and the key the server puts beside it
  std::string cacheDir = scratch / "cache";
  auto first = startServer("127.0.0.1:0", cacheDir);
  ASSERT_NE(first, nullptr);
  std::string address = first->address();
  ClientOptions options;
  options.maxAttempts = 40;
  options.initialBackoff = milliseconds(20);
  options.maxBackoff = milliseconds(200);
  auto client = Client::connect(address, options);
  ASSERT_TRUE(client.isOk());
  auto compiled = (*client)->compile(denseGraph(7));
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  ASSERT_EQ(first->stop(), 0);

  // Nothing there: a client with few attempts gives up with UNAVAILABLE.
  ClientOptions impatient;
  impatient.maxAttempts = 2;
  impatient.initialBackoff = milliseconds(10);
  impatient.connectTimeout = milliseconds(200);
  EXPECT_EQ(Client::connect(address, impatient).status().code(),
            StatusCode::Unavailable);

  // A server back on the same port within the retries: the patient
  // client's calls, blocking and async, reach it.
  // The thread that starts it lives until it is stopped: the server dies
  // with the thread that forked it (test::ServerProcess).
  std::unique_ptr<test::ServerProcess> second;
  std::promise<void> started, finished;
  std::thread restart([&] {
    std::this_thread::sleep_for(milliseconds(300));
    second = startServer(address, cacheDir);
    started.set_value();
    finished.get_future().wait();
  });
  auto pending = (*client)->runAsync(*compiled, inputsFor(2, 0));
  auto stats = (*client)->stats();
  started.get_future().wait();
  if (!second) {
    finished.set_value();
    restart.join();
    FAIL() << "could not restart on " << address;
  }
  EXPECT_TRUE(stats.isOk()) << stats.status().toString();
  // The new server loads the executable from the shared cache directory
  // or does not know it; either way the run was not lost to UNAVAILABLE.
  Client::RunResult result = pending.get();
  EXPECT_NE(result.status().code(), StatusCode::Unavailable)
      << result.status().toString();
  EXPECT_EQ(second->stop(), 0);
  finished.set_value();
  restart.join();
}

TEST(ClientRetry, GivesUpAfterMaxAttempts) {
  if (!serverBuilt())
    GTEST_SKIP() << ANYSHAPE_SERVER_BINARY << " is not built";
  auto server = startServer();
  ASSERT_NE(server, nullptr);
  ClientOptions options;
  options.maxAttempts = 3;
  options.initialBackoff = milliseconds(10);
  auto client = Client::connect(server->address(), options);
  ASSERT_TRUE(client.isOk());
  ASSERT_EQ(server->stop(), 0);
  auto stats = (*client)->stats();
  ASSERT_FALSE(stats.isOk());
  EXPECT_EQ(stats.status().code(), StatusCode::Unavailable);
  EXPECT_NE(stats.status().message().find("after 3 attempts"),
            std::string::npos)
      << stats.status().message();
}

} // namespace
} // namespace anyshape::client

// Compiles out of process, against a real anyshape-server: a compile
// worker that aborts, is killed from outside, outlives its deadline, passes its
// memory or CPU-time limit, or is still running when a drain runs out of time
// fails its own request with the right code and a message, is counted, and
// leaves no process behind; the server and every other request carry on. So
// does a worker of another build; without a worker the server does not
// start. The misbehaviour is injected with the test-only
// --testing-compile-faults (a graph named anyshape-testing-FAULT).
#include "../support/ExampleGraph.h"
#include "../support/ServerProcess.h"
#include "../support/ServiceCalls.h"
#include "anyshape/client/GraphBuilder.h"
#include "ir/graph/ConstantData.h"
#include "runtime/support/Sanitizers.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <future>
#include <iterator>
#include <thread>
#include <vector>

using namespace anyshape;
using test::Called;
using test::compile;
using test::ServerProcess;
using test::stats;

namespace {

using Clock = std::chrono::steady_clock;

/// An example graph (not mlp: the good compiles use mlp, and names do not
/// enter the cache key) named so that its worker misbehaves.
v1::Graph faulty(const std::string &fault) {
  v1::Graph graph = test::exampleGraph("elementwise_reduce");
  graph.set_name("anyshape-testing-" + fault);
  return graph;
}

/// The server's live child processes, from /proc: compile workers, and
/// the one spare started and waiting for the next job.
std::vector<pid_t> childPids(pid_t server) {
  std::vector<pid_t> pids;
  std::string dir = "/proc/" + std::to_string(server) + "/task";
  if (DIR *tasks = ::opendir(dir.c_str())) {
    while (dirent *task = ::readdir(tasks)) {
      if (task->d_name[0] == '.')
        continue;
      std::ifstream in(dir + "/" + task->d_name + "/children");
      pid_t pid;
      while (in >> pid)
        pids.push_back(pid);
    }
    ::closedir(tasks);
  }
  return pids;
}

int childProcesses(pid_t server) {
  return static_cast<int>(childPids(server).size());
}

/// The server still compiles and answers: a good graph compiles (or is a
/// hit) and Stats answers.
void expectServing(v1::AnyShape::Stub &stub) {
  Called good = compile(stub, test::exampleGraph("mlp"));
  EXPECT_TRUE(good.status.ok()) << good.status.error_message();
}

TEST(CompileWorkers, AnAbortFailsOnlyItsRequest) {
  // The aborting worker first prints an assertion naming a source file
  // (/build/anyshape/...): the server's log has it, the client does not.
  std::string log =
      "/tmp/anyshape-abort-" + std::to_string(::getpid()) + ".log";
  ServerProcess server({"--testing-compile-faults"}, [&] {
    int fd =
        ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0)
      ::dup2(fd, STDERR_FILENO);
  });
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  Called aborted = compile(*stub, faulty("abort"));
  EXPECT_EQ(aborted.status.error_code(), grpc::StatusCode::INTERNAL);
  const std::string &message = aborted.status.error_message();
  EXPECT_NE(message.find("died of signal 6"), std::string::npos) << message;
  EXPECT_NE(message.find("server's log"), std::string::npos) << message;
  EXPECT_EQ(message.find('/'), std::string::npos)
      << "a server path reached the client: " << message;
  expectServing(*stub);
  v1::StatsResponse s = stats(*stub);
  EXPECT_EQ(s.compile_errors(), 1);
  EXPECT_EQ(s.compiles(), 1);
  EXPECT_EQ(childProcesses(server.pid()), 1) << "only the spare is left";
  EXPECT_EQ(server.stop(), 0);
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  std::remove(log.c_str());
  EXPECT_NE(text.find("compile_worker_failed"), std::string::npos) << text;
  EXPECT_NE(text.find("/build/anyshape/jit/Fake.cpp:1"), std::string::npos)
      << text;
}

TEST(CompileWorkers, AResultFromAnotherBuildIsRefused) {
  // Its objects were made by another compiler than the one the server's
  // cache key names: loading them would serve them under the wrong key.
  ServerProcess server({"--testing-compile-faults"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  Called foreign = compile(*stub, faulty("foreign-build"));
  EXPECT_EQ(foreign.status.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_NE(foreign.status.error_message().find("another build"),
            std::string::npos)
      << foreign.status.error_message();
  expectServing(*stub);
  EXPECT_EQ(stats(*stub).compile_errors(), 1);
  EXPECT_EQ(server.stop(), 0);
}

TEST(CompileWorkers, NoWorkerProgramIsARefusalToStart) {
  // The server links no compiler: without its worker it could serve no
  // miss, so it says so at startup instead of failing every compile.
  ServerProcess server({"--compile-worker-program", "/nonexistent/worker"});
  EXPECT_TRUE(server.address().empty());
  EXPECT_EQ(server.wait(), 1);
}

/// SIGKILL to each of the server's children (as the kernel's OOM killer
/// would send it); returns how many were signalled.
int killChildren(pid_t server) {
  int killed = 0;
  for (pid_t pid : childPids(server))
    killed += ::kill(pid, SIGKILL) == 0;
  return killed;
}

/// Whether `pid`'s main thread is in nanosleep or clock_nanosleep (x86-64
/// numbers 35 and 230): the "sleep" fault's worker once it has its job.
bool sleeping(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/syscall");
  long number = -1;
  return in >> number && (number == 35 || number == 230);
}

TEST(CompileWorkers, AWorkerKilledMidCompileFailsOnlyItsRequest) {
  ServerProcess server({"--testing-compile-faults"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  auto hung = std::async(std::launch::async,
                         [&] { return compile(*stub, faulty("sleep")); });
  // Killed mid-compile, not before it has its job (a worker killed before
  // that is not the job's fault, and the job would get another).
  auto compiling = [&] {
    for (pid_t pid : childPids(server.pid()))
      if (sleeping(pid))
        return true;
    return false;
  };
  for (int wait = 0; wait < 1000 && !compiling(); ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(compiling()) << "no worker began the compile in 10 s";
  ASSERT_EQ(childProcesses(server.pid()), 2);
  // The compiling worker and the spare: both die, from outside.
  ASSERT_EQ(killChildren(server.pid()), 2);
  Called killed = hung.get();
  EXPECT_EQ(killed.status.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_NE(killed.status.error_message().find("signal 9"), std::string::npos)
      << killed.status.error_message();
  // The next compile starts a worker of its own for the dead spare.
  expectServing(*stub);
  EXPECT_EQ(stats(*stub).compile_errors(), 1);
  EXPECT_EQ(server.stop(), 0);
}

// A spare that dies after the server last saw it alive (here: stopped,
// handed the job, then killed) never read its job; the job gets a fresh
// worker and succeeds. Killing a spare outright races with its exit, which
// under a sanitizer's teardown can outlast the next request.
TEST(CompileWorkers, ASpareKilledBeforeItsJobCostsTheJobNothing) {
  ServerProcess server({"--testing-compile-faults"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  expectServing(*stub); // leaves one spare
  for (int wait = 0; wait < 200 && childProcesses(server.pid()) != 1; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::vector<pid_t> spare = childPids(server.pid());
  ASSERT_EQ(spare.size(), 1u);
  ASSERT_EQ(::kill(spare[0], SIGSTOP), 0);
  auto next = std::async(std::launch::async, [&] {
    return compile(*stub, test::exampleGraph("elementwise_reduce"));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(::kill(spare[0], SIGKILL), 0);
  Called compiled = next.get();
  EXPECT_TRUE(compiled.status.ok()) << compiled.status.error_message();
  v1::StatsResponse s = stats(*stub);
  EXPECT_EQ(s.compile_errors(), 0);
  EXPECT_EQ(s.compiles(), 2);
  EXPECT_EQ(server.stop(), 0);
}

TEST(CompileWorkers, ACompilePastItsDeadlineIsStopped) {
  ServerProcess server({"--testing-compile-faults"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  Called late = compile(*stub, faulty("sleep"), {}, std::chrono::seconds(1));
  EXPECT_EQ(late.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(late.seconds, 10) << "the worker was not stopped at the deadline";
  // The worker is gone soon after (the server kills it at the deadline,
  // which the client's own deadline may precede by a little).
  for (int wait = 0; wait < 100 && childProcesses(server.pid()) > 1; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(childProcesses(server.pid()), 1) << "only the spare is left";
  expectServing(*stub);
  EXPECT_EQ(stats(*stub).compile_errors(), 1);
}

TEST(CompileWorkers, ACompileOverItsMemoryLimitIsResourceExhausted) {
  if (kSanitizedBuild)
    GTEST_SKIP() << "a sanitized build applies no address-space limit "
                    "(runtime/support/Sanitizers.h): the fault would take "
                    "the machine's memory";
  ServerProcess server(
      {"--testing-compile-faults", "--compile-memory-bytes", "2G"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  Called greedy = compile(*stub, faulty("allocate"));
  EXPECT_EQ(greedy.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(greedy.status.error_message().find("memory"), std::string::npos)
      << greedy.status.error_message();
  // A real graph compiles within the same limit.
  expectServing(*stub);
  EXPECT_EQ(childProcesses(server.pid()), 1) << "only the spare is left";
}

TEST(CompileWorkers, AGibibyteOfSeededWeightsCompilesInASmallWorker) {
  // 1 GiB of seeded f32 (inside maxConstantBytes) is generated when the
  // executable loads, in the server; the worker that compiles it never
  // holds it, so a 1 GiB address-space limit is plenty.
  ServerProcess server({"--compile-memory-bytes", "1G"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  client::GraphBuilder b("gibibyte_of_weights");
  const int64_t count = int64_t(1) << 28;
  client::Value w = b.seededUniform(v1::DTYPE_F32, {count}, 5, -2, 2);
  b.output(b.slice(w, {client::Dim(count - 8)}, {client::Dim(count)}), "tail");
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  Called compiled = compile(*stub, *graph);
  ASSERT_TRUE(compiled.status.ok()) << compiled.status.error_message();

  v1::ExecuteRequest request;
  request.set_executable_id(compiled.compiled.info().executable_id());
  grpc::ClientContext context;
  v1::ExecuteResponse response;
  ASSERT_TRUE(stub->Execute(&context, request, &response).ok());
  ASSERT_EQ(response.outputs_size(), 1);
  // The last 8 of the 2^28 elements, as the evaluator's generator makes
  // them (the whole constant, materialised here, would be another GiB).
  std::string expected(8 * 4, '\0');
  for (int k = 0; k < 8; ++k)
    encodeElement(-2 + 4 * seededUnit(5, count - 8 + k), v1::DTYPE_F32,
                  expected.data() + 4 * k);
  EXPECT_EQ(response.outputs(0).tensor().data(), expected);
}

TEST(CompileWorkers, ACompileOverItsCpuTimeLimitIsResourceExhausted) {
  ServerProcess server(
      {"--testing-compile-faults", "--compile-cpu-seconds", "1"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  Called spinning = compile(*stub, faulty("spin"));
  EXPECT_EQ(spinning.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(spinning.status.error_message().find("CPU-time limit"),
            std::string::npos)
      << spinning.status.error_message();
  expectServing(*stub);
}

TEST(CompileWorkers, SigtermWithACompileInFlightExitsAfterTheDrain) {
  ServerProcess server({"--testing-compile-faults", "--drain-seconds", "1"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  auto hung = std::async(std::launch::async,
                         [&] { return compile(*stub, faulty("sleep")); });
  // The sleeping worker and the spare started beside it.
  for (int wait = 0; wait < 200 && childProcesses(server.pid()) < 2; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(childProcesses(server.pid()), 2);
  auto start = Clock::now();
  server.terminate();
  int exitCode = server.wait();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(exitCode, 1); // work was cut off
  EXPECT_LT(seconds, 2.0) << "exit took longer than --drain-seconds + 1 s";
  Called stopped = hung.get();
  EXPECT_FALSE(stopped.status.ok());
  EXPECT_EQ(stopped.status.error_code(), grpc::StatusCode::UNAVAILABLE)
      << stopped.status.error_message();
}

} // namespace

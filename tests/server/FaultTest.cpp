// Faults against a real server process: killed with SIGKILL in the middle
// of a compile, then restarted over the same cache directory (nothing
// half-written is ever trusted: the entry already written loads, a torn
// temporary file and a truncated entry are refused); a cache directory it
// can no longer write, one on a full file system and one on a read-only
// file system (served from memory, counted, the cause logged); and clients
// that vanish in the middle of an upload or an execution, by a cancel and
// as a killed process (nothing stored, nothing left in flight: the drain
// still ends at once).
#include "../support/ExampleGraph.h"
#include "E2eSupport.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace anyshape;
using namespace anyshape::test;
using namespace std::chrono_literals;

namespace {

/// Writes the first half of `from` to `to`: what a write cut by a crash
/// leaves.
void writeHalf(const std::string &from, const std::string &to) {
  std::ifstream in(from, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  std::ofstream(to, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
}

TEST(ServerFaults, ASigkilledServerLeavesNothingThatIsTrusted) {
  std::string dir = freshDirectory();
  v1::Graph kept = exampleGraph("elementwise_reduce");
  v1::Graph cut = exampleGraph("mlp");
  std::string keptId;
  {
    // Every compile first waits 1.5 s: time to kill the second one.
    ServerProcess first(
        {"--cache-dir", dir, "--testing-compile-delay-ms", "1500"});
    ASSERT_FALSE(first.address().empty());
    auto stub = first.stub();
    keptId = compiledId(*stub, kept);
    ASSERT_FALSE(keptId.empty());
    std::thread inFlight(
        [&] { EXPECT_FALSE(compile(*stub, cut).status.ok()); });
    std::this_thread::sleep_for(500ms);
    ASSERT_EQ(::kill(first.pid(), SIGKILL), 0);
    inFlight.join();
    EXPECT_EQ(first.wait(), 128 + SIGKILL);
  }
  // What a crash during a write could leave besides: a temporary file cut
  // short, and (were a rename not atomic) a truncated entry under a key.
  std::string entry = cacheFileIn(dir);
  ASSERT_FALSE(entry.empty());
  const std::string torn = "0123456789abcdef0123456789abcdef";
  writeHalf(entry, dir + "/" + torn + ".anyshape.tmp.Ab12Cd");
  writeHalf(entry, dir + "/" + torn + ".anyshape");

  ServerProcess second({"--cache-dir", dir});
  ASSERT_FALSE(second.address().empty());
  auto stub = second.stub();
  Called again = compile(*stub, kept);
  ASSERT_TRUE(again.status.ok()) << again.status.error_message();
  EXPECT_TRUE(again.compiled.cache_hit());
  EXPECT_TRUE(
      executeAndCheck(*stub, keptId, kept, {{"rows", 7}, {"cols", 3}}, 1).ok());
  // The truncated entry is refused (a miss) and removed.
  grpc::ClientContext context;
  v1::GetExecutableRequest request;
  request.set_executable_id(torn);
  v1::ExecutableInfo info;
  EXPECT_EQ(stub->GetExecutable(&context, request, &info).error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_FALSE(std::filesystem::exists(dir + "/" + torn + ".anyshape"));
  // The compile that was cut compiles now, once.
  Called recompiled = compile(*stub, cut);
  ASSERT_TRUE(recompiled.status.ok()) << recompiled.status.error_message();
  EXPECT_FALSE(recompiled.compiled.cache_hit());
  v1::StatsResponse s = stats(*stub);
  EXPECT_EQ(s.disk_loads(), 1);
  EXPECT_EQ(s.compiles(), 1);
  EXPECT_EQ(s.cache_dropped_entries(), 1); // the truncated one
}

TEST(ServerFaults, ACacheDirectoryThatCannotBeWrittenCostsNothing) {
  // The directory disappears under a running server (as a full disk or a
  // read-only remount would refuse writes; CI runs as root, whom
  // permissions do not stop): compiles are served from memory, counted,
  // and nothing is lost for the clients.
  std::string dir = freshDirectory();
  ServerProcess server({"--cache-dir", dir});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  std::filesystem::remove_all(dir);
  v1::Graph graph = exampleGraph("mlp");
  std::string id = compiledId(*stub, graph);
  ASSERT_FALSE(id.empty());
  EXPECT_TRUE(executeAndCheck(*stub, id, graph, {{"batch", 6}}, 2).ok());
  Called again = compile(*stub, graph);
  ASSERT_TRUE(again.status.ok());
  EXPECT_TRUE(again.compiled.cache_hit()); // from memory
  v1::StatsResponse s = stats(*stub);
  EXPECT_EQ(s.compiles(), 1);
  EXPECT_EQ(s.cache_store_errors(), 1);
  EXPECT_EQ(server.stop(), 0);
}

/// In the server's child process, before it is executed: a mount
/// namespace of its own with a 16 KiB tmpfs on `dir` (a real file system
/// that fills up, smaller than any entry), mounted read-only if `flags`
/// has MS_RDONLY, and the server's stderr in `log`. Exits 126 when the
/// namespace or the mount is refused (not root, or no CAP_SYS_ADMIN in a
/// container). System calls only: the test has threads, the child just
/// one.
void mountCacheFileSystem(const char *dir, const char *log,
                          unsigned long flags) {
  if (::unshare(CLONE_NEWNS) != 0 ||
      ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
      ::mkdir(dir, 0700) != 0 ||
      ::mount("tmpfs", dir, "tmpfs", flags, "size=16k,mode=0700") != 0)
    ::_exit(126);
  int fd = ::open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0)
    ::dup2(fd, STDERR_FILENO);
}

/// The server's log (its stderr, as mountCacheFileSystem kept it).
std::string readLog(const std::string &log) {
  std::ifstream in(log);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

/// A server whose cache directory is a file system mounted with `flags`
/// (mountCacheFileSystem) on which every store fails with `cause`: two
/// graphs compile and run, a second compile is served from memory, each
/// failed store is counted and logged with its cause, and no client sees
/// an error.
void expectStoresRefusedCostNothing(unsigned long flags, const char *cause) {
  std::string dir = freshDirectory();
  std::string log = dir + ".log";
  ServerProcess server({"--cache-dir", dir}, [&] {
    mountCacheFileSystem(dir.c_str(), log.c_str(), flags);
  });
  if (server.address().empty() && server.wait() == 126)
    GTEST_SKIP() << "no private tmpfs can be mounted here (needs root or "
                    "CAP_SYS_ADMIN): this fault is not run";
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  v1::Graph graph = exampleGraph("mlp");
  std::string id = compiledId(*stub, graph);
  ASSERT_FALSE(id.empty());
  EXPECT_TRUE(executeAndCheck(*stub, id, graph, {{"batch", 5}}, 2).ok());
  Called again = compile(*stub, graph);
  ASSERT_TRUE(again.status.ok()) << again.status.error_message();
  EXPECT_TRUE(again.compiled.cache_hit()); // from memory
  v1::Graph other = exampleGraph("elementwise_reduce");
  EXPECT_TRUE(executeAndCheck(*stub, compiledId(*stub, other), other,
                              {{"rows", 3}, {"cols", 4}}, 1)
                  .ok());
  v1::StatsResponse s = stats(*stub);
  EXPECT_EQ(s.compiles(), 2);
  EXPECT_EQ(s.cache_store_errors(), 2);
  EXPECT_EQ(server.stop(), 0);
  std::string text = readLog(log);
  EXPECT_NE(text.find("cache_store_failed"), std::string::npos) << text;
  EXPECT_NE(text.find(cause), std::string::npos) << text;
}

TEST(ServerFaults, AReadOnlyCacheDirectoryCostsNothing) {
  // A read-only file system (a remount after a disk error): EROFS.
  expectStoresRefusedCostNothing(MS_RDONLY, "Read-only file system");
}

TEST(ServerFaults, AFullDiskCostsNothing) {
  // A file system with no room for an entry: ENOSPC.
  expectStoresRefusedCostNothing(0, "No space left on device");
}

TEST(ServerFaults, ClientsThatVanishMidRequestCostNothing) {
  // A client killed mid-call resets its stream; the server sees what
  // TryCancel makes it see.
  ServerProcess server({"--drain-seconds", "5"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();

  // An upload declared at 64 MiB, gone after its first MiB.
  for (int k = 0; k < 3; ++k) {
    grpc::ClientContext context;
    v1::UploadTensorResponse response;
    auto writer = stub->UploadTensor(&context, &response);
    v1::UploadTensorChunk chunk;
    chunk.set_dtype(v1::DTYPE_F32);
    chunk.add_shape(16 << 20);
    chunk.set_data(std::string(1 << 20, '\1'));
    ASSERT_TRUE(writer->Write(chunk));
    context.TryCancel();
    EXPECT_FALSE(writer->Finish().ok());
  }

  // Executions of a big input, gone right after they were sent.
  v1::Graph graph = exampleGraph("mlp");
  std::string id = compiledId(*stub, graph);
  ASSERT_FALSE(id.empty());
  auto shapes = inputShapesFor(graph, {{"batch", 1 << 14}});
  ASSERT_TRUE(shapes.isOk());
  auto inputs = randomInputs(graph, *shapes, 3);
  v1::ExecuteRequest request = executeRequest(id, graph, inputs.tensors);
  for (int k = 0; k < 3; ++k) {
    grpc::ClientContext context;
    v1::ExecuteResponse response;
    std::thread cancel([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(2 * k));
      context.TryCancel();
    });
    (void)stub->Execute(&context, request, &response);
    cancel.join();
  }

  // Nothing half-uploaded was stored, and whole requests still work.
  EXPECT_EQ(stats(*stub).stored_tensors(), 0);
  v1::Tensor whole;
  whole.set_dtype(v1::DTYPE_F32);
  whole.add_shape(4);
  whole.set_data(std::string(16, '\0'));
  v1::UploadTensorResponse uploaded;
  EXPECT_TRUE(upload(*stub, whole, 8, uploaded).ok());
  EXPECT_EQ(stats(*stub).stored_tensors(), 1);
  EXPECT_TRUE(executeAndCheck(*stub, id, graph, {{"batch", 5}}, 4).ok());
  // No request is left in flight: the drain ends at once, exit 0.
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(server.stop(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
}

/// A client process (VanishingClient.cpp) started with `args`, once it
/// says its request is on its way; killed with SIGKILL by kill().
class VanishingClient {
public:
  explicit VanishingClient(std::vector<std::string> args) {
    args.insert(args.begin(), ANYSHAPE_VANISHING_CLIENT);
    std::vector<char *> argv;
    for (std::string &arg : args)
      argv.push_back(arg.data());
    argv.push_back(nullptr);
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0)
      return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    char said[5] = {};
    sent_ =
        pid_ > 0 && ::read(out[0], said, 4) == 4 && std::string(said) == "sent";
    ::close(out[0]);
  }
  ~VanishingClient() { kill(); }
  bool sent() const { return sent_; }
  void kill() {
    if (pid_ <= 0)
      return;
    ::kill(pid_, SIGKILL);
    int status;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

private:
  pid_t pid_ = -1;
  bool sent_ = false;
};

/// Waits (up to 10 s) until the server handles `count` calls, the Stats
/// call that asks included; returns the last count seen.
int64_t awaitRequestsInFlight(v1::AnyShape::Stub &stub, int64_t count) {
  int64_t seen = stats(stub).requests_in_flight();
  for (int wait = 0; wait < 500 && seen != count; ++wait) {
    std::this_thread::sleep_for(20ms);
    seen = stats(stub).requests_in_flight();
  }
  return seen;
}

TEST(ServerFaults, AClientProcessKilledMidRequestCostsNothing) {
  // A client process dies (SIGKILL) while the server is in the middle of
  // its upload, then of its execution: the connection simply ends. The
  // server drops the half upload, finishes the run, answers no one, and
  // holds nothing for either afterwards.
  ServerProcess server({"--execute-threads", "1", "--drain-seconds", "5"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  ASSERT_EQ(stats(*stub).requests_in_flight(), 1); // this Stats call

  {
    VanishingClient client({server.address(), "upload"});
    ASSERT_TRUE(client.sent());
    ASSERT_EQ(awaitRequestsInFlight(*stub, 2), 2) << "the upload never began";
    client.kill();
  }
  EXPECT_EQ(awaitRequestsInFlight(*stub, 1), 1) << "the upload is still held";
  EXPECT_EQ(stats(*stub).stored_tensors(), 0);

  v1::Graph graph = exampleGraph("bert_encoder_layer");
  std::string id = compiledId(*stub, graph);
  ASSERT_FALSE(id.empty());
  auto shapes = inputShapesFor(graph, {{"batch", 8}, {"seq", 512}});
  ASSERT_TRUE(shapes.isOk());
  auto inputs = randomInputs(graph, *shapes, 5);
  v1::ExecuteRequest request = executeRequest(id, graph, inputs.tensors);
  std::string file = freshDirectory() + ".request";
  std::ofstream(file, std::ios::binary) << request.SerializeAsString();
  {
    VanishingClient client({server.address(), "execute", file});
    ASSERT_TRUE(client.sent());
    ASSERT_EQ(awaitRequestsInFlight(*stub, 2), 2) << "the run never began";
    client.kill();
  }
  std::remove(file.c_str());
  EXPECT_EQ(awaitRequestsInFlight(*stub, 1), 1) << "the run is still held";
  EXPECT_EQ(stats(*stub).executions(), 1);

  EXPECT_TRUE(
      executeAndCheck(*stub, id, graph, {{"batch", 1}, {"seq", 9}}, 6).ok());
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(server.stop(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
}

} // namespace

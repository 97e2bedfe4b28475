// A real anyshape-server process for end-to-end tests: started on
// 127.0.0.1 port 0 (or the --listen its arguments give) with a port file,
// stopped with SIGTERM, its exit code collected; it never outlives the
// test (PR_SET_PDEATHSIG: it gets SIGTERM when the thread that started it
// ends, so start it from one that outlives it). The channel to it is real gRPC
// over loopback. The one helper the server's and the client's end-to-end tests
// share.
#pragma once

#include "anyshape/v1/service.grpc.pb.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <future>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace anyshape::test {

class ServerProcess {
public:
  /// Starts the server with `args` (beyond --port-file, and --listen
  /// 127.0.0.1:0 unless they have one); empty address() on failure. `inChild`
  /// runs in the forked child before the server is executed (async-signal-safe
  /// calls only: the test has threads); it may _exit, which the server's exit
  /// code then shows.
  explicit ServerProcess(std::vector<std::string> args,
                         std::function<void()> inChild = {}) {
    portFile_ = "/tmp/anyshape-test-port-" + std::to_string(::getpid()) + "-" +
                std::to_string(counter()++);
    std::remove(portFile_.c_str());
    std::vector<std::string> argv{ANYSHAPE_SERVER_BINARY, "--port-file",
                                  portFile_};
    if (std::find(args.begin(), args.end(), "--listen") == args.end())
      argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM); // never outlive a crashed test
      if (inChild)
        inChild();
      std::vector<char *> raw;
      for (std::string &a : argv)
        raw.push_back(a.data());
      raw.push_back(nullptr);
      ::execv(raw[0], raw.data());
      ::_exit(127);
    }
    for (int waited = 0; waited < 600 && address_.empty(); ++waited) {
      std::ifstream in(portFile_);
      std::getline(in, address_);
      if (!address_.empty())
        break;
      // A server that refused to start says so by exiting: stop waiting.
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exitCode_ =
            WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  ~ServerProcess() {
    if (pid_ > 0 && exitCode_ < 0)
      stop();
    std::remove(portFile_.c_str());
  }

  const std::string &address() const { return address_; }
  pid_t pid() const { return pid_; }

  /// SIGTERM, then the exit code (or 128 + signal).
  int stop() {
    if (exitCode_ >= 0)
      return exitCode_;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    exitCode_ =
        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return exitCode_;
  }
  void terminate() { ::kill(pid_, SIGTERM); }
  int wait() {
    if (exitCode_ >= 0)
      return exitCode_;
    int status = 0;
    ::waitpid(pid_, &status, 0);
    exitCode_ =
        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return exitCode_;
  }

  std::shared_ptr<grpc::Channel> channel() const {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(256 << 20);
    args.SetMaxSendMessageSize(256 << 20);
    return grpc::CreateCustomChannel(address_,
                                     grpc::InsecureChannelCredentials(), args);
  }
  std::unique_ptr<v1::AnyShape::Stub> stub() const {
    return v1::AnyShape::NewStub(channel());
  }

private:
  static int &counter() {
    static int n = 0;
    return n;
  }
  pid_t pid_ = -1;
  int exitCode_ = -1;
  std::string portFile_;
  std::string address_;
};

/// grpc.health.v1.Health/Check with an empty service name, through the
/// generic stub (no generated health stubs needed): the SERVING status.
inline int healthStatus(const std::shared_ptr<grpc::Channel> &channel) {
  grpc::GenericStub generic(channel);
  grpc::ClientContext context;
  grpc::Slice empty(std::string{}); // an empty HealthCheckRequest
  grpc::ByteBuffer request(&empty, 1), response;
  std::promise<grpc::Status> done;
  generic.UnaryCall(&context, "/grpc.health.v1.Health/Check",
                    grpc::StubOptions(), &request, &response,
                    [&](grpc::Status s) { done.set_value(s); });
  if (!done.get_future().get().ok())
    return -1;
  std::vector<grpc::Slice> slices;
  response.Dump(&slices);
  std::string bytes;
  for (const grpc::Slice &s : slices)
    bytes.append(reinterpret_cast<const char *>(s.begin()), s.size());
  // HealthCheckResponse { status = 1 (field 1, varint) }.
  return bytes.size() == 2 && bytes[0] == 0x08 ? bytes[1] : 0;
}

} // namespace anyshape::test

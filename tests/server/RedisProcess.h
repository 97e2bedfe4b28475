// A real redis-server for the multi-server tests: started on a free
// loopback port with persistence off (nothing written to disk); stopped with
// SIGKILL (a crash, as the tests want it) and restartable on the same
// port. Tests skip, saying why, where no redis-server is installed
// (scripts/bootstrap installs it).
#pragma once

#include <hiredis/hiredis.h>

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <netinet/in.h>
#include <string>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace anyshape::test {

class RedisProcess {
public:
  /// Starts on a free port; ready() tells whether it answers.
  RedisProcess() : port_(freePort()) { start(); }
  ~RedisProcess() { kill(); }

  static bool installed() { return ::access(REDIS_SERVER_BINARY, X_OK) == 0; }

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  bool ready() const { return ready_; }

  /// Starts (again) on the same port; true once it answers PING.
  bool start() {
    std::string port = std::to_string(port_);
    std::vector<std::string> argv{REDIS_SERVER_BINARY,
                                  "--port",
                                  port,
                                  "--bind",
                                  "127.0.0.1",
                                  "--save",
                                  "",
                                  "--appendonly",
                                  "no",
                                  "--protected-mode",
                                  "no",
                                  "--loglevel",
                                  "warning",
                                  "--dir",
                                  "/tmp"};
    // Built before the fork: the child of a threaded test may only make
    // async-signal-safe calls.
    std::vector<char *> raw;
    for (std::string &a : argv)
      raw.push_back(a.data());
    raw.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);        // never outlive the test
      int quiet = ::open("/dev/null", O_WRONLY); // its startup banner
      if (quiet >= 0)
        ::dup2(quiet, STDOUT_FILENO);
      ::execv(raw[0], raw.data());
      ::_exit(127);
    }
    ready_ = false;
    for (int tries = 0; tries < 200 && !ready_; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
      ready_ = command({"PING"}) == "PONG";
    }
    return ready_;
  }

  /// SIGKILL: Redis gone at once, as in a crash (its data is lost).
  void kill() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    ready_ = false;
  }

  /// One command's reply as text (a string, status or integer), "" for
  /// nil, "ERROR ..." for an error or no connection.
  std::string command(const std::vector<std::string> &args) const {
    timeval timeout{1, 0};
    redisContext *context =
        redisConnectWithTimeout("127.0.0.1", port_, timeout);
    if (!context || context->err) {
      if (context)
        redisFree(context);
      return "ERROR no connection";
    }
    std::vector<const char *> argv;
    std::vector<size_t> lengths;
    for (const std::string &a : args) {
      argv.push_back(a.data());
      lengths.push_back(a.size());
    }
    auto *reply = static_cast<redisReply *>(redisCommandArgv(
        context, static_cast<int>(argv.size()), argv.data(), lengths.data()));
    std::string text = "ERROR no reply";
    if (reply) {
      if (reply->type == REDIS_REPLY_STRING ||
          reply->type == REDIS_REPLY_STATUS)
        text.assign(reply->str, reply->len);
      else if (reply->type == REDIS_REPLY_INTEGER)
        text = std::to_string(reply->integer);
      else if (reply->type == REDIS_REPLY_NIL)
        text.clear();
      else if (reply->type == REDIS_REPLY_ERROR)
        text = "ERROR " + std::string(reply->str, reply->len);
      freeReplyObject(reply);
    }
    redisFree(context);
    return text;
  }

private:
  /// A port the kernel just gave out (bound and released: another process
  /// could take it first, which start() then reports as not ready).
  static int freePort() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)) ==
            0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) == 0)
      port = ntohs(address.sin_port);
    ::close(fd);
    return port;
  }

  int port_;
  pid_t pid_ = -1;
  bool ready_ = false;
};

} // namespace anyshape::test

/// In a test: skips where no redis-server is installed, fails where the
/// one started did not answer.
#define REQUIRE_REDIS(redis)                                                   \
  if (!anyshape::test::RedisProcess::installed())                              \
    GTEST_SKIP() << "no redis-server (scripts/bootstrap installs it)";         \
  ASSERT_TRUE((redis).ready()) << "redis-server did not start"

// Commands to one Redis server through hiredis (Debian's libhiredis), for
// the shared cache tier (RedisCache.h): a small pool of connections, so
// concurrent requests do not queue behind one socket; a timeout on the
// connect and on every command, so a slow Redis costs a request at most
// that; and a breaker: after a failure Redis is skipped for `retryAfter`
// (every command UNAVAILABLE at once) rather than every request paying a
// connect timeout while it is down. Going down and coming back are logged
// once each.
//
// Debian 12's hiredis (0.14) has no TLS: a Redis across an untrusted
// network needs a TLS tunnel in front (docs/service.md).
#pragma once

#include "runtime/support/Status.h"

#include <atomic>
#include <chrono>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

struct redisContext;
struct redisReply;

namespace anyshape::server {

struct RedisOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  /// AUTH after connecting when a password is set (with a user: Redis 6
  /// ACLs).
  std::string user;
  std::string password;
  std::chrono::milliseconds timeout{500}; ///< connect, and each command
  std::chrono::milliseconds retryAfter{1000};
  int maxIdleConnections = 8;
};

/// "HOST:PORT" (an IPv6 host in brackets) into `options`.
Status parseRedisAddress(const std::string &address, RedisOptions &options);

/// One reply, owned.
class RedisReply {
public:
  explicit RedisReply(redisReply *reply) : reply_(reply) {}
  bool isString() const; ///< a bulk or status string
  bool isInteger() const;
  std::string_view string() const;
  long long integer() const;

private:
  struct Free {
    void operator()(redisReply *reply) const;
  };
  std::unique_ptr<redisReply, Free> reply_;
};

class RedisClient {
public:
  explicit RedisClient(RedisOptions options);
  ~RedisClient();
  RedisClient(const RedisClient &) = delete;
  RedisClient &operator=(const RedisClient &) = delete;

  /// Runs one command (binary-safe arguments). UNAVAILABLE when Redis
  /// cannot be reached, times out, or was skipped after a recent failure;
  /// an error reply is UNAVAILABLE too, with Redis's message.
  StatusOr<RedisReply> command(std::initializer_list<std::string_view> args);

  /// False while the breaker skips Redis.
  bool available() const;
  /// Commands that failed (unreachable, timed out, refused, skipped).
  int64_t errors() const { return errors_.load(); }
  std::string address() const;

private:
  struct FreeContext {
    void operator()(redisContext *context) const;
  };
  using Connection = std::unique_ptr<redisContext, FreeContext>;
  StatusOr<Connection> connect();
  Status fail(const std::string &why);

  const RedisOptions options_;
  mutable std::mutex mutex_;
  std::vector<Connection> idle_;
  std::chrono::steady_clock::time_point skipUntil_{};
  bool down_ = false; // for logging the transitions once
  std::atomic<int64_t> errors_{0};
};

} // namespace anyshape::server

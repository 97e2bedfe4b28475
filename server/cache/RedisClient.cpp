// Connections are taken from the idle pool (or made) under the lock and
// used without it; a connection whose command got no reply is dropped,
// never returned, since hiredis leaves it in an unknown state.
#include "server/cache/RedisClient.h"

#include "server/Log.h"

#include <hiredis/hiredis.h>

namespace anyshape::server {
namespace {

timeval toTimeval(std::chrono::milliseconds ms) {
  timeval tv;
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>(ms.count() % 1000 * 1000);
  return tv;
}

} // namespace

Status parseRedisAddress(const std::string &address, RedisOptions &options) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size())
    return invalidArgument("--redis wants HOST:PORT, not '" + address + "'");
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  int port = 0;
  for (char c : address.substr(colon + 1)) {
    if (c < '0' || c > '9' || port > 65535)
      return invalidArgument("--redis: '" + address.substr(colon + 1) +
                             "' is not a port");
    port = port * 10 + (c - '0');
  }
  if (port < 1 || port > 65535)
    return invalidArgument("--redis: the port must be 1..65535");
  options.host = host;
  options.port = port;
  return Status::ok();
}

void RedisReply::Free::operator()(redisReply *reply) const {
  freeReplyObject(reply);
}
bool RedisReply::isString() const {
  return reply_->type == REDIS_REPLY_STRING ||
         reply_->type == REDIS_REPLY_STATUS;
}
bool RedisReply::isInteger() const {
  return reply_->type == REDIS_REPLY_INTEGER;
}
std::string_view RedisReply::string() const {
  return isString() ? std::string_view(reply_->str, reply_->len)
                    : std::string_view();
}
long long RedisReply::integer() const {
  return isInteger() ? reply_->integer : 0;
}

void RedisClient::FreeContext::operator()(redisContext *context) const {
  redisFree(context);
}

RedisClient::RedisClient(RedisOptions options) : options_(std::move(options)) {}
RedisClient::~RedisClient() = default;

std::string RedisClient::address() const {
  return options_.host + ":" + std::to_string(options_.port);
}

bool RedisClient::available() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::chrono::steady_clock::now() >= skipUntil_;
}

Status RedisClient::fail(const std::string &why) {
  ++errors_;
  bool wasUp;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    skipUntil_ = std::chrono::steady_clock::now() + options_.retryAfter;
    wasUp = !down_;
    down_ = true;
    idle_.clear(); // they reach the same server: likely as broken
  }
  if (wasUp)
    logEvent("warning", "redis_unavailable",
             {{"redis", address()},
              {"message", why},
              {"retry_after_ms", std::to_string(options_.retryAfter.count())},
              {"serving_from", "local tiers"}});
  return Status(StatusCode::Unavailable, "Redis at " + address() + ": " + why);
}

StatusOr<RedisClient::Connection> RedisClient::connect() {
  Connection connection(redisConnectWithTimeout(
      options_.host.c_str(), options_.port, toTimeval(options_.timeout)));
  if (!connection)
    return fail("cannot allocate a connection");
  if (connection->err)
    return fail(connection->errstr);
  if (redisSetTimeout(connection.get(), toTimeval(options_.timeout)) !=
      REDIS_OK)
    return fail("cannot set the command timeout");
  if (!options_.password.empty()) {
    std::vector<const char *> argv{"AUTH"};
    std::vector<size_t> lengths{4};
    if (!options_.user.empty()) {
      argv.push_back(options_.user.data());
      lengths.push_back(options_.user.size());
    }
    argv.push_back(options_.password.data());
    lengths.push_back(options_.password.size());
    auto *reply = static_cast<redisReply *>(
        redisCommandArgv(connection.get(), static_cast<int>(argv.size()),
                         argv.data(), lengths.data()));
    if (!reply)
      return fail(connection->errstr);
    RedisReply owned(reply);
    if (reply->type == REDIS_REPLY_ERROR)
      return fail(std::string("AUTH refused: ") + reply->str);
  }
  return connection;
}

StatusOr<RedisReply>
RedisClient::command(std::initializer_list<std::string_view> args) {
  Connection connection;
  bool cameBack = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::chrono::steady_clock::now() < skipUntil_) {
      ++errors_;
      return Status(StatusCode::Unavailable,
                    "Redis at " + address() +
                        " is skipped after a recent failure");
    }
    if (!idle_.empty()) {
      connection = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  std::vector<const char *> argv;
  std::vector<size_t> lengths;
  for (std::string_view arg : args) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  // A pooled connection may have died idle (Redis restarted): one more
  // try on a fresh one before Redis counts as down.
  redisReply *raw = nullptr;
  for (bool pooled = connection != nullptr;; pooled = false) {
    if (!connection) {
      ANYSHAPE_ASSIGN_OR_RETURN(connection, connect());
    }
    raw = static_cast<redisReply *>(
        redisCommandArgv(connection.get(), static_cast<int>(argv.size()),
                         argv.data(), lengths.data()));
    if (raw)
      break;
    std::string why = connection->err ? connection->errstr : "no reply";
    connection.reset();
    if (!pooled)
      return fail(why);
  }
  RedisReply reply(raw);
  // The connection answered: it is sound whatever the reply says.
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cameBack = down_;
    down_ = false;
    if (static_cast<int>(idle_.size()) < options_.maxIdleConnections)
      idle_.push_back(std::move(connection));
  }
  if (cameBack)
    logEvent("info", "redis_available", {{"redis", address()}});
  if (raw->type == REDIS_REPLY_ERROR) {
    ++errors_;
    return Status(StatusCode::Unavailable,
                  "Redis at " + address() +
                      " refused: " + std::string(raw->str, raw->len));
  }
  return reply;
}

} // namespace anyshape::server

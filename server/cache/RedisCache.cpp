// Locking: mutex_ guards the held leases and the counters, never a Redis
// command. The keeper thread renews a snapshot of the held leases.
#include "server/cache/RedisCache.h"

#include "server/Log.h"
#include "server/cache/CacheKey.h"
#include "server/cache/EntryRecord.h"

#include <random>
#include <unistd.h>

namespace anyshape::server {
namespace {

// Compare the token, then act: a lease that expired and passed to another
// server is neither freed nor extended by its old holder.
constexpr std::string_view kReleaseScript =
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('del', KEYS[1]) else return 0 end";
constexpr std::string_view kRenewScript =
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

std::string processToken() {
  char host[64] = {};
  ::gethostname(host, sizeof(host) - 1);
  std::random_device random;
  uint64_t nonce = (uint64_t(random()) << 32) ^ random();
  return std::string(host) + ":" + std::to_string(::getpid()) + ":" +
         std::to_string(nonce) + ":";
}

} // namespace

class RedisCache::Lease : public CompileLease {
public:
  Lease(RedisCache &cache, std::string key, std::string token)
      : cache_(cache), key_(std::move(key)), token_(std::move(token)) {}
  ~Lease() override { cache_.release(key_, token_); }

private:
  RedisCache &cache_;
  const std::string key_;
  const std::string token_;
};

RedisCache::RedisCache(RedisCacheOptions options, std::string identity,
                       std::string entryKey)
    : options_(std::move(options)), identity_(std::move(identity)),
      entryKey_(std::move(entryKey)), client_(options_.redis),
      tokenPrefix_(processToken()) {
  keeper_ = std::thread([this] { keepLeases(); });
}

RedisCache::~RedisCache() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  keeper_.join();
}

StatusOr<StoredExecutable> RedisCache::fetch(const std::string &key) {
  if (!client_.available())
    return notFound("Redis is skipped after a recent failure");
  auto got = client_.command({"GET", entryName(key)});
  if (!got.isOk())
    return got.status();
  if (!got->isString())
    return notFound("no entry " + entryName(key) + " in Redis");
  auto entry = openEntry(std::string(got->string()), key, identity_, entryKey_);
  if (!entry.isOk()) {
    (void)client_.command({"DEL", entryName(key)});
    return Status(StatusCode::DataLoss, "dropped Redis entry " +
                                            entryName(key) + ": " +
                                            entry.status().message());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.hits;
  return entry;
}

StatusOr<StoredExecutable> RedisCache::load(const std::string &key) {
  if (!isCacheKey(key))
    return notFound("'" + key + "' is not a cache key");
  return fetch(key);
}

Status RedisCache::store(const std::string &key,
                         const StoredExecutable &entry) {
  if (!isCacheKey(key))
    return invalidArgument("'" + key + "' is not a cache key");
  if (!client_.available())
    return Status(StatusCode::Unavailable,
                  "Redis at " + client_.address() +
                      " is skipped after a recent failure");
  std::string record = sealEntry(entry, key, identity_, entryKey_);
  return client_.command({"SET", entryName(key), record}).status();
}

void RedisCache::remove(const std::string &key) {
  if (isCacheKey(key) && client_.available())
    (void)client_.command({"DEL", entryName(key)});
}

CacheTier::Claim RedisCache::claimCompile(const std::string &key) {
  if (!isCacheKey(key) || !client_.available())
    return {};
  std::string token;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    token = tokenPrefix_ + std::to_string(nextToken_++);
  }
  const std::string ttl = std::to_string(options_.leaseTtl.count());
  const auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::milliseconds(10);
  bool waited = false;
  while (true) {
    auto set = client_.command({"SET", leaseName(key), token, "NX", "PX", ttl});
    if (!set.isOk())
      return {}; // compile here, without a lease
    if (set->isString()) {
      // Ours. The compile waited for may have finished just now (or its
      // server stored the entry and then died): look once more.
      auto entry = fetch(key);
      if (entry.isOk()) {
        release(key, token);
        return {std::move(*entry), nullptr};
      }
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.leasesTaken;
      if (waited)
        ++stats_.leaseTakeovers; // its holder died or its compile failed
      held_.emplace(key, token);
      return {std::nullopt, std::make_unique<Lease>(*this, key, token)};
    }
    // Another server holds the lease: wait for its entry.
    if (!waited) {
      waited = true;
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.leaseWaits;
    }
    if (std::chrono::steady_clock::now() - start > options_.leaseWait) {
      logEvent("warning", "redis_lease_wait_exceeded",
               {{"key", key},
                {"waited_ms", std::to_string(options_.leaseWait.count())},
                {"action", "compiling here too"}});
      return {};
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(200));
  }
}

void RedisCache::release(const std::string &key, const std::string &token) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    held_.erase({key, token});
  }
  // A failure here only leaves the lease to expire.
  (void)client_.command({"EVAL", kReleaseScript, "1", leaseName(key), token});
}

void RedisCache::keepLeases() {
  const std::string ttl = std::to_string(options_.leaseTtl.count());
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, options_.leaseTtl / 3);
    if (stopping_)
      break;
    auto held = held_;
    lock.unlock();
    for (const auto &[key, token] : held) {
      auto renewed = client_.command(
          {"EVAL", kRenewScript, "1", leaseName(key), token, ttl});
      if (renewed.isOk() && renewed->integer() == 0)
        logEvent("warning", "redis_lease_lost",
                 {{"key", key},
                  {"message", "expired before it was renewed; another "
                              "server may compile it too"}});
    }
    lock.lock();
  }
}

RedisCacheStats RedisCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  RedisCacheStats s = stats_;
  s.errors = client_.errors();
  s.available = client_.available();
  return s;
}

} // namespace anyshape::server

// The shared cache tier: entries in one Redis that several servers use,
// behind each server's memory and disk, so every server serves what any
// of them compiled (DESIGN.md "Scale-out"; docs/service.md, "Several
// servers").
//
// Entries are the disk tier's records (EntryRecord.h), under
// PREFIX "entry:" KEY: authenticated with the entry key every server of
// the fleet holds, so write access to Redis is not enough to make a
// server run code; a record that does not open is deleted and
// recompiled, never executed.
//
// Compiles are leased, so one compile serves the fleet: a server that
// misses everywhere sets PREFIX "lease:" KEY to a token of its own (SET NX
// with a TTL) and compiles; the others poll until the lease is gone, then
// read the entry the holder wrote before releasing it. The holder renews
// its leases every TTL/3 from a keeper thread; a holder that dies stops
// renewing, its lease expires, and the next poller takes it over and
// compiles. Releasing and renewing compare the token first (a Lua script),
// so a server never frees or extends a lease that has passed to another.
//
// Redis down or slow costs at most its timeout (RedisClient.h) and never
// a request: loads miss, stores are counted as failed, claims compile
// locally without a lease.
#pragma once

#include "server/cache/CacheTier.h"
#include "server/cache/RedisClient.h"

#include <condition_variable>
#include <set>
#include <thread>

namespace anyshape::server {

struct RedisCacheOptions {
  RedisOptions redis;
  std::string prefix = "anyshape:";
  std::chrono::milliseconds leaseTtl{10000};
  /// How long a server waits for another's compile before compiling too.
  std::chrono::milliseconds leaseWait{120000};
};

struct RedisCacheStats {
  int64_t hits = 0;
  int64_t errors = 0; ///< failed commands (RedisClient::errors)
  int64_t leasesTaken = 0;
  int64_t leaseWaits = 0;     ///< claims that waited for another's compile
  int64_t leaseTakeovers = 0; ///< leases taken after the holder's expired
  bool available = false;
};

class RedisCache : public CacheTier {
public:
  /// Does not need Redis to be up: a server starts, and serves from its
  /// local tiers, until it is.
  RedisCache(RedisCacheOptions options, std::string identity,
             std::string entryKey);
  ~RedisCache() override;

  StatusOr<StoredExecutable> load(const std::string &key) override;
  Status store(const std::string &key, const StoredExecutable &entry) override;
  void remove(const std::string &key) override;
  Claim claimCompile(const std::string &key) override;

  RedisCacheStats stats() const;
  std::string entryName(const std::string &key) const {
    return options_.prefix + "entry:" + key;
  }
  std::string leaseName(const std::string &key) const {
    return options_.prefix + "lease:" + key;
  }

private:
  class Lease;
  /// The entry's record opened, or why not: NOT_FOUND when absent (or
  /// Redis skipped), UNAVAILABLE when Redis failed, DATA_LOSS (deleted).
  StatusOr<StoredExecutable> fetch(const std::string &key);
  void release(const std::string &key, const std::string &token);
  void keepLeases();

  const RedisCacheOptions options_;
  const std::string identity_;
  const std::string entryKey_;
  RedisClient client_;
  const std::string tokenPrefix_; // this process's, unique in the fleet

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::set<std::pair<std::string, std::string>> held_; // key, token
  int64_t nextToken_ = 0;
  bool stopping_ = false;
  RedisCacheStats stats_;
  std::thread keeper_;
};

} // namespace anyshape::server

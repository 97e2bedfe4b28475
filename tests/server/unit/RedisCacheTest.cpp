// The shared Redis tier (server/cache/RedisCache.h) against a real
// redis-server on loopback: records round-trip; a record the fleet's key
// did not seal is refused and deleted; the compile lease makes a second
// server wait for the first's entry, and passes to it when the first
// stops renewing; Redis absent or killed costs a bounded time and fails
// nothing.
#include "server/cache/RedisCache.h"

#include "../RedisProcess.h"
#include "ServiceTestSupport.h"

#include <gtest/gtest.h>

#include <future>

using namespace anyshape;
using namespace anyshape::server;
using anyshape::test::RedisProcess;
using Clock = std::chrono::steady_clock;

namespace {

const std::string kKey = "0123456789abcdef0123456789abcdef";
const std::string kIdentity = "anyshape.v1;build=test;llvm=19;x86_64";
const std::string kEntryKey(32, 'k');

StoredExecutable sampleEntry(const std::string &tag = "a") {
  return test::sampleStoredExecutable(kKey, tag);
}

RedisCacheOptions optionsFor(
    const RedisProcess &redis,
    std::chrono::milliseconds leaseTtl = std::chrono::milliseconds(10000)) {
  RedisCacheOptions options;
  options.redis.host = "127.0.0.1";
  options.redis.port = redis.port();
  options.redis.timeout = std::chrono::milliseconds(300);
  options.redis.retryAfter = std::chrono::milliseconds(200);
  options.leaseTtl = leaseTtl;
  return options;
}

TEST(RedisCache, RecordsRoundTripAndForeignOnesAreDeleted) {
  RedisProcess redis;
  REQUIRE_REDIS(redis);
  RedisCache cache(optionsFor(redis), kIdentity, kEntryKey);
  EXPECT_EQ(cache.load(kKey).status().code(), StatusCode::NotFound);
  ASSERT_TRUE(cache.store(kKey, sampleEntry()).isOk());
  auto loaded = cache.load(kKey);
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  EXPECT_EQ(loaded->objectCode, sampleEntry().objectCode);
  EXPECT_EQ(loaded->info.fusion_plan(), "plan a");
  EXPECT_EQ(cache.stats().hits, 1);

  // Sealed under another key (a server outside the fleet, or anyone who
  // can write to Redis): refused, not NOT_FOUND, and gone from Redis.
  RedisCache stranger(optionsFor(redis), kIdentity, std::string(32, 'x'));
  ASSERT_TRUE(stranger.store(kKey, sampleEntry("evil")).isOk());
  auto refused = cache.load(kKey);
  EXPECT_EQ(refused.status().code(), StatusCode::DataLoss);
  EXPECT_NE(refused.status().message().find("not authenticated"),
            std::string::npos);
  EXPECT_EQ(redis.command({"EXISTS", cache.entryName(kKey)}), "0");

  // One flipped byte in a record the fleet did write.
  ASSERT_TRUE(cache.store(kKey, sampleEntry()).isOk());
  std::string record = redis.command({"GET", cache.entryName(kKey)});
  record[record.size() / 2] ^= 0x10;
  ASSERT_EQ(redis.command({"SET", cache.entryName(kKey), record}), "OK");
  EXPECT_EQ(cache.load(kKey).status().code(), StatusCode::DataLoss);

  // Another compiler build's record under the right key.
  RedisCache otherBuild(optionsFor(redis), "anyshape.v1;build=other",
                        kEntryKey);
  ASSERT_TRUE(otherBuild.store(kKey, sampleEntry()).isOk());
  EXPECT_EQ(cache.load(kKey).status().code(), StatusCode::DataLoss);
}

TEST(RedisCache, ASecondServerWaitsForTheFirstsCompile) {
  RedisProcess redis;
  REQUIRE_REDIS(redis);
  RedisCache first(optionsFor(redis), kIdentity, kEntryKey);
  RedisCache second(optionsFor(redis), kIdentity, kEntryKey);
  CacheTier::Claim claim = first.claimCompile(kKey);
  ASSERT_TRUE(claim.lease);
  ASSERT_FALSE(claim.entry);
  EXPECT_NE(redis.command({"GET", first.leaseName(kKey)}), "");

  auto waiting =
      std::async(std::launch::async, [&] { return second.claimCompile(kKey); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(300)),
            std::future_status::timeout);
  // The first stores its result, then lets go of the lease.
  ASSERT_TRUE(first.store(kKey, sampleEntry()).isOk());
  claim.lease.reset();
  CacheTier::Claim served = waiting.get();
  ASSERT_TRUE(served.entry);
  EXPECT_FALSE(served.lease);
  EXPECT_EQ(served.entry->objectCode, sampleEntry().objectCode);
  EXPECT_EQ(second.stats().leaseWaits, 1);
  EXPECT_EQ(redis.command({"EXISTS", first.leaseName(kKey)}), "0");
}

TEST(RedisCache, LeasesAreRenewedAndPassOnWhenTheirHolderStops) {
  RedisProcess redis;
  REQUIRE_REDIS(redis);
  const auto ttl = std::chrono::milliseconds(600);
  {
    // A holder that lives renews: after 4 TTLs its lease is still there.
    RedisCache holder(optionsFor(redis, ttl), kIdentity, kEntryKey);
    CacheTier::Claim claim = holder.claimCompile(kKey);
    ASSERT_TRUE(claim.lease);
    std::this_thread::sleep_for(ttl * 4);
    EXPECT_EQ(redis.command({"EXISTS", holder.leaseName(kKey)}), "1");
    claim.lease.reset();
    EXPECT_EQ(redis.command({"EXISTS", holder.leaseName(kKey)}), "0");
  }
  // A holder that died: its lease is a key nobody renews.
  RedisCache survivor(optionsFor(redis, ttl), kIdentity, kEntryKey);
  ASSERT_EQ(redis.command({"SET", survivor.leaseName(kKey), "dead-server", "PX",
                           std::to_string(ttl.count())}),
            "OK");
  auto start = Clock::now();
  CacheTier::Claim claim = survivor.claimCompile(kKey);
  auto waited = Clock::now() - start;
  ASSERT_TRUE(claim.lease);
  EXPECT_GE(waited, ttl / 2);
  EXPECT_LT(waited, ttl * 4);
  EXPECT_EQ(survivor.stats().leaseTakeovers, 1);
  // Released by the token: the old holder's value is not ours to delete.
  ASSERT_EQ(redis.command({"SET", survivor.leaseName(kKey), "someone-else"}),
            "OK");
  claim.lease.reset();
  EXPECT_EQ(redis.command({"GET", survivor.leaseName(kKey)}), "someone-else");
}

TEST(RedisCache, RedisDownCostsABoundedTimeAndFailsNothing) {
  if (!RedisProcess::installed())
    GTEST_SKIP() << "no redis-server (scripts/bootstrap installs it)";
  RedisProcess redis;
  ASSERT_TRUE(redis.ready());
  RedisCache cache(optionsFor(redis), kIdentity, kEntryKey);
  ASSERT_TRUE(cache.store(kKey, sampleEntry()).isOk());
  redis.kill();
  auto start = Clock::now();
  EXPECT_EQ(cache.load(kKey).status().code(), StatusCode::Unavailable);
  // Skipped while the breaker is open: answers at once.
  auto skipped = Clock::now();
  EXPECT_EQ(cache.load(kKey).status().code(), StatusCode::NotFound);
  EXPECT_FALSE(cache.store(kKey, sampleEntry()).isOk());
  CacheTier::Claim claim = cache.claimCompile(kKey);
  EXPECT_FALSE(claim.lease);
  EXPECT_FALSE(claim.entry);
  EXPECT_LT(Clock::now() - skipped, std::chrono::milliseconds(100));
  EXPECT_LT(skipped - start, std::chrono::milliseconds(1000));
  EXPECT_FALSE(cache.stats().available);
  EXPECT_GE(cache.stats().errors, 1);

  // Back (empty: it lost its data): the breaker closes after retryAfter.
  ASSERT_TRUE(redis.start());
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_EQ(cache.load(kKey).status().code(), StatusCode::NotFound);
  EXPECT_TRUE(cache.store(kKey, sampleEntry()).isOk());
  EXPECT_TRUE(cache.load(kKey).isOk());
  EXPECT_TRUE(cache.stats().available);
}

TEST(RedisCache, AddressesParseOrSayWhy) {
  RedisOptions options;
  EXPECT_TRUE(parseRedisAddress("10.0.0.7:6380", options).isOk());
  EXPECT_EQ(options.host, "10.0.0.7");
  EXPECT_EQ(options.port, 6380);
  EXPECT_TRUE(parseRedisAddress("[::1]:6379", options).isOk());
  EXPECT_EQ(options.host, "::1");
  for (const char *bad : {"", "host", "host:", ":6379", "host:0", "host:65536",
                          "host:12x", "host:99999999999"})
    EXPECT_EQ(parseRedisAddress(bad, options).code(),
              StatusCode::InvalidArgument)
        << bad;
}

} // namespace

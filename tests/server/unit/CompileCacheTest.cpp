// The compile cache (server/cache/CompileCache.h) with a real, tiny
// executable compiled once per suite: single flight, shared but uncached
// errors, the byte-bounded LRU, executables that outlive eviction, and
// the disk tier that lets a restarted cache serve without compiling.
#include "server/cache/CompileCache.h"

#include "compiler/Compiler.h"
#include "ir/graph/Bindings.h"
#include "server/cache/DiskCache.h"

#include "RandomInputs.h"
#include "ServiceTestSupport.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

using namespace anyshape;
using namespace anyshape::server;
using anyshape::test::ScratchDir;

namespace {

const std::string kIdentity = "anyshape.v1;build=test";

std::string keyOf(int k) {
  char key[33];
  std::snprintf(key, sizeof(key), "%032x", k);
  return key;
}

/// Runs an executable at one shape and returns its outputs' bytes.
std::vector<std::string> runOnce(const jit::Executable &executable,
                                 uint64_t seed = 7) {
  auto shapes = inputShapesFor(executable.graph(), {{"rows", 3}, {"cols", 5}});
  EXPECT_TRUE(shapes.isOk()) << shapes.status().toString();
  if (!shapes.isOk())
    return {};
  auto inputs = test::randomInputs(executable.graph(), *shapes, seed);
  auto outputs = executable.run(inputs.tensors);
  EXPECT_TRUE(outputs.isOk()) << outputs.status().toString();
  std::vector<std::string> bytes;
  if (outputs.isOk())
    for (const v1::Tensor &output : *outputs)
      bytes.push_back(output.data());
  return bytes;
}

class CompileCacheTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    auto compiled =
        compiler::Compiler::compile(test::exampleGraph("elementwise_reduce"));
    ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
    compiled_ = new std::shared_ptr<jit::Executable>(*compiled);
    expected_ = new std::vector<std::string>(runOnce(**compiled_));
    ASSERT_EQ(expected_->size(), 3u);
  }
  static void TearDownTestSuite() {
    delete compiled_;
    delete expected_;
    compiled_ = nullptr;
    expected_ = nullptr;
  }

  static v1::ExecutableInfo infoFor(const std::string &key) {
    v1::ExecutableInfo info;
    info.set_executable_id(key);
    info.set_kernel_count(2);
    return info;
  }

  /// The bytes one entry counts against the memory bound.
  static int64_t entryBytes(const std::string &key) {
    return static_cast<int64_t>((*compiled_)->objectCode().size() +
                                infoFor(key).ByteSizeLong());
  }

  /// Compiles by returning the suite's executable: counts its calls.
  CompileCache::CompileFunction sharedCompile(const std::string &key) {
    return [this, key]() -> StatusOr<CachedExecutable> {
      ++calls_;
      return CachedExecutable{*compiled_, infoFor(key), 0};
    };
  }

  /// Compiles by linking a private copy of the executable, so the cache
  /// and its callers are its only owners.
  CompileCache::CompileFunction privateCompile(const std::string &key) {
    return [this, key]() -> StatusOr<CachedExecutable> {
      ++calls_;
      auto linked = jit::Executable::load((*compiled_)->graph(),
                                          (*compiled_)->objectCode());
      if (!linked.isOk())
        return linked.status();
      return CachedExecutable{*linked, infoFor(key), 0};
    };
  }

  static std::vector<std::unique_ptr<CacheTier>>
  diskTier(const std::string &dir) {
    std::vector<std::unique_ptr<CacheTier>> tiers;
    auto disk = DiskCache::open(dir, kIdentity, std::string(32, 'k'));
    EXPECT_TRUE(disk.isOk()) << disk.status().toString();
    if (disk.isOk())
      tiers.push_back(std::move(*disk));
    return tiers;
  }

  static std::shared_ptr<jit::Executable> *compiled_;
  static std::vector<std::string> *expected_;
  std::atomic<int> calls_{0};
};

std::shared_ptr<jit::Executable> *CompileCacheTest::compiled_ = nullptr;
std::vector<std::string> *CompileCacheTest::expected_ = nullptr;

/// A tier whose answers the test scripts: counts calls, can be slow.
class FakeTier : public CacheTier {
public:
  struct Shared {
    std::atomic<int> loads{0}, stores{0}, removes{0};
    std::chrono::milliseconds loadDelay{0};
    // load() returns this when set, NOT_FOUND otherwise.
    std::optional<StatusOr<StoredExecutable>> answer;
    // store() fails with this when set.
    std::optional<Status> storeError;
  };
  explicit FakeTier(std::shared_ptr<Shared> shared)
      : shared_(std::move(shared)) {}

  StatusOr<StoredExecutable> load(const std::string &key) override {
    ++shared_->loads;
    std::this_thread::sleep_for(shared_->loadDelay);
    if (shared_->answer)
      return *shared_->answer;
    return notFound("no " + key);
  }
  Status store(const std::string &, const StoredExecutable &) override {
    ++shared_->stores;
    return shared_->storeError ? *shared_->storeError : Status::ok();
  }
  void remove(const std::string &) override { ++shared_->removes; }

private:
  std::shared_ptr<Shared> shared_;
};

TEST_F(CompileCacheTest, CompilesOnceThenServesFromMemory) {
  CompileCache cache(1 << 30, {});
  auto first = cache.getOrCompile(keyOf(1), sharedCompile(keyOf(1)));
  ASSERT_TRUE(first.isOk()) << first.status().toString();
  EXPECT_EQ(first->source, CacheSource::Compiled);
  auto second = cache.getOrCompile(keyOf(1), sharedCompile(keyOf(1)));
  ASSERT_TRUE(second.isOk());
  EXPECT_EQ(second->source, CacheSource::Memory);
  EXPECT_EQ(second->entry, first->entry);
  EXPECT_EQ(calls_, 1);
  EXPECT_EQ(runOnce(*second->entry->executable), *expected_);
  // The compile function's byte count is replaced by the real one.
  EXPECT_EQ(first->entry->bytes, entryBytes(keyOf(1)));
  CompileCacheStats stats = cache.stats();
  EXPECT_EQ(stats.bytes, entryBytes(keyOf(1)));
  EXPECT_EQ(stats.loaded, 1);
}

TEST_F(CompileCacheTest, ConcurrentRequestsShareOneCompile) {
  CompileCache cache(1 << 30, {});
  constexpr int kThreads = 8;
  std::atomic<int> entered{0};
  std::atomic<bool> go{false};
  CompileCache::CompileFunction slow = [&]() -> StatusOr<CachedExecutable> {
    ++calls_;
    while (entered < kThreads)
      std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return CachedExecutable{*compiled_, infoFor(keyOf(1)), 0};
  };
  std::vector<StatusOr<CacheResult>> results(
      kThreads, StatusOr<CacheResult>(notFound("not run")));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      while (!go)
        std::this_thread::yield();
      ++entered;
      results[t] = cache.getOrCompile(keyOf(1), slow);
    });
  go = true;
  for (std::thread &thread : threads)
    thread.join();

  EXPECT_EQ(calls_, 1);
  int compiled = 0;
  for (const auto &result : results) {
    ASSERT_TRUE(result.isOk()) << result.status().toString();
    EXPECT_EQ(result->entry, results[0]->entry);
    compiled += result->source == CacheSource::Compiled;
  }
  EXPECT_EQ(compiled, 1);
  CompileCacheStats stats = cache.stats();
  EXPECT_EQ(stats.compiles, 1);
  EXPECT_EQ(stats.memoryHits, kThreads - 1);
  EXPECT_EQ(stats.loaded, 1);
}

TEST_F(CompileCacheTest, ErrorsAreSharedButNotCached) {
  CompileCache cache(1 << 30, {});
  constexpr int kThreads = 6;
  std::atomic<int> entered{0};
  CompileCache::CompileFunction failing = [&]() -> StatusOr<CachedExecutable> {
    ++calls_;
    while (entered < kThreads)
      std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return invalidArgument("the graph is wrong in a memorable way");
  };
  std::vector<Status> statuses(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ++entered;
      statuses[t] = cache.getOrCompile(keyOf(1), failing).status();
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(calls_, 1);
  for (const Status &status : statuses) {
    EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
    EXPECT_NE(status.message().find("memorable"), std::string::npos)
        << status.toString();
  }
  EXPECT_EQ(cache.stats().compileErrors, 1);
  EXPECT_EQ(cache.stats().loaded, 0);

  // Not cached: the next request compiles again, and succeeds.
  auto retry = cache.getOrCompile(keyOf(1), sharedCompile(keyOf(1)));
  ASSERT_TRUE(retry.isOk()) << retry.status().toString();
  EXPECT_EQ(retry->source, CacheSource::Compiled);
  EXPECT_EQ(calls_, 2);
  EXPECT_EQ(cache.stats().compiles, 1);
}

TEST_F(CompileCacheTest, FindOnAMissIsNotFoundAndDoesNotCompile) {
  CompileCache cache(1 << 30, {});
  int64_t compiles = compiler::Compiler::compileCount();
  auto found = cache.find(keyOf(1));
  ASSERT_FALSE(found.isOk());
  EXPECT_EQ(found.status().code(), StatusCode::NotFound);
  EXPECT_EQ(compiler::Compiler::compileCount(), compiles);
  CompileCacheStats stats = cache.stats();
  EXPECT_EQ(stats.compiles, 0);
  EXPECT_EQ(stats.compileErrors, 0);
  EXPECT_EQ(stats.loaded, 0);
}

TEST_F(CompileCacheTest, MemoryHitsCountCompileRequestsOnly) {
  CompileCache cache(1 << 30, {});
  ASSERT_TRUE(cache.getOrCompile(keyOf(1), sharedCompile(keyOf(1))).isOk());
  for (int k = 0; k < 3; ++k) {
    auto found = cache.find(keyOf(1));
    ASSERT_TRUE(found.isOk());
    EXPECT_EQ(found->source, CacheSource::Memory);
  }
  EXPECT_EQ(cache.stats().memoryHits, 0);
  for (int k = 0; k < 2; ++k)
    ASSERT_TRUE(cache.getOrCompile(keyOf(1), sharedCompile(keyOf(1))).isOk());
  CompileCacheStats stats = cache.stats();
  EXPECT_EQ(stats.memoryHits, 2);
  EXPECT_EQ(stats.compiles, 1);
  EXPECT_EQ(stats.tierLoads, 0);
  EXPECT_EQ(stats.evictions, 0);
  EXPECT_EQ(calls_, 1);
}

TEST_F(CompileCacheTest, FindWithoutWaitingNeverWaitsForACompile) {
  // A compile request's first look (on the execute pool): a miss is
  // NOT_FOUND, a key in flight UNAVAILABLE at once, a loaded key a hit.
  CompileCache cache(1 << 30, {});
  EXPECT_EQ(cache.findWithoutWaiting(keyOf(1)).status().code(),
            StatusCode::NotFound);
  std::atomic<bool> started{false}, release{false};
  CompileCache::CompileFunction held = [&]() -> StatusOr<CachedExecutable> {
    started = true;
    while (!release)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return CachedExecutable{*compiled_, infoFor(keyOf(1)), 0};
  };
  std::thread compiling([&] { (void)cache.getOrCompile(keyOf(1), held); });
  while (!started)
    std::this_thread::yield();
  // Answered while the compile is held: were it waiting, this would hang.
  EXPECT_EQ(cache.findWithoutWaiting(keyOf(1)).status().code(),
            StatusCode::Unavailable);
  release = true;
  compiling.join();
  auto hit = cache.findWithoutWaiting(keyOf(1));
  ASSERT_TRUE(hit.isOk()) << hit.status().toString();
  EXPECT_EQ(hit->source, CacheSource::Memory);
  EXPECT_EQ(cache.stats().memoryHits, 1); // a compile request's hit
  EXPECT_EQ(cache.stats().compiles, 1);
}

TEST_F(CompileCacheTest, ACompileThatThrowsCountsAsACompileError) {
  CompileCache cache(1 << 30, {});
  CompileCache::CompileFunction throwing = []() -> StatusOr<CachedExecutable> {
    throw std::bad_alloc();
  };
  Status status = cache.getOrCompile(keyOf(1), throwing).status();
  EXPECT_EQ(status.code(), StatusCode::Internal);
  EXPECT_NE(status.message().find("compile failed"), std::string::npos);
  EXPECT_EQ(cache.stats().compileErrors, 1);
}

TEST_F(CompileCacheTest, LeastRecentlyUsedIsEvictedFirst) {
  // Room for two entries (equal keys lengths make equal sizes).
  int64_t one = entryBytes(keyOf(1));
  CompileCache cache(2 * one + one / 2, {});
  ASSERT_TRUE(cache.getOrCompile(keyOf(1), sharedCompile(keyOf(1))).isOk());
  ASSERT_TRUE(cache.getOrCompile(keyOf(2), sharedCompile(keyOf(2))).isOk());
  EXPECT_EQ(cache.stats().evictions, 0);
  // Use 1 again, so 2 is the least recent.
  ASSERT_TRUE(cache.find(keyOf(1)).isOk());
  ASSERT_TRUE(cache.getOrCompile(keyOf(3), sharedCompile(keyOf(3))).isOk());

  CompileCacheStats stats = cache.stats();
  EXPECT_EQ(stats.evictions, 1);
  EXPECT_EQ(stats.loaded, 2);
  EXPECT_EQ(stats.bytes, 2 * one);
  EXPECT_LE(stats.bytes, 2 * one + one / 2);
  EXPECT_EQ(cache.find(keyOf(2)).status().code(), StatusCode::NotFound);
  EXPECT_TRUE(cache.find(keyOf(3)).isOk());
  EXPECT_TRUE(cache.find(keyOf(1)).isOk());

  // 3 is now least recent (1 was found after it).
  ASSERT_TRUE(cache.getOrCompile(keyOf(4), sharedCompile(keyOf(4))).isOk());
  EXPECT_EQ(cache.stats().evictions, 2);
  EXPECT_EQ(cache.find(keyOf(3)).status().code(), StatusCode::NotFound);
  EXPECT_TRUE(cache.find(keyOf(1)).isOk());
  EXPECT_EQ(calls_, 4);
}

TEST_F(CompileCacheTest, AnEntryLargerThanTheBoundStaysUntilTheNext) {
  CompileCache cache(1, {});
  ASSERT_TRUE(cache.getOrCompile(keyOf(1), sharedCompile(keyOf(1))).isOk());
  EXPECT_EQ(cache.stats().loaded, 1);
  ASSERT_TRUE(cache.getOrCompile(keyOf(2), sharedCompile(keyOf(2))).isOk());
  CompileCacheStats stats = cache.stats();
  EXPECT_EQ(stats.loaded, 1);
  EXPECT_EQ(stats.evictions, 1);
  EXPECT_EQ(stats.bytes, entryBytes(keyOf(2)));
  EXPECT_TRUE(cache.find(keyOf(2)).isOk());
}

TEST_F(CompileCacheTest, HeldEntriesRunAfterEviction) {
  int64_t one = entryBytes(keyOf(1));
  CompileCache cache(one + one / 2, {});
  auto held = cache.getOrCompile(keyOf(1), privateCompile(keyOf(1)));
  ASSERT_TRUE(held.isOk()) << held.status().toString();
  std::weak_ptr<jit::Executable> watch = held->entry->executable;
  ASSERT_TRUE(cache.getOrCompile(keyOf(2), privateCompile(keyOf(2))).isOk());
  ASSERT_EQ(cache.stats().evictions, 1);
  ASSERT_EQ(cache.find(keyOf(1)).status().code(), StatusCode::NotFound);

  EXPECT_EQ(runOnce(*held->entry->executable), *expected_);
  // The cache let go of it: the caller was its last owner.
  held = notFound("released");
  EXPECT_TRUE(watch.expired());
}

TEST_F(CompileCacheTest, HeldEntriesRunAfterUnload) {
  CompileCache cache(1 << 30, {});
  auto held = cache.getOrCompile(keyOf(1), privateCompile(keyOf(1)));
  ASSERT_TRUE(held.isOk()) << held.status().toString();
  std::weak_ptr<jit::Executable> watch = held->entry->executable;
  EXPECT_TRUE(cache.unload(keyOf(1)));
  EXPECT_FALSE(cache.unload(keyOf(1)));
  CompileCacheStats stats = cache.stats();
  EXPECT_EQ(stats.loaded, 0);
  EXPECT_EQ(stats.bytes, 0);
  EXPECT_EQ(cache.find(keyOf(1)).status().code(), StatusCode::NotFound);

  EXPECT_EQ(runOnce(*held->entry->executable), *expected_);
  held = notFound("released");
  EXPECT_TRUE(watch.expired());

  // Unloaded is not poisoned: a new request compiles it again.
  auto again = cache.getOrCompile(keyOf(1), privateCompile(keyOf(1)));
  ASSERT_TRUE(again.isOk());
  EXPECT_EQ(again->source, CacheSource::Compiled);
  EXPECT_EQ(calls_, 2);
}

TEST_F(CompileCacheTest, CompileWritesTheDiskTier) {
  ScratchDir scratch;
  std::string dir = scratch / "cache";
  CompileCache cache(1 << 30, diskTier(dir));
  ASSERT_TRUE(cache.getOrCompile(keyOf(1), sharedCompile(keyOf(1))).isOk());
  auto inspector = DiskCache::open(dir, kIdentity, std::string(32, 'k'));
  ASSERT_TRUE(inspector.isOk());
  auto stored = (*inspector)->load(keyOf(1));
  ASSERT_TRUE(stored.isOk()) << stored.status().toString();
  EXPECT_EQ(stored->objectCode, (*compiled_)->objectCode());
  EXPECT_EQ(stored->info.executable_id(), keyOf(1));
  EXPECT_EQ(stored->compiledGraph.SerializeAsString(),
            (*compiled_)->graph().SerializeAsString());
}

TEST_F(CompileCacheTest, ARestartedCacheLoadsFromDiskWithoutCompiling) {
  ScratchDir scratch;
  std::string dir = scratch / "cache";
  {
    CompileCache first(1 << 30, diskTier(dir));
    ASSERT_TRUE(first.getOrCompile(keyOf(1), sharedCompile(keyOf(1))).isOk());
  }
  ASSERT_EQ(calls_, 1);
  int64_t compiles = compiler::Compiler::compileCount();

  CompileCache restarted(1 << 30, diskTier(dir));
  auto loaded = restarted.getOrCompile(keyOf(1), sharedCompile(keyOf(1)));
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  EXPECT_EQ(loaded->source, CacheSource::Tier);
  EXPECT_EQ(calls_, 1);
  EXPECT_EQ(compiler::Compiler::compileCount(), compiles);
  EXPECT_NE(loaded->entry->executable, *compiled_);
  EXPECT_EQ(loaded->entry->info.executable_id(), keyOf(1));
  EXPECT_EQ(loaded->entry->bytes, entryBytes(keyOf(1)));
  EXPECT_EQ(runOnce(*loaded->entry->executable), *expected_);

  CompileCacheStats stats = restarted.stats();
  EXPECT_EQ(stats.tierLoads, 1);
  EXPECT_EQ(stats.compiles, 0);
  EXPECT_EQ(stats.droppedTierEntries, 0);
  EXPECT_EQ(stats.loaded, 1);
  EXPECT_EQ(stats.bytes, entryBytes(keyOf(1)));
}

TEST_F(CompileCacheTest, FindLoadsFromTheDiskTier) {
  ScratchDir scratch;
  std::string dir = scratch / "cache";
  {
    CompileCache first(1 << 30, diskTier(dir));
    ASSERT_TRUE(first.getOrCompile(keyOf(1), sharedCompile(keyOf(1))).isOk());
  }
  CompileCache restarted(1 << 30, diskTier(dir));
  auto found = restarted.find(keyOf(1));
  ASSERT_TRUE(found.isOk()) << found.status().toString();
  EXPECT_EQ(found->source, CacheSource::Tier);
  EXPECT_EQ(runOnce(*found->entry->executable), *expected_);
  EXPECT_EQ(restarted.stats().tierLoads, 1);
  EXPECT_EQ(restarted.stats().memoryHits, 0);
  EXPECT_EQ(calls_, 1);
}

TEST_F(CompileCacheTest, ACorruptTierEntryIsDroppedAndRecompiled) {
  ScratchDir scratch;
  std::string dir = scratch / "cache";
  {
    CompileCache first(1 << 30, diskTier(dir));
    ASSERT_TRUE(first.getOrCompile(keyOf(1), sharedCompile(keyOf(1))).isOk());
  }
  std::string path = dir + "/" + keyOf(1) + ".anyshape";
  std::string bytes = test::readFile(path);
  ASSERT_FALSE(bytes.empty());
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 1);
  test::writeFile(path, bytes);

  CompileCache restarted(1 << 30, diskTier(dir));
  auto result = restarted.getOrCompile(keyOf(1), sharedCompile(keyOf(1)));
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  EXPECT_EQ(result->source, CacheSource::Compiled);
  EXPECT_EQ(calls_, 2);
  CompileCacheStats stats = restarted.stats();
  EXPECT_EQ(stats.droppedTierEntries, 1);
  EXPECT_EQ(stats.tierLoads, 0);
  EXPECT_EQ(stats.compiles, 1);

  // The recompile rewrote a good entry.
  CompileCache third(1 << 30, diskTier(dir));
  auto reloaded = third.getOrCompile(keyOf(1), sharedCompile(keyOf(1)));
  ASSERT_TRUE(reloaded.isOk());
  EXPECT_EQ(reloaded->source, CacheSource::Tier);
  EXPECT_EQ(calls_, 2);
}

TEST_F(CompileCacheTest, ATierEntryThatDoesNotLinkIsRemovedAndRecompiled) {
  auto tier = std::make_shared<FakeTier::Shared>();
  StoredExecutable broken{(*compiled_)->graph(), infoFor(keyOf(1)),
                          "this is not an object file", std::nullopt};
  tier->answer = StatusOr<StoredExecutable>(broken);
  std::vector<std::unique_ptr<CacheTier>> tiers;
  tiers.push_back(std::make_unique<FakeTier>(tier));
  CompileCache cache(1 << 30, std::move(tiers));

  auto result = cache.getOrCompile(keyOf(1), sharedCompile(keyOf(1)));
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  EXPECT_EQ(result->source, CacheSource::Compiled);
  EXPECT_EQ(calls_, 1);
  EXPECT_EQ(tier->removes, 1);
  EXPECT_EQ(tier->stores, 1);
  EXPECT_EQ(cache.stats().droppedTierEntries, 1);
}

TEST_F(CompileCacheTest, ACompileWaitingOnAMissingFindCompiles) {
  auto tier = std::make_shared<FakeTier::Shared>();
  tier->loadDelay = std::chrono::milliseconds(300);
  std::vector<std::unique_ptr<CacheTier>> tiers;
  tiers.push_back(std::make_unique<FakeTier>(tier));
  CompileCache cache(1 << 30, std::move(tiers));

  Status findStatus;
  std::thread finder([&] { findStatus = cache.find(keyOf(1)).status(); });
  while (tier->loads == 0)
    std::this_thread::yield();
  // The find is in flight, in the slow tier: this request waits on it,
  // sees NOT_FOUND, and must compile rather than report the miss.
  auto compiled = cache.getOrCompile(keyOf(1), sharedCompile(keyOf(1)));
  finder.join();
  EXPECT_EQ(findStatus.code(), StatusCode::NotFound);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_EQ(compiled->source, CacheSource::Compiled);
  EXPECT_EQ(calls_, 1);
}

TEST_F(CompileCacheTest, ATierThatCannotStoreCostsNothingButIsCounted) {
  // A full disk: the compile is served, then served from memory.
  auto tier = std::make_shared<FakeTier::Shared>();
  tier->storeError = Status(StatusCode::Unavailable,
                            "cannot write x: No space left on device");
  std::vector<std::unique_ptr<CacheTier>> tiers;
  tiers.push_back(std::make_unique<FakeTier>(tier));
  CompileCache cache(1 << 30, std::move(tiers));
  auto compiled = cache.getOrCompile(keyOf(1), sharedCompile(keyOf(1)));
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_EQ(compiled->source, CacheSource::Compiled);
  EXPECT_EQ(tier->stores, 1);
  EXPECT_EQ(cache.stats().tierStoreErrors, 1);
  auto again = cache.getOrCompile(keyOf(1), sharedCompile(keyOf(1)));
  ASSERT_TRUE(again.isOk());
  EXPECT_EQ(again->source, CacheSource::Memory);
  EXPECT_EQ(calls_, 1);
}

TEST_F(CompileCacheTest, TierErrorsOtherThanNotFoundCountAsDropped) {
  auto tier = std::make_shared<FakeTier::Shared>();
  tier->answer = StatusOr<StoredExecutable>(
      Status(StatusCode::DataLoss, "checksum mismatch"));
  std::vector<std::unique_ptr<CacheTier>> tiers;
  tiers.push_back(std::make_unique<FakeTier>(tier));
  CompileCache cache(1 << 30, std::move(tiers));
  EXPECT_EQ(cache.find(keyOf(1)).status().code(), StatusCode::NotFound);
  EXPECT_EQ(cache.stats().droppedTierEntries, 1);
  ASSERT_TRUE(cache.getOrCompile(keyOf(1), sharedCompile(keyOf(1))).isOk());
  EXPECT_EQ(cache.stats().droppedTierEntries, 2);
  EXPECT_EQ(tier->stores, 1);
}

} // namespace

// The compile cache: executables by cache key (CacheKey.h), in memory
// under a byte bound, backed by storage tiers (the disk, DiskCache.h).
//
// - Single flight: concurrent requests for one key share one lookup or
//   compile and its result or error; errors are not cached.
// - LRU in memory, bounded by the bytes of object code and metadata. An
//   evicted or unloaded executable stays alive for the runs that hold it
//   (shared_ptr), so eviction never races an execution.
// - Tiers are consulted in order on a memory miss and written after a
//   compile. An entry a tier cannot load, or whose object code does not
//   link, is dropped and recompiled — never trusted. A tier shared between
//   servers (Redis) is asked for a compile lease before compiling, so a
//   fleet compiles each key once (CacheTier::claimCompile).
#pragma once

#include "jit/Executable.h"
#include "server/cache/CacheTier.h"

#include <functional>
#include <future>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace anyshape::server {

struct CachedExecutable {
  std::shared_ptr<jit::Executable> executable;
  v1::ExecutableInfo info;
  int64_t bytes = 0; // what it counts against the memory bound
};

enum class CacheSource { Memory, Tier, Compiled };

struct CacheResult {
  std::shared_ptr<const CachedExecutable> entry;
  CacheSource source = CacheSource::Memory;
};

struct CompileCacheStats {
  int64_t memoryHits = 0; // compile requests answered from memory
  int64_t tierLoads = 0;
  int64_t compiles = 0; // misses that compiled successfully
  int64_t compileErrors = 0;
  int64_t evictions = 0;
  int64_t droppedTierEntries = 0; // corrupt, truncated or incompatible
  int64_t tierStoreErrors = 0;    // compiled, kept in memory, not stored
  int64_t tierUnavailable = 0;    // a tier could not be read (down, I/O)
  int64_t loaded = 0;
  int64_t bytes = 0;
};

class CompileCache {
public:
  using CompileFunction = std::function<StatusOr<CachedExecutable>()>;

  /// Entries from a tier are linked under `limits` (the server's, which
  /// the keys include).
  CompileCache(int64_t memoryBytes,
               std::vector<std::unique_ptr<CacheTier>> tiers,
               GraphLimits limits = {});

  /// The executable for `key`: from memory, else a tier, else `compile`.
  StatusOr<CacheResult> getOrCompile(const std::string &key,
                                     const CompileFunction &compile);
  /// As getOrCompile without compiling: NOT_FOUND if neither memory nor a
  /// tier has it.
  StatusOr<CacheResult> find(const std::string &key);
  /// A compile request's first look, which never waits for a compile: the
  /// executable if memory or a tier has it (counted as a hit); NOT_FOUND if
  /// it must be compiled; UNAVAILABLE while another request compiles or
  /// loads it. On either error the caller queues for getOrCompile, which
  /// shares that work or compiles.
  StatusOr<CacheResult> findWithoutWaiting(const std::string &key);
  /// Drops `key` from memory (tiers keep it). False if it was not loaded.
  bool unload(const std::string &key);

  CompileCacheStats stats() const;

private:
  /// What a lookup does besides reading memory: compile (getOrCompile),
  /// or only load from a tier, waiting for work in flight (find) or not.
  enum class Miss { Compile, Load, LoadWithoutWaiting };
  StatusOr<CacheResult> lookup(const std::string &key,
                               const CompileFunction *compile,
                               Miss miss = Miss::Compile);
  StatusOr<CacheResult> loadOrCompile(const std::string &key,
                                      const CompileFunction *compile);
  /// `stored` (what `tier` gave for `key`) linked, or nothing: absent,
  /// the tier unreachable, or the entry refused (then dropped).
  std::optional<CacheResult> linkFromTier(const std::string &key,
                                          CacheTier &tier,
                                          StatusOr<StoredExecutable> stored);
  void insert(const std::string &key,
              std::shared_ptr<const CachedExecutable> entry);

  struct Slot {
    std::shared_ptr<const CachedExecutable> entry;
    std::list<std::string>::iterator recency;
  };

  const int64_t memoryBytes_;
  std::vector<std::unique_ptr<CacheTier>> tiers_;
  GraphLimits limits_;
  mutable std::mutex mutex_;
  std::map<std::string, Slot> slots_;
  std::list<std::string> recency_; // most recent first
  std::map<std::string, std::shared_future<StatusOr<CacheResult>>> inFlight_;
  CompileCacheStats stats_;
};

/// What a tier stores for a loaded executable.
StoredExecutable toStored(const CachedExecutable &entry);
/// Links a stored executable (a worker's result, a tier's entry) into this
/// process under the limits it was compiled under: the one way a server
/// loads compiled code, device code included.
StatusOr<CachedExecutable> loadStored(StoredExecutable stored,
                                      const GraphLimits &limits);

} // namespace anyshape::server

// Locking: one mutex guards the maps and counters and is never held while
// compiling, loading from a tier or linking. The first request for a key
// registers a shared future in inFlight_ and does the work; later ones
// wait on it.
#include "server/cache/CompileCache.h"

#include "server/Log.h"

namespace anyshape::server {

namespace {

/// What an entry counts against the memory bound: its object code, its
/// info and, for a CUDA executable, its cubins.
int64_t entryBytes(const CachedExecutable &entry) {
  int64_t bytes = static_cast<int64_t>(entry.executable->objectCode().size() +
                                       entry.info.ByteSizeLong());
  for (const runtime::cuda::KernelImage &kernel :
       entry.executable->deviceKernels())
    bytes += static_cast<int64_t>(kernel.cubin.size());
  return bytes;
}

} // namespace

StatusOr<CachedExecutable> loadStored(StoredExecutable stored,
                                      const GraphLimits &limits) {
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::shared_ptr<jit::Executable> executable,
      jit::Executable::load(std::move(stored.compiledGraph),
                            std::move(stored.objectCode), limits,
                            std::move(stored.device)));
  // What a first run pays once is paid here, not by the first request.
  if (Status warm = executable->warmUp(); !warm.isOk())
    logEvent("info", "warm_up_skipped", {{"reason", warm.message()}});
  CachedExecutable entry{std::move(executable), std::move(stored.info), 0};
  entry.bytes = entryBytes(entry);
  return entry;
}

StoredExecutable toStored(const CachedExecutable &entry) {
  return {entry.executable->graph(), entry.info, entry.executable->objectCode(),
          entry.executable->deviceCode()};
}

CompileCache::CompileCache(int64_t memoryBytes,
                           std::vector<std::unique_ptr<CacheTier>> tiers,
                           GraphLimits limits)
    : memoryBytes_(memoryBytes), tiers_(std::move(tiers)), limits_(limits) {}

StatusOr<CacheResult>
CompileCache::getOrCompile(const std::string &key,
                           const CompileFunction &compile) {
  return lookup(key, &compile);
}

StatusOr<CacheResult> CompileCache::find(const std::string &key) {
  return lookup(key, nullptr, Miss::Load);
}

StatusOr<CacheResult> CompileCache::findWithoutWaiting(const std::string &key) {
  return lookup(key, nullptr, Miss::LoadWithoutWaiting);
}

StatusOr<CacheResult> CompileCache::lookup(const std::string &key,
                                           const CompileFunction *compile,
                                           Miss miss) {
  // A compile request's lookups count its hits.
  const bool forCompile = miss != Miss::Load;
  std::promise<StatusOr<CacheResult>> promise;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    auto slot = slots_.find(key);
    if (slot != slots_.end()) {
      recency_.splice(recency_.begin(), recency_, slot->second.recency);
      if (forCompile)
        ++stats_.memoryHits; // a compile request served without compiling
      return CacheResult{slot->second.entry, CacheSource::Memory};
    }
    auto pending = inFlight_.find(key);
    if (pending != inFlight_.end() && miss == Miss::LoadWithoutWaiting)
      return Status(StatusCode::Unavailable,
                    "executable " + key + " is being compiled or loaded");
    if (pending != inFlight_.end()) {
      std::shared_future<StatusOr<CacheResult>> shared = pending->second;
      lock.unlock();
      StatusOr<CacheResult> result = shared.get();
      // A find() that is in flight may end NOT_FOUND although this caller
      // could compile: look again rather than report a miss it can fix.
      if (!result.isOk() && result.status().code() == StatusCode::NotFound &&
          compile)
        return lookup(key, compile);
      if (!result.isOk())
        return result;
      std::lock_guard<std::mutex> relock(mutex_);
      if (compile)
        ++stats_.memoryHits; // shared another request's work
      return CacheResult{result->entry, CacheSource::Memory};
    }
    inFlight_.emplace(key, promise.get_future().share());
  }
  // Whatever happens, waiters must get an answer: an exception (say
  // bad_alloc) would otherwise leave the key's promise unset forever.
  StatusOr<CacheResult> result = internalError("compile failed");
  try {
    result = loadOrCompile(key, compile);
  } catch (const std::exception &e) {
    result = internalError(std::string("compile failed: ") + e.what());
    std::lock_guard<std::mutex> lock(mutex_);
    if (compile)
      ++stats_.compileErrors; // a failed compile, however it failed
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (result.isOk())
      insert(key, result->entry);
    inFlight_.erase(key);
  }
  promise.set_value(result);
  return result;
}

std::optional<CacheResult>
CompileCache::linkFromTier(const std::string &key, CacheTier &tier,
                           StatusOr<StoredExecutable> stored) {
  if (!stored.isOk()) {
    StatusCode code = stored.status().code();
    if (code == StatusCode::NotFound)
      return std::nullopt;
    // The operator's to see (the message names the file or the Redis
    // key); the client only sees a recompile.
    logEvent("warning",
             code == StatusCode::Unavailable ? "cache_tier_unavailable"
                                             : "cache_entry_dropped",
             {{"message", stored.status().toString()}});
    std::lock_guard<std::mutex> lock(mutex_);
    ++(code == StatusCode::Unavailable ? stats_.tierUnavailable
                                       : stats_.droppedTierEntries);
    return std::nullopt;
  }
  StatusOr<CachedExecutable> loaded = loadStored(std::move(*stored), limits_);
  if (!loaded.isOk()) {
    // Passed the MAC yet does not link (another build's runtime ABI):
    // drop it.
    logEvent("warning", "cache_entry_dropped",
             {{"message", "entry " + key + " does not load: " +
                              loaded.status().toString()}});
    tier.remove(key);
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.droppedTierEntries;
    return std::nullopt;
  }
  auto entry = std::make_shared<CachedExecutable>(std::move(*loaded));
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.tierLoads;
  return CacheResult{std::move(entry), CacheSource::Tier};
}

StatusOr<CacheResult>
CompileCache::loadOrCompile(const std::string &key,
                            const CompileFunction *compile) {
  for (const std::unique_ptr<CacheTier> &tier : tiers_)
    if (auto found = linkFromTier(key, *tier, tier->load(key)))
      return std::move(*found);
  if (!compile)
    return notFound("executable " + key +
                    " is not loaded (unloaded or evicted, and in no cache "
                    "tier): compile it again");
  // Servers sharing a tier compile each key once: one of them holds the
  // lease while it compiles (kept until its result is stored, below), the
  // others find its entry here when it is done.
  std::vector<std::unique_ptr<CompileLease>> leases;
  for (const std::unique_ptr<CacheTier> &tier : tiers_) {
    CacheTier::Claim claim = tier->claimCompile(key);
    if (claim.entry)
      if (auto found = linkFromTier(key, *tier, std::move(*claim.entry)))
        return std::move(*found);
    if (claim.lease)
      leases.push_back(std::move(claim.lease));
  }
  StatusOr<CachedExecutable> compiled = (*compile)();
  if (!compiled.isOk()) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.compileErrors;
    return compiled.status();
  }
  compiled->bytes = entryBytes(*compiled);
  auto entry = std::make_shared<CachedExecutable>(std::move(*compiled));
  // Best effort: a tier that cannot store (disk full, its directory gone
  // or read-only) costs the next restart a compile, never this request.
  int64_t storeErrors = 0;
  for (const std::unique_ptr<CacheTier> &tier : tiers_) {
    Status stored = tier->store(key, toStored(*entry));
    if (!stored.isOk()) {
      ++storeErrors;
      logEvent("warning", "cache_store_failed",
               {{"message", stored.toString()}, {"served_from", "memory"}});
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.tierStoreErrors += storeErrors;
  ++stats_.compiles;
  return CacheResult{std::move(entry), CacheSource::Compiled};
}

void CompileCache::insert(const std::string &key,
                          std::shared_ptr<const CachedExecutable> entry) {
  recency_.push_front(key);
  stats_.bytes += entry->bytes;
  slots_[key] = Slot{std::move(entry), recency_.begin()};
  // Evict least recent entries, never the one just inserted.
  while (stats_.bytes > memoryBytes_ && recency_.size() > 1) {
    auto victim = slots_.find(recency_.back());
    stats_.bytes -= victim->second.entry->bytes;
    slots_.erase(victim);
    recency_.pop_back();
    ++stats_.evictions;
  }
}

bool CompileCache::unload(const std::string &key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto slot = slots_.find(key);
  if (slot == slots_.end())
    return false;
  stats_.bytes -= slot->second.entry->bytes;
  recency_.erase(slot->second.recency);
  slots_.erase(slot);
  return true;
}

CompileCacheStats CompileCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  CompileCacheStats s = stats_;
  s.loaded = static_cast<int64_t>(slots_.size());
  return s;
}

} // namespace anyshape::server

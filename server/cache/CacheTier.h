// A storage tier behind the in-memory compile cache: what one compiled
// executable is when it is not loaded, and the interface every tier (the
// local disk, DiskCache.h; Redis shared between servers, RedisCache.h)
// implements.
#pragma once

#include "anyshape/v1/service.pb.h"
#include "anyshape/v1/worker.pb.h"
#include "jit/Executable.h"
#include "runtime/support/Status.h"

#include <memory>
#include <optional>
#include <string>

namespace anyshape::server {

/// Everything needed to rebuild an executable without compiling.
struct StoredExecutable {
  v1::Graph compiledGraph; // after static specialisation (Executable::graph)
  v1::ExecutableInfo info;
  std::string objectCode; // compiler/ObjectCode.h
  /// A CUDA executable's kernels (cubins), beside its host object.
  std::optional<jit::DeviceCode> device;
};

/// jit::DeviceCode as the worker and disk cache carry it (worker.proto).
v1::DeviceCode deviceCodeToProto(const jit::DeviceCode &device);
jit::DeviceCode deviceCodeFromProto(const v1::DeviceCode &device);

/// Held by a server while it compiles an entry that servers sharing a
/// tier would otherwise compile too; destroying it releases the claim.
class CompileLease {
public:
  virtual ~CompileLease() = default;
};

class CacheTier {
public:
  virtual ~CacheTier() = default;
  /// NOT_FOUND when absent. Any other error means the entry was unusable
  /// (corrupt, truncated, written by another compiler or for another
  /// target); the tier has dropped it, and the caller recompiles.
  virtual StatusOr<StoredExecutable> load(const std::string &key) = 0;
  /// Stores or replaces; a failure loses only the cache entry.
  virtual Status store(const std::string &key,
                       const StoredExecutable &entry) = 0;
  virtual void remove(const std::string &key) = 0;

  /// How servers sharing this tier compile each entry once: asked after
  /// every tier missed, before compiling. Either another server's compile
  /// of `key` finished meanwhile (`entry` set), or this server is to
  /// compile, holding `lease` (when the tier gave one) until the result
  /// is stored. A tier that cannot coordinate (down, slow, or local like
  /// the disk) returns neither: the server compiles, never fails.
  struct Claim {
    std::optional<StoredExecutable> entry;
    std::unique_ptr<CompileLease> lease;
  };
  virtual Claim claimCompile(const std::string &key) {
    (void)key;
    return {};
  }
};

} // namespace anyshape::server

// The persistent compile-cache tier: one file per executable in a local
// directory, so a restarted server serves earlier compiles with none.
//
// The directory is a trust boundary: it holds machine code this process
// will execute. It is created with mode 0700, and entries are never
// trusted blindly: each file carries the compiler identity it was built
// by and an xxh3-128 checksum of its contents, both verified on load; a
// mismatch drops the file. Writes go to a temporary file that is fsynced
// and renamed over the entry (then the directory is fsynced), so readers
// and crashes see either the old entry or the new one, never a mix.
#pragma once

#include "server/cache/CacheTier.h"

#include <memory>

namespace anyshape::server {

class DiskCache : public CacheTier {
public:
  /// Creates `directory` (0700) if needed. `identity` is the compiler
  /// build and target every entry must match (compilerIdentity()).
  static StatusOr<std::unique_ptr<DiskCache>> open(std::string directory,
                                                   std::string identity);

  StatusOr<StoredExecutable> load(const std::string &key) override;
  Status store(const std::string &key, const StoredExecutable &entry) override;
  void remove(const std::string &key) override;

  std::string pathOf(const std::string &key) const;

private:
  DiskCache(std::string directory, std::string identity)
      : directory_(std::move(directory)), identity_(std::move(identity)) {}
  std::string directory_;
  std::string identity_;
};

} // namespace anyshape::server

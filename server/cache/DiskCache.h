// The persistent compile-cache tier: one file per executable in a local
// directory, so a restarted server serves earlier compiles with none.
//
// The directory is a trust boundary: it holds machine code this process
// will execute. It is created with mode 0700, and entries are never
// trusted blindly: each file carries the compiler identity it was built
// by and an HMAC-SHA256 of its contents under a key only the server holds
// (EntryKey.h), both verified on load; a mismatch drops the file. So
// write access to the directory is not enough to make the server run
// code: a file the server did not write is refused. Writes go to a temporary
// file that is fsynced and renamed over the entry (then the directory is
// fsynced), so readers and crashes see either the old entry or the new one,
// never a mix.
#pragma once

#include "server/cache/CacheTier.h"

#include <memory>

namespace anyshape::server {

class DiskCache : public CacheTier {
public:
  /// Creates `directory` (0700) if needed. `identity` is the compiler
  /// build and target every entry must match (compilerIdentity());
  /// `entryKey` (at least 32 bytes) authenticates every entry.
  static StatusOr<std::unique_ptr<DiskCache>>
  open(std::string directory, std::string identity, std::string entryKey);

  StatusOr<StoredExecutable> load(const std::string &key) override;
  Status store(const std::string &key, const StoredExecutable &entry) override;
  void remove(const std::string &key) override;

  std::string pathOf(const std::string &key) const;

private:
  DiskCache(std::string directory, std::string identity, std::string entryKey)
      : directory_(std::move(directory)), identity_(std::move(identity)),
        entryKey_(std::move(entryKey)) {}
  std::string directory_;
  std::string identity_;
  std::string entryKey_;
};

} // namespace anyshape::server

// The record a stored executable is outside this process: one byte string,
// the same in every tier that keeps entries (the disk directory, the
// shared Redis tier), so that what protects one protects all.
//
// A record names the compiler identity it was built by and its cache key,
// and ends with an HMAC-SHA256 of every byte before it under the server's
// entry key (EntryKey.h). Opening one checks, before anything is parsed,
// the magic and the MAC: a record anyone but a holder of the key wrote (or
// damaged) is refused, so write access to a tier is not enough to make
// the server run code. Then every length against the bytes left, the
// identity and the key.
#pragma once

#include "server/cache/CacheTier.h"

namespace anyshape::server {

/// Beyond any entry a compile can make (GraphLimits bounds embedded
/// constants to 1 GiB): a bigger record is not ours and is not read.
constexpr int64_t kLargestEntryBytes = int64_t{4} << 30;

/// `entry` as a record under `key`, sealed with `entryKey`.
std::string sealEntry(const StoredExecutable &entry, const std::string &key,
                      const std::string &identity, const std::string &entryKey);

/// The executable in `record`, or DATA_LOSS saying why the record is not
/// a valid one of this compiler's for `key`.
StatusOr<StoredExecutable> openEntry(const std::string &record,
                                     const std::string &key,
                                     const std::string &identity,
                                     const std::string &entryKey);

} // namespace anyshape::server

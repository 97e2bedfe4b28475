// The secret that authenticates disk-cache entries (DiskCache.h).
//
// Cached entries hold machine code the server executes, so a file in the
// cache directory is trusted only if it carries an HMAC-SHA256 made with
// this key. The key lives outside the cache directory (by default beside
// it, DIR.key): whoever can write the directory could otherwise replace
// the key too. The file must belong to the server's user and be readable
// by nobody else, like an ssh private key; a missing one is created with
// 32 random bytes.
#pragma once

#include "runtime/support/Status.h"

#include <string>

namespace anyshape::server {

/// The size of a created key, and the least a key file may hold.
constexpr size_t kEntryKeyBytes = 32;
/// The size of entryMac's result (SHA-256).
constexpr size_t kEntryMacBytes = 32;

/// Where the key of cache directory `cacheDir` lives unless the server is
/// told otherwise (--cache-key-file).
std::string defaultEntryKeyPath(const std::string &cacheDir);

/// Reads the key at `path`, or creates it (mode 0600, 32 random bytes) if
/// there is none; servers starting together over one key file agree on
/// one key. Refuses a file of another user, one that group or others may
/// read or write, and one of under 32 or over 4096 bytes.
StatusOr<std::string> loadOrCreateEntryKey(const std::string &path);

/// HMAC-SHA256 of `bytes` under `key`: 32 bytes.
std::string entryMac(const std::string &key, const char *bytes, size_t size);

/// Compares two MACs in constant time.
bool sameMac(const std::string &a, const char *b, size_t size);

} // namespace anyshape::server

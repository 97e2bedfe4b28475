// Whole files in and out, retrying short reads and writes and EINTR: the
// disk cache's entry files, a compile worker's result pipe, and the
// server's secrets (the cache key, the token file).
#pragma once

#include "runtime/support/Status.h"

#include <string>

namespace anyshape::server {

/// UNAVAILABLE "cannot write WHAT: <errno text>" on failure.
Status writeAll(int fd, const std::string &bytes, const std::string &what);

/// The bytes of the regular file at `path`, opened without following a
/// symlink (and without blocking on a FIFO), of at most `maxBytes`:
/// NOT_FOUND if there is none; FAILED_PRECONDITION "WHAT PATH is not a
/// regular file" / "is over N bytes"; UNAVAILABLE on a read error. With
/// `ownerOnly`, the file must also belong to this process's user and
/// be neither readable nor writable by group or others (like an ssh key).
StatusOr<std::string> readFileChecked(const std::string &path,
                                      const std::string &what, int64_t maxBytes,
                                      bool ownerOnly);

} // namespace anyshape::server

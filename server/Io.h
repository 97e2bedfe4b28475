// Writing a whole byte string to a file descriptor, retrying short writes
// and EINTR: the disk cache's entry files and a compile worker's result
// pipe both need it.
#pragma once

#include "runtime/support/Status.h"

#include <string>

namespace anyshape::server {

/// UNAVAILABLE "cannot write WHAT: <errno text>" on failure.
Status writeAll(int fd, const std::string &bytes, const std::string &what);

} // namespace anyshape::server

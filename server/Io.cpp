// writeAll (Io.h).
#include "server/Io.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace anyshape::server {

Status writeAll(int fd, const std::string &bytes, const std::string &what) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return Status(StatusCode::Unavailable,
                    "cannot write " + what + ": " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Status::ok();
}

} // namespace anyshape::server

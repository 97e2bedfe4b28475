// See Io.h.
#include "server/Io.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
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

StatusOr<std::string> readFileChecked(const std::string &path,
                                      const std::string &what, int64_t maxBytes,
                                      bool ownerOnly) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT)
      return notFound("no " + what + " " + path);
    return Status(StatusCode::FailedPrecondition, "cannot open the " + what +
                                                      " " + path + ": " +
                                                      std::strerror(errno));
  }
  // Checked on the open file, so that it cannot be swapped in between.
  struct stat info;
  std::string why;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
    why = "is not a regular file";
  else if (info.st_size > maxBytes)
    why = "is over " + std::to_string(maxBytes) + " bytes";
  else if (ownerOnly && info.st_uid != ::geteuid())
    why = "belongs to another user";
  else if (ownerOnly && (info.st_mode & 0077) != 0)
    why = "may be read or written by others (chmod 600 it)";
  if (!why.empty()) {
    ::close(fd);
    return Status(StatusCode::FailedPrecondition,
                  "the " + what + " " + path + " " + why);
  }
  std::string bytes(static_cast<size_t>(info.st_size), '\0');
  size_t got = 0;
  for (;;) {
    if (got == bytes.size()) {
      // The file may have grown since fstat: read what is there, bounded.
      if (static_cast<int64_t>(bytes.size()) >= maxBytes)
        break;
      bytes.resize(std::min<size_t>(bytes.size() * 2 + 4096,
                                    static_cast<size_t>(maxBytes)));
    }
    ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      Status error(StatusCode::Unavailable, "cannot read the " + what + " " +
                                                path + ": " +
                                                std::strerror(errno));
      ::close(fd);
      return error;
    }
    if (n == 0)
      break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  bytes.resize(got);
  return bytes;
}

} // namespace anyshape::server

// One file per entry, named by its key, holding the entry's record
// (EntryRecord.h: layout, MAC and checks).
#include "server/cache/DiskCache.h"

#include "server/Io.h"
#include "server/cache/CacheKey.h"
#include "server/cache/EntryKey.h"
#include "server/cache/EntryRecord.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace anyshape::server {
namespace {

Status errnoError(const std::string &what, const std::string &path) {
  return Status(StatusCode::Unavailable,
                what + " " + path + ": " + std::strerror(errno));
}

} // namespace

StatusOr<std::unique_ptr<DiskCache>> DiskCache::open(std::string directory,
                                                     std::string identity,
                                                     std::string entryKey) {
  if (directory.empty())
    return invalidArgument("the cache directory is empty");
  if (entryKey.size() < kEntryKeyBytes)
    return invalidArgument("the cache entry key has under " +
                           std::to_string(kEntryKeyBytes) + " bytes");
  if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST)
    return errnoError("cannot create the cache directory", directory);
  struct stat info;
  if (::stat(directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return invalidArgument("the cache directory " + directory +
                           " is not a directory");
  if (info.st_uid != ::geteuid())
    return Status(StatusCode::FailedPrecondition,
                  "the cache directory " + directory +
                      " belongs to another user: it holds code this server "
                      "executes");
  if ((info.st_mode & 0077) != 0)
    ::chmod(directory.c_str(), 0700);
  return std::unique_ptr<DiskCache>(new DiskCache(
      std::move(directory), std::move(identity), std::move(entryKey)));
}

std::string DiskCache::pathOf(const std::string &key) const {
  return directory_ + "/" + key + ".anyshape";
}

StatusOr<StoredExecutable> DiskCache::load(const std::string &key) {
  // Keys name files: anything but a cache key could escape the directory.
  if (!isCacheKey(key))
    return notFound("'" + key + "' is not a cache key");
  std::string path = pathOf(key);
  auto reject = [&](const std::string &why) -> Status {
    ::unlink(path.c_str());
    return Status(StatusCode::DataLoss,
                  "dropped cache entry " + path + ": " + why);
  };
  // Not followed if a symlink, never blocked on if a FIFO, bounded in size:
  // whoever can write the directory decides what lies there.
  auto read = readFileChecked(path, "cache entry", kLargestEntryBytes,
                              /*ownerOnly=*/false);
  if (!read.isOk() && read.status().code() == StatusCode::FailedPrecondition)
    return reject(read.status().message());
  ANYSHAPE_RETURN_IF_ERROR(read.status());
  auto entry = openEntry(*read, key, identity_, entryKey_);
  if (!entry.isOk())
    return reject(entry.status().message());
  return entry;
}

Status DiskCache::store(const std::string &key, const StoredExecutable &entry) {
  if (!isCacheKey(key))
    return invalidArgument("'" + key + "' is not a cache key");
  std::string bytes = sealEntry(entry, key, identity_, entryKey_);

  std::string path = pathOf(key);
  std::string temp = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0)
    return errnoError("cannot create", temp);
  Status written = writeAll(fd, bytes, temp);
  if (written.isOk() && ::fsync(fd) != 0)
    written = errnoError("cannot fsync", temp);
  ::close(fd);
  if (written.isOk() && ::rename(temp.c_str(), path.c_str()) != 0)
    written = errnoError("cannot rename", temp);
  if (!written.isOk()) {
    ::unlink(temp.c_str());
    return written;
  }
  // The rename itself is durable only once the directory is synced.
  int dir = ::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return Status::ok();
}

void DiskCache::remove(const std::string &key) {
  if (isCacheKey(key))
    ::unlink(pathOf(key).c_str());
}

} // namespace anyshape::server

// Entry file layout (all integers u64 little-endian):
//   "ASHAPE03" | len identity | len key | len graph | len info |
//   len object | len device | HMAC-SHA256 of every byte before it
// where device is empty for a CPU executable and "cuda" followed by a
// serialised v1::DeviceCode (its cubins) for a CUDA one, and "len X" is
// X's byte length followed by its bytes. A reader checks the magic, the
// MAC (under the server's entry key, EntryKey.h), every length against
// the bytes left, the identity and the key before parsing anything.
#include "server/cache/DiskCache.h"

#include "server/Io.h"
#include "server/cache/CacheKey.h"
#include "server/cache/EntryKey.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace anyshape::server {
namespace {

constexpr char kMagic[8] = {'A', 'S', 'H', 'A', 'P', 'E', '0', '3'};
constexpr size_t kMacBytes = kEntryMacBytes;
/// Beyond any entry a compile can make (GraphLimits bounds embedded
/// constants to 1 GiB): a bigger file is not ours and is not read.
constexpr int64_t kLargestEntryBytes = int64_t{4} << 30;
constexpr char kDevicePrefix[] = "cuda";

void putPart(std::string &out, const std::string &part) {
  uint64_t size = part.size();
  out.append(reinterpret_cast<const char *>(&size), sizeof(size));
  out += part;
}

/// Reads the next length-prefixed part of `bytes` at `at`.
bool takePart(const std::string &bytes, size_t &at, size_t end,
              std::string &part) {
  uint64_t size;
  if (end - at < sizeof(size))
    return false;
  std::memcpy(&size, bytes.data() + at, sizeof(size));
  at += sizeof(size);
  if (size > end - at)
    return false;
  part.assign(bytes, at, size);
  at += size;
  return true;
}

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
  std::string bytes = std::move(*read);
  if (bytes.size() < sizeof(kMagic) + kMacBytes ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return reject("not a cache entry or truncated");
  // Before anything is parsed: only this server's key makes a valid MAC,
  // so a file someone else wrote (or damaged) goes here.
  size_t end = bytes.size() - kMacBytes;
  if (!sameMac(entryMac(entryKey_, bytes.data(), end), bytes.data() + end,
               kMacBytes))
    return reject("not authenticated (written by another server, or "
                  "damaged)");
  size_t at = sizeof(kMagic);
  std::string identity, storedKey, graph, info, object, device;
  if (!takePart(bytes, at, end, identity) ||
      !takePart(bytes, at, end, storedKey) ||
      !takePart(bytes, at, end, graph) || !takePart(bytes, at, end, info) ||
      !takePart(bytes, at, end, object) || !takePart(bytes, at, end, device) ||
      at != end)
    return reject("malformed");
  if (identity != identity_)
    return reject("written by another compiler build or for another target");
  if (storedKey != key)
    return reject("stored under another key");
  StoredExecutable entry;
  if (!entry.compiledGraph.ParseFromString(graph) ||
      !entry.info.ParseFromString(info))
    return reject("malformed metadata");
  entry.objectCode = std::move(object);
  // "" for a CPU executable; else "cuda" and its DeviceCode.
  if (!device.empty()) {
    v1::DeviceCode code;
    if (device.rfind(kDevicePrefix, 0) != 0 ||
        !code.ParseFromString(device.substr(sizeof(kDevicePrefix) - 1)))
      return reject("malformed device code");
    entry.device = deviceCodeFromProto(code);
  }
  return entry;
}

Status DiskCache::store(const std::string &key, const StoredExecutable &entry) {
  if (!isCacheKey(key))
    return invalidArgument("'" + key + "' is not a cache key");
  std::string bytes(kMagic, sizeof(kMagic));
  putPart(bytes, identity_);
  putPart(bytes, key);
  putPart(bytes, entry.compiledGraph.SerializeAsString());
  putPart(bytes, entry.info.SerializeAsString());
  putPart(bytes, entry.objectCode);
  putPart(bytes, entry.device
                     ? kDevicePrefix +
                           deviceCodeToProto(*entry.device).SerializeAsString()
                     : std::string());
  bytes += entryMac(entryKey_, bytes.data(), bytes.size());

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

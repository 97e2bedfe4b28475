// See EntryKey.h. HMAC and the random bytes come from OpenSSL's libcrypto
// (the one gRPC links).
#include "server/cache/EntryKey.h"

#include "server/Io.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace anyshape::server {
namespace {

constexpr size_t kKeyBytes = 32;
constexpr size_t kLargestKey = 4096;

Status keyError(const std::string &path, const std::string &why) {
  return Status(StatusCode::FailedPrecondition,
                "the cache key " + path + " " + why +
                    " (it authenticates the code in the compile cache; "
                    "--cache-key-file names another)");
}

StatusOr<std::string> createKey(const std::string &path) {
  std::string key(kKeyBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char *>(key.data()),
                 static_cast<int>(key.size())) != 1)
    return internalError("no random bytes for the cache key");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return keyError(path,
                    std::string("cannot be created: ") + std::strerror(errno));
  Status written = writeAll(fd, key, path);
  if (written.isOk() && ::fsync(fd) != 0)
    written = keyError(path, "cannot be synced");
  ::close(fd);
  if (!written.isOk()) {
    ::unlink(path.c_str());
    return written;
  }
  return key;
}

} // namespace

std::string defaultEntryKeyPath(const std::string &cacheDir) {
  std::string dir = cacheDir;
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  return dir + ".key";
}

StatusOr<std::string> loadOrCreateEntryKey(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 && errno == ENOENT)
    return createKey(path);
  if (fd < 0)
    return keyError(path,
                    std::string("cannot be opened: ") + std::strerror(errno));
  struct stat info;
  std::string why;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
    why = "is not a regular file";
  else if (info.st_uid != ::geteuid())
    why = "belongs to another user";
  else if ((info.st_mode & 0077) != 0)
    why = "may be read or written by others (chmod 600 it)";
  else if (info.st_size < static_cast<off_t>(kKeyBytes) ||
           info.st_size > static_cast<off_t>(kLargestKey))
    why = "must hold 32 to 4096 bytes";
  std::string key;
  if (why.empty()) {
    key.resize(static_cast<size_t>(info.st_size));
    size_t got = 0;
    while (got < key.size()) {
      ssize_t n = ::read(fd, key.data() + got, key.size() - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += static_cast<size_t>(n);
    }
    if (got != key.size())
      why = "cannot be read";
  }
  ::close(fd);
  if (!why.empty())
    return keyError(path, why);
  return key;
}

std::string entryMac(const std::string &key, const char *bytes, size_t size) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char *>(bytes), size, mac, &length);
  return std::string(reinterpret_cast<const char *>(mac), length);
}

bool sameMac(const std::string &a, const char *b, size_t size) {
  return a.size() == size && CRYPTO_memcmp(a.data(), b, size) == 0;
}

} // namespace anyshape::server

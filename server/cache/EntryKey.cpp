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
#include <unistd.h>

namespace anyshape::server {
namespace {

constexpr int64_t kLargestKey = 4096;

constexpr char kWhatTheKeyIsFor[] =
    " (it authenticates the code in the compile cache; --cache-key-file "
    "names another)";

Status keyError(const std::string &path, const std::string &why) {
  return Status(StatusCode::FailedPrecondition,
                "the cache key " + path + " " + why + kWhatTheKeyIsFor);
}

/// The key at `path`; NOT_FOUND if there is none.
StatusOr<std::string> readKey(const std::string &path) {
  auto key = readFileChecked(path, "cache key", kLargestKey,
                             /*ownerOnly=*/true);
  if (!key.isOk() && key.status().code() != StatusCode::NotFound)
    return Status(StatusCode::FailedPrecondition,
                  key.status().message() + kWhatTheKeyIsFor);
  if (key.isOk() && key->size() < kEntryKeyBytes)
    return keyError(path, "holds under 32 bytes (delete it to make a new "
                          "one; every cached entry is then recompiled)");
  return key;
}

/// A new key at `path`, made whole in a temporary file and then linked in
/// place: a server starting at the same time either links first or finds
/// the whole key, never half of one. Returns the key at `path` either way.
StatusOr<std::string> createKey(const std::string &path) {
  std::string key(kEntryKeyBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char *>(key.data()),
                 static_cast<int>(key.size())) != 1)
    return internalError("no random bytes for the cache key");
  std::string temp = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(temp.data()); // mode 0600
  if (fd < 0)
    return keyError(path,
                    std::string("cannot be created: ") + std::strerror(errno));
  Status written = writeAll(fd, key, temp);
  if (written.isOk() && ::fsync(fd) != 0)
    written = keyError(path, "cannot be synced");
  ::close(fd);
  bool linked = written.isOk() && ::link(temp.c_str(), path.c_str()) == 0;
  int linkError = errno;
  ::unlink(temp.c_str());
  if (!written.isOk())
    return written;
  if (!linked && linkError != EEXIST)
    return keyError(path, std::string("cannot be created: ") +
                              std::strerror(linkError));
  if (linked) {
    std::string dir = path.substr(0, path.rfind('/') + 1);
    int dirFd = ::open(dir.empty() ? "." : dir.c_str(),
                       O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
      ::fsync(dirFd);
      ::close(dirFd);
    }
    return key;
  }
  return readKey(path); // another server linked its key first
}

} // namespace

std::string defaultEntryKeyPath(const std::string &cacheDir) {
  std::string dir = cacheDir;
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  return dir + ".key";
}

StatusOr<std::string> loadOrCreateEntryKey(const std::string &path) {
  auto key = readKey(path);
  if (!key.isOk() && key.status().code() == StatusCode::NotFound)
    return createKey(path);
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

// Bundling an executable's objects into one string (ObjectBundle.h).
#include "jit/ObjectBundle.h"

#include <cstdint>
#include <cstring>

namespace anyshape::jit {
namespace {

constexpr std::string_view kMagic = "anyshape-objects"; // 16 bytes
static_assert(kMagic.size() == 16);

template <typename T> void append(std::string &out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T)); // hosts are little-endian (x86-64)
  out.append(bytes, sizeof(T));
}

/// Reads a T at `at` and advances it; false when fewer bytes are left.
template <typename T> bool read(std::string_view code, size_t &at, T &value) {
  if (code.size() - at < sizeof(T))
    return false;
  std::memcpy(&value, code.data() + at, sizeof(T));
  at += sizeof(T);
  return true;
}

} // namespace

std::string bundleObjects(std::vector<std::string> objects) {
  if (objects.size() == 1)
    return std::move(objects.front());
  std::string out(kMagic);
  append(out, static_cast<uint32_t>(objects.size()));
  for (const std::string &object : objects) {
    append(out, static_cast<uint64_t>(object.size()));
    out += object;
  }
  return out;
}

StatusOr<std::vector<std::string_view>> objectsIn(std::string_view code) {
  if (code.substr(0, kMagic.size()) != kMagic)
    return std::vector<std::string_view>{code};
  size_t at = kMagic.size();
  uint32_t count = 0;
  if (!read(code, at, count) || count < 2 || count > kMaxBundledObjects)
    return invalidArgument("damaged object bundle: bad object count");
  std::vector<std::string_view> objects;
  for (uint32_t k = 0; k < count; ++k) {
    uint64_t size = 0;
    if (!read(code, at, size) || size > code.size() - at)
      return invalidArgument("damaged object bundle: object " +
                             std::to_string(k) + " runs past the end");
    objects.push_back(code.substr(at, size));
    at += size;
  }
  if (at != code.size())
    return invalidArgument("damaged object bundle: bytes after the last "
                           "object");
  return objects;
}

} // namespace anyshape::jit

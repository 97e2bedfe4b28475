// Record layout (all integers u64 little-endian):
//   "ASHAPE03" | len identity | len key | len graph | len info |
//   len object | len device | HMAC-SHA256 of every byte before it
// where device is empty for a CPU executable and "cuda" followed by a
// serialised v1::DeviceCode (its cubins) for a CUDA one, and "len X" is
// X's byte length followed by its bytes.
#include "server/cache/EntryRecord.h"

#include "server/cache/EntryKey.h"

#include <cstring>

namespace anyshape::server {
namespace {

constexpr char kMagic[8] = {'A', 'S', 'H', 'A', 'P', 'E', '0', '3'};
constexpr size_t kMacBytes = kEntryMacBytes;
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

Status refused(const std::string &why) {
  return Status(StatusCode::DataLoss, why);
}

} // namespace

std::string sealEntry(const StoredExecutable &entry, const std::string &key,
                      const std::string &identity,
                      const std::string &entryKey) {
  std::string bytes(kMagic, sizeof(kMagic));
  putPart(bytes, identity);
  putPart(bytes, key);
  putPart(bytes, entry.compiledGraph.SerializeAsString());
  putPart(bytes, entry.info.SerializeAsString());
  putPart(bytes, entry.objectCode);
  putPart(bytes, entry.device
                     ? kDevicePrefix +
                           deviceCodeToProto(*entry.device).SerializeAsString()
                     : std::string());
  bytes += entryMac(entryKey, bytes.data(), bytes.size());
  return bytes;
}

StatusOr<StoredExecutable> openEntry(const std::string &bytes,
                                     const std::string &key,
                                     const std::string &identity,
                                     const std::string &entryKey) {
  if (bytes.size() < sizeof(kMagic) + kMacBytes ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return refused("not a cache entry or truncated");
  // Before anything is parsed: only a holder of the key makes a valid MAC.
  size_t end = bytes.size() - kMacBytes;
  if (!sameMac(entryMac(entryKey, bytes.data(), end), bytes.data() + end,
               kMacBytes))
    return refused("not authenticated (written by another server, or "
                   "damaged)");
  size_t at = sizeof(kMagic);
  std::string storedIdentity, storedKey, graph, info, object, device;
  if (!takePart(bytes, at, end, storedIdentity) ||
      !takePart(bytes, at, end, storedKey) ||
      !takePart(bytes, at, end, graph) || !takePart(bytes, at, end, info) ||
      !takePart(bytes, at, end, object) || !takePart(bytes, at, end, device) ||
      at != end)
    return refused("malformed");
  if (storedIdentity != identity)
    return refused("written by another compiler build or for another target");
  if (storedKey != key)
    return refused("stored under another key");
  StoredExecutable entry;
  if (!entry.compiledGraph.ParseFromString(graph) ||
      !entry.info.ParseFromString(info))
    return refused("malformed metadata");
  entry.objectCode = std::move(object);
  // "" for a CPU executable; else "cuda" and its DeviceCode.
  if (!device.empty()) {
    v1::DeviceCode code;
    if (device.rfind(kDevicePrefix, 0) != 0 ||
        !code.ParseFromString(device.substr(sizeof(kDevicePrefix) - 1)))
      return refused("malformed device code");
    entry.device = deviceCodeFromProto(code);
  }
  return entry;
}

} // namespace anyshape::server

// keepFreedHeap (HeapPolicy.h): glibc's mallopt, once at startup.
#include "HeapPolicy.h"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace anyshape::server {
namespace {

/// glibc's upper bound of M_MMAP_THRESHOLD on 64-bit (its
/// DEFAULT_MMAP_THRESHOLD_MAX): blocks above it are always mapped.
constexpr int64_t kLargestMapThreshold = int64_t{32} << 20;

} // namespace

std::string keepFreedHeap(int64_t bytes) {
  if (bytes <= 0)
    return "glibc's defaults";
  const char *tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::strstr(tunables, "glibc.malloc."))
    return "GLIBC_TUNABLES";
  // Setting either disables glibc's own adjustment of both, so both are
  // set: a fixed 128 KiB mapping threshold would map every large tensor.
  int trim = static_cast<int>(std::min<int64_t>(bytes, INT32_MAX));
  int map = static_cast<int>(std::min(bytes, kLargestMapThreshold));
  if (mallopt(M_TRIM_THRESHOLD, trim) != 1 ||
      mallopt(M_MMAP_THRESHOLD, map) != 1)
    return "glibc's defaults (mallopt refused)";
  return std::to_string(bytes) + " bytes kept";
}

} // namespace anyshape::server

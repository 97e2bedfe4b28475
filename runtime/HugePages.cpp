// allocateForHugePages (HugePages.h).
#include "runtime/HugePages.h"

#include <sys/mman.h>

#include <cstdlib>

namespace anyshape::runtime {

void *allocateForHugePages(size_t bytes) {
  void *memory = nullptr;
  if (posix_memalign(&memory, kHugePageBytes, bytes == 0 ? 1 : bytes) != 0)
    return nullptr;
  // Only whole extents: advising a partial one would make the kernel back
  // the rest of its 2 MiB, beyond what was asked for, when it is touched.
  size_t whole = bytes / kHugePageBytes * kHugePageBytes;
  if (whole > 0)
    (void)madvise(memory, whole, MADV_HUGEPAGE); // advice: failure is fine
  return memory;
}

} // namespace anyshape::runtime

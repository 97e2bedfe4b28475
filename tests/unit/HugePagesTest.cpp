// allocateForHugePages (runtime/HugePages.h): the memory is 2 MiB aligned
// and the kernel may back it with transparent huge pages, as
// /proc/self/smaps says of the mapping that holds it.
#include "runtime/HugePages.h"

#include "runtime/support/Sanitizers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace anyshape::runtime {
namespace {

/// Whether the kernel gives transparent huge pages to memory that asks
/// (its mode is "always" or "madvise", not "never").
bool hugePagesOnRequest() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(in, modes);
  return modes.find("[always]") != std::string::npos ||
         modes.find("[madvise]") != std::string::npos;
}

/// The THPeligible field of the smaps entry of the mapping holding
/// `address`: 1 when its pages may be huge; -1 if not found. Advice splits
/// a mapping, so the entry is the advised range's own.
int hugePageEligible(const void *address) {
  auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t start = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> start >> dash >> end && dash == '-') {
      inside = start <= at && at < end;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0)
      return std::atoi(line.c_str() + std::strlen("THPeligible:"));
  }
  return -1;
}

TEST(HugePages, LargeBlocksAreAlignedAndEligible) {
  if (kSanitizedBuild)
    GTEST_SKIP() << "the sanitizers bring their own allocator";
  constexpr size_t kBytes = 3 * kHugePageBytes + 12345;
  void *block = allocateForHugePages(kBytes);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % kHugePageBytes, 0u);
  std::memset(block, 1, kBytes);
  if (hugePagesOnRequest())
    EXPECT_EQ(hugePageEligible(block), 1)
        << "the block's whole 2 MiB extents are not advised";
  std::free(block);
}

TEST(HugePages, SmallBlocksAreAlignedAndUsable) {
  for (size_t bytes : {size_t{0}, size_t{1}, kHugePageBytes - 1}) {
    void *block = allocateForHugePages(bytes);
    ASSERT_NE(block, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % kHugePageBytes, 0u);
    std::memset(block, 1, bytes);
    std::free(block);
  }
}

} // namespace
} // namespace anyshape::runtime

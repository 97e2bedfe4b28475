// The CUDA chips' one owner (runtime/cuda/Chips.h): the names a request,
// the CLI and codegen accept, and the default.
#include "runtime/cuda/Chips.h"

#include <gtest/gtest.h>

using namespace anyshape::runtime::cuda;

TEST(CudaChips, EveryChipParsesByNameAndByDigits) {
  for (const Chip &chip : kChips) {
    EXPECT_EQ(smVersionOf(chip.name), chip.smVersion);
    EXPECT_EQ(smVersionOf(std::string(chip.name).substr(3)), chip.smVersion);
    EXPECT_EQ(chipName(chip.smVersion), chip.name);
  }
  EXPECT_EQ(smVersionOf(""), kDefaultSmVersion);
  EXPECT_EQ(chipName(kDefaultSmVersion), "sm_90");
  EXPECT_EQ(chipList(), "sm_80, sm_90");
}

TEST(CudaChips, AnyOtherNameIsNoChip) {
  for (const char *name : {"sm_50", "sm_", "sm_900", "sm_8", "SM_90", "90a",
                           "sm_90 ", "compute_90", "9"})
    EXPECT_EQ(smVersionOf(name), 0) << name;
}

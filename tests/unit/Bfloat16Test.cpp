// The runtime's __truncsfbf2 (runtime/Bfloat16.h), called as JITed code
// calls it on hosts without AVX-512 BF16: ties to even, carries into the
// exponent, NaN and infinities. On hosts with the instruction the JIT
// never calls it, so these cases are checked here directly.
#include "runtime/Bfloat16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

using namespace anyshape::runtime;

namespace {

uint16_t bitsOf(float value) {
  __bf16 rounded = anyshapeTruncF32ToBf16(value);
  uint16_t bits;
  std::memcpy(&bits, &rounded, sizeof bits);
  return bits;
}

float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

TEST(Bfloat16, RoundsToNearestTiesToEven) {
  EXPECT_EQ(bitsOf(1.0f), 0x3f80);
  EXPECT_EQ(bitsOf(-2.0f), 0xc000);
  EXPECT_EQ(bitsOf(fromBits(0x3f808000)), 0x3f80); // tie, even below
  EXPECT_EQ(bitsOf(fromBits(0x3f818000)), 0x3f82); // tie, even above
  EXPECT_EQ(bitsOf(fromBits(0x3f808001)), 0x3f81); // above the tie
  EXPECT_EQ(bitsOf(fromBits(0x3f807fff)), 0x3f80); // below it
  EXPECT_EQ(bitsOf(fromBits(0x3fffffff)), 0x4000); // carries into exponent
}

TEST(Bfloat16, KeepsNaNsInfinitiesAndZeros) {
  EXPECT_EQ(bitsOf(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(bitsOf(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(bitsOf(fromBits(0x7f7fffff)), 0x7f80); // max float rounds up
  EXPECT_EQ(bitsOf(0.0f), 0x0000);
  EXPECT_EQ(bitsOf(-0.0f), 0x8000);
  uint16_t nan = bitsOf(fromBits(0x7f800001)); // signalling, low payload
  EXPECT_EQ(nan & 0x7f80, 0x7f80);
  EXPECT_NE(nan & 0x007f, 0) << "a NaN became an infinity";
  EXPECT_NE(nan & 0x0040, 0) << "not quiet";
}

} // namespace

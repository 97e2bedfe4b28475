// compareLiterals, the comparison every differential test and `anyshape
// eval --check` rely on: within tolerance is a match, NaN matches only NaN,
// infinities match exactly, and a mismatch always shows in the maxima (a
// --check line once printed max errors of 0 next to MISMATCH).
#include "ir/reference/Compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace anyshape {
namespace {

Literal f32(const std::vector<double> &values) {
  Literal l = Literal::zeros(v1::DTYPE_F32, {int64_t(values.size())});
  for (size_t k = 0; k < values.size(); ++k)
    l.setDouble(k, values[k]);
  return l;
}

TEST(CompareTest, WithinToleranceMatches) {
  NumericDiff d = compareLiterals(f32({1.0, 2.0}), f32({1.0, 2.0 + 1e-7}));
  EXPECT_TRUE(d.ok());
  EXPECT_LT(d.maxAbsError, 1e-6);
  EXPECT_FALSE(compareLiterals(f32({1.0}), f32({1.5})).ok());
}

TEST(CompareTest, NonFiniteMismatchesShowInTheMaxima) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(compareLiterals(f32({nan, inf}), f32({nan, inf})).ok());
  for (auto [actual, expected] :
       {std::pair{nan, 0.0}, {0.0, nan}, {inf, 1.0}, {-inf, inf}}) {
    NumericDiff d = compareLiterals(f32({1.0, actual}), f32({1.0, expected}));
    EXPECT_FALSE(d.ok()) << actual << " vs " << expected;
    EXPECT_EQ(d.mismatches, 1);
    EXPECT_TRUE(std::isinf(d.maxAbsError)) << d.maxAbsError;
    EXPECT_TRUE(std::isinf(d.maxRelError)) << d.maxRelError;
  }
}

TEST(CompareTest, IntegerMismatchesShowInTheMaxima) {
  Literal a = Literal::zeros(v1::DTYPE_I32, {2}), e = a;
  e.setInt(1, 7);
  NumericDiff d = compareLiterals(a, e);
  EXPECT_FALSE(d.ok());
  EXPECT_EQ(d.maxAbsError, 7);
}

} // namespace
} // namespace anyshape

// The runtime's GEMM (runtime/Gemm.h) on each operand layout the pipeline
// passes: dense, a transposed view read in place (batch_matmul_transpose_a
// and _b), and any other strided view (packed first), against a plain
// triple loop, over sizes with ones, odd sizes and an empty contraction.
#include "runtime/Gemm.h"
#include "GemmOperand.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

using anyshape::runtime::anyshapeBatchMatmulF32;
using anyshape::test::Layout;
using Operand = anyshape::test::GemmOperand;
constexpr auto make = anyshape::test::makeGemmOperand;

class GemmLayouts
    : public ::testing::TestWithParam<std::tuple<Layout, Layout>> {};

TEST_P(GemmLayouts, MatchTheTripleLoop) {
  auto [aLayout, bLayout] = GetParam();
  std::mt19937 random(7);
  for (auto [b, m, n, k] : std::vector<std::array<int64_t, 4>>{{1, 1, 1, 1},
                                                               {2, 3, 5, 4},
                                                               {12, 7, 7, 64},
                                                               {3, 1, 17, 9},
                                                               {2, 33, 1, 5},
                                                               {1, 64, 48, 1},
                                                               {2, 4, 3, 0}}) {
    Operand a = make(b, m, k, aLayout, random);
    Operand bm = make(b, k, n, bLayout, random);
    Operand c = make(b, m, n, Layout::kDense, random);
    anyshapeBatchMatmulF32(&a.view, &bm.view, &c.view, nullptr);
    for (int64_t i = 0; i < b; ++i)
      for (int64_t r = 0; r < m; ++r)
        for (int64_t col = 0; col < n; ++col)
          ASSERT_NEAR(c.at(i, r, col),
                      anyshape::test::productAt(a, bm, i, r, col), 1e-4)
              << "b=" << b << " m=" << m << " n=" << n << " k=" << k << " at ["
              << i << ", " << r << ", " << col << "]";
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllPairs, GemmLayouts,
    ::testing::Combine(::testing::Values(Layout::kDense, Layout::kTransposed,
                                         Layout::kStrided),
                       ::testing::Values(Layout::kDense, Layout::kTransposed,
                                         Layout::kStrided)));

} // namespace

// Every layout the pipeline passes gets the library's JIT GEMM: a
// transposed view (attention's K^T, a weight stored transposed) must not
// fall to oneDNN's reference loop, on this host's ISA whichever it is.
TEST(GemmImplementation, NoLayoutFallsToTheReferenceLoop) {
  for (bool aTransposed : {false, true})
    for (bool bTransposed : {false, true}) {
      std::string chosen =
          anyshape::runtime::gemmImplementation(aTransposed, bTransposed);
      SCOPED_TRACE("a transposed " + std::to_string(aTransposed) +
                   ", b transposed " + std::to_string(bTransposed) + ": " +
                   chosen);
      EXPECT_NE(chosen, "none");
      EXPECT_EQ(chosen.find("ref"), std::string::npos);
    }
}

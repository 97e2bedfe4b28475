// The runtime's GEMM (runtime/Gemm.h) on each operand layout the pipeline
// passes: dense, a transposed view read in place (batch_matmul_transpose_a
// and _b), and any other strided view (packed first), against a plain
// triple loop, over sizes with ones, odd sizes and an empty contraction.
#include "runtime/Gemm.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

using anyshape::runtime::anyshapeBatchMatmulF32;
using anyshape::runtime::Memref3D;

enum class Layout { kDense, kTransposed, kStrided };

/// A [b, rows, cols] operand stored as `layout` says, with its values.
struct Operand {
  std::vector<float> storage;
  Memref3D view;
  float at(int64_t i, int64_t r, int64_t c) const {
    return view.aligned[view.offset + i * view.strides[0] +
                        r * view.strides[1] + c * view.strides[2]];
  }
};

Operand make(int64_t b, int64_t rows, int64_t cols, Layout layout,
             std::mt19937 &random) {
  Operand o;
  // Strided: every other column of a twice-as-wide buffer, 3 floats in.
  int64_t wide = layout == Layout::kStrided ? 2 * cols : cols;
  o.storage.resize(b * rows * wide + 3);
  std::uniform_real_distribution<float> value(-1, 1);
  for (float &x : o.storage)
    x = value(random);
  o.view.allocated = o.view.aligned = o.storage.data();
  o.view.sizes[0] = b, o.view.sizes[1] = rows, o.view.sizes[2] = cols;
  switch (layout) {
  case Layout::kDense:
    o.view.offset = 0;
    o.view.strides[0] = rows * cols, o.view.strides[1] = cols;
    o.view.strides[2] = 1;
    break;
  case Layout::kTransposed: // [b, cols, rows] in memory
    o.view.offset = 0;
    o.view.strides[0] = rows * cols, o.view.strides[1] = 1;
    o.view.strides[2] = rows;
    break;
  case Layout::kStrided:
    o.view.offset = 3;
    o.view.strides[0] = rows * wide, o.view.strides[1] = wide;
    o.view.strides[2] = 2;
    break;
  }
  return o;
}

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
        for (int64_t col = 0; col < n; ++col) {
          double expected = 0;
          for (int64_t l = 0; l < k; ++l)
            expected += double(a.at(i, r, l)) * bm.at(i, l, col);
          ASSERT_NEAR(c.at(i, r, col), expected, 1e-4)
              << "b=" << b << " m=" << m << " n=" << n << " k=" << k << " at ["
              << i << ", " << r << ", " << col << "]";
        }
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllPairs, GemmLayouts,
    ::testing::Combine(::testing::Values(Layout::kDense, Layout::kTransposed,
                                         Layout::kStrided),
                       ::testing::Values(Layout::kDense, Layout::kTransposed,
                                         Layout::kStrided)));

} // namespace

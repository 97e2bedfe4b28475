// A GEMM operand for the runtime's GEMM tests (GemmTest, PackedGemmTest):
// a [batch, rows, cols] rank-3 memref descriptor over random values, in
// each layout generated code passes.
#pragma once

#include "runtime/Gemm.h"

#include <cstdint>
#include <random>
#include <vector>

namespace anyshape::test {

enum class Layout {
  kDense,      ///< row-major
  kTransposed, ///< each batch item stored [cols, rows]: a transposed view
  kStrided,    ///< every other column of a twice-as-wide buffer, 3 floats in
};

struct GemmOperand {
  std::vector<float> storage;
  runtime::Memref3D view{};
  float at(int64_t i, int64_t r, int64_t c) const {
    return view.aligned[view.offset + i * view.strides[0] +
                        r * view.strides[1] + c * view.strides[2]];
  }
};

inline GemmOperand makeGemmOperand(int64_t batch, int64_t rows, int64_t cols,
                                   Layout layout, std::mt19937 &random) {
  GemmOperand o;
  int64_t wide = layout == Layout::kStrided ? 2 * cols : cols;
  o.storage.resize(batch * rows * wide + 3);
  std::uniform_real_distribution<float> value(-1, 1);
  for (float &x : o.storage)
    x = value(random);
  o.view.allocated = o.view.aligned = o.storage.data();
  o.view.sizes[0] = batch, o.view.sizes[1] = rows, o.view.sizes[2] = cols;
  o.view.strides[0] = rows * wide;
  switch (layout) {
  case Layout::kDense:
    o.view.strides[1] = cols, o.view.strides[2] = 1;
    break;
  case Layout::kTransposed:
    o.view.strides[1] = 1, o.view.strides[2] = rows;
    break;
  case Layout::kStrided:
    o.view.offset = 3;
    o.view.strides[1] = wide, o.view.strides[2] = 2;
    break;
  }
  return o;
}

/// sum over l of a[i, r, l] * b[i, l, col], in double: what a GEMM's
/// c[i, r, col] must be within rounding.
inline double productAt(const GemmOperand &a, const GemmOperand &b, int64_t i,
                        int64_t r, int64_t col) {
  double sum = 0;
  for (int64_t l = 0; l < a.view.sizes[2]; ++l)
    sum += double(a.at(i, r, l)) * b.at(i, l, col);
  return sum;
}

} // namespace anyshape::test

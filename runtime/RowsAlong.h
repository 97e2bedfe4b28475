// The rows of a strided view along one axis, as the runtime's row ops
// (argsort, cumulative) walk them: each row's first element in the view,
// and where the row lands in a contiguous row-major result of the view's
// shape.
#pragma once

#include "NonZero.h" // StridedBytes

#include <cstdint>

namespace anyshape::runtime {

/// Calls `row(offset, first, inner)` for each row of `x` along `axis`, in
/// row-major order of the other dims: `offset` is the row's first element
/// in `x` (in elements from x.first; the row steps by x.strides[axis]),
/// `first` its first element in a contiguous result of x's shape, and
/// `inner` the result's stride along the axis.
template <typename Row>
void forEachRowAlong(const StridedBytes &x, int64_t axis, Row row) {
  int64_t count = x.elementCount();
  if (count <= 0)
    return;
  int64_t extent = x.sizes[axis];
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < x.rank; ++d)
    inner *= x.sizes[d];
  for (int64_t r = 0; r < count / extent; ++r) {
    int64_t rest = r, offset = 0;
    for (int64_t d = x.rank - 1; d >= 0; --d) {
      if (d == axis)
        continue;
      offset += (rest % x.sizes[d]) * x.strides[d];
      rest /= x.sizes[d];
    }
    row(offset, (r / inner) * extent * inner + r % inner, inner);
  }
}

} // namespace anyshape::runtime

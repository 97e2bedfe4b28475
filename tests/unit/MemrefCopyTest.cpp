// anyshapeMemrefCopy, the runtime's strided copy: against an element-by-
// element copy on random shapes (rank 0 to 5, size-0 and size-1 dims
// included) between views with random strides, contiguous runs, transposed
// and offset ones, for 1-, 4- and 8-byte elements; elements outside the
// target view stay as they were.
#include "runtime/MemrefCopy.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

namespace anyshape::runtime {
namespace {

/// A descriptor {allocated, aligned, offset, sizes, strides} over `data`.
std::vector<int64_t> descriptor(char *data, int64_t offset,
                                const std::vector<int64_t> &sizes,
                                const std::vector<int64_t> &strides) {
  std::vector<int64_t> d = {reinterpret_cast<int64_t>(data),
                            reinterpret_cast<int64_t>(data), offset};
  d.insert(d.end(), sizes.begin(), sizes.end());
  d.insert(d.end(), strides.begin(), strides.end());
  return d;
}

/// Strides over `sizes` with the dims laid out in `order` (outermost
/// first), each padded by `gap` elements; and the span they need.
std::vector<int64_t> stridesFor(const std::vector<int64_t> &sizes,
                                const std::vector<size_t> &order, int64_t gap,
                                int64_t &span) {
  std::vector<int64_t> strides(sizes.size());
  int64_t step = 1;
  for (size_t k = order.size(); k-- > 0;) {
    strides[order[k]] = step;
    step *= sizes[order[k]] + gap;
  }
  span = step;
  return strides;
}

TEST(MemrefCopy, MatchesAnElementwiseCopyOnRandomLayouts) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    size_t rank = rng() % 6;
    std::vector<int64_t> sizes(rank);
    for (int64_t &s : sizes)
      s = static_cast<int64_t>(rng() % 5) + (rng() % 8 == 0 ? 0 : 1);
    int64_t elementSize = std::vector<int64_t>{1, 4, 8}[rng() % 3];
    std::vector<size_t> fromOrder(rank), toOrder(rank);
    std::iota(fromOrder.begin(), fromOrder.end(), 0);
    std::iota(toOrder.begin(), toOrder.end(), 0);
    if (rng() % 2)
      std::shuffle(fromOrder.begin(), fromOrder.end(), rng);
    if (rng() % 3 == 0)
      std::shuffle(toOrder.begin(), toOrder.end(), rng);
    int64_t fromSpan = 0, toSpan = 0;
    std::vector<int64_t> fromStrides =
        stridesFor(sizes, fromOrder, rng() % 3 == 0 ? 1 : 0, fromSpan);
    std::vector<int64_t> toStrides =
        stridesFor(sizes, toOrder, rng() % 3 == 0 ? 2 : 0, toSpan);
    int64_t fromOffset = rng() % 3, toOffset = rng() % 3;
    std::vector<char> source((fromSpan + fromOffset) * elementSize),
        target((toSpan + toOffset) * elementSize, 0x5a);
    for (char &c : source)
      c = static_cast<char>(rng());
    std::vector<char> expected = target;
    // The element-by-element copy.
    int64_t count = 1;
    for (int64_t s : sizes)
      count *= s;
    std::vector<int64_t> index(rank, 0);
    for (int64_t k = 0; k < count; ++k) {
      int64_t a = fromOffset, b = toOffset;
      for (size_t d = 0; d < rank; ++d) {
        a += index[d] * fromStrides[d];
        b += index[d] * toStrides[d];
      }
      std::copy_n(&source[a * elementSize], elementSize,
                  &expected[b * elementSize]);
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < sizes[d])
          break;
        index[d] = 0;
      }
    }
    std::vector<int64_t> from =
        descriptor(source.data(), fromOffset, sizes, fromStrides);
    std::vector<int64_t> to =
        descriptor(target.data(), toOffset, sizes, toStrides);
    UnrankedMemref f{static_cast<int64_t>(rank), from.data()};
    UnrankedMemref t{static_cast<int64_t>(rank), to.data()};
    anyshapeMemrefCopy(elementSize, &f, &t);
    ASSERT_EQ(target, expected) << "trial " << trial << ", rank " << rank;
  }
}

} // namespace
} // namespace anyshape::runtime

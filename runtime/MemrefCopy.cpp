// Strided memref copy for JITed code (see MemrefCopy.h).
//
// The trailing dims that are contiguous in both views (each one's stride
// the product of the sizes after it) form one run, copied by one memcpy;
// the dims before it are walked with offsets kept incrementally. A cache
// concatenated into a larger one ([b, h, past, d] into [b, h, past + 1,
// d]) copies b * h runs of past * d elements, not past * d * b * h
// elements one by one with their offsets recomputed from every dim.
#include "MemrefCopy.h"

#include <cstring>
#include <vector>

namespace anyshape::runtime {
namespace {

struct View {
  char *base;
  const int64_t *sizes;
  const int64_t *strides;
};

View viewOf(const UnrankedMemref &m, int64_t elementSize) {
  auto *words = static_cast<int64_t *>(m.descriptor);
  char *aligned = reinterpret_cast<char *>(words[1]);
  return {aligned + words[2] * elementSize, words + 3, words + 3 + m.rank};
}

} // namespace

extern "C" void anyshapeMemrefCopy(int64_t elementSize, UnrankedMemref *source,
                                   UnrankedMemref *target) {
  int64_t rank = source->rank;
  View from = viewOf(*source, elementSize), to = viewOf(*target, elementSize);
  for (int64_t d = 0; d < rank; ++d)
    if (from.sizes[d] == 0)
      return;
  // The run: trailing dims laid out row-major in both views (a dim of
  // size 1 joins whatever its strides say).
  int64_t split = rank, run = 1;
  while (split > 0) {
    int64_t d = split - 1;
    bool contiguous =
        from.sizes[d] == 1 || (from.strides[d] == run && to.strides[d] == run);
    if (!contiguous)
      break;
    run *= from.sizes[d];
    --split;
  }
  size_t runBytes = static_cast<size_t>(run * elementSize);
  if (split == 0) {
    std::memmove(to.base, from.base, runBytes);
    return;
  }
  std::vector<int64_t> index(split, 0);
  int64_t a = 0, b = 0; // offsets in elements of the current run
  for (;;) {
    std::memcpy(to.base + b * elementSize, from.base + a * elementSize,
                runBytes);
    int64_t d = split - 1;
    for (; d >= 0; --d) {
      a += from.strides[d];
      b += to.strides[d];
      if (++index[d] < from.sizes[d])
        break;
      a -= from.strides[d] * from.sizes[d];
      b -= to.strides[d] * from.sizes[d];
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

} // namespace anyshape::runtime

// Strided memref copy for JITed code (see MemrefCopy.h).
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
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d)
    count *= from.sizes[d];
  if (count == 0)
    return;
  std::vector<int64_t> index(rank, 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t a = 0, b = 0;
    for (int64_t d = 0; d < rank; ++d) {
      a += index[d] * from.strides[d];
      b += index[d] * to.strides[d];
    }
    std::memcpy(to.base + b * elementSize, from.base + a * elementSize,
                elementSize);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < from.sizes[d])
        break;
      index[d] = 0;
    }
  }
}

} // namespace anyshape::runtime

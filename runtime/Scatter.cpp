// scatter on host buffers (Scatter.h).
#include "Scatter.h"

#include "support/Half.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace anyshape::runtime {
namespace {

/// Calls `visit(offset)` with each element's offset (in elements from
/// `view.first`) in row-major order.
template <typename Visit>
void forEachElement(const StridedBytes &view, Visit visit) {
  int64_t count = view.elementCount();
  if (count <= 0)
    return;
  std::vector<int64_t> index(static_cast<size_t>(view.rank), 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t offset = 0;
    for (int64_t d = 0; d < view.rank; ++d)
      offset += index[d] * view.strides[d];
    visit(offset);
    for (int64_t d = view.rank - 1; d >= 0 && ++index[d] == view.sizes[d]; --d)
      index[d] = 0;
  }
}

template <typename T> T load(const unsigned char *at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

template <typename T> void store(unsigned char *at, T value) {
  std::memcpy(at, &value, sizeof(T));
}

/// a combined with b; integers wrap, float max and min propagate NaN.
template <typename T> T combine(int64_t reduction, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if ((reduction == kScatterMax || reduction == kScatterMin) &&
        (std::isnan(a) || std::isnan(b)))
      return std::numeric_limits<T>::quiet_NaN();
  }
  // Integers in unsigned arithmetic, which wraps instead of overflowing.
  auto wide = [](T v) {
    if constexpr (std::is_floating_point_v<T>)
      return v;
    else
      return static_cast<std::make_unsigned_t<T>>(v);
  };
  switch (reduction) {
  case kScatterAdd:
    return static_cast<T>(wide(a) + wide(b));
  case kScatterMul:
    return static_cast<T>(wide(a) * wide(b));
  case kScatterMax:
    return std::max(a, b);
  case kScatterMin:
    return std::min(a, b);
  default:
    return b;
  }
}

/// The element at `to` combined with the one at `from`, in place.
void combineAt(unsigned char *to, const unsigned char *from, int64_t element,
               int64_t reduction) {
  switch (element) {
  case kScatterI32:
    return store(to,
                 combine(reduction, load<int32_t>(to), load<int32_t>(from)));
  case kScatterI64:
    return store(to,
                 combine(reduction, load<int64_t>(to), load<int64_t>(from)));
  case kScatterF32:
    return store(to, combine(reduction, load<float>(to), load<float>(from)));
  case kScatterF16:
    return store(to,
                 floatToHalf(combine(reduction, halfToFloat(load<uint16_t>(to)),
                                     halfToFloat(load<uint16_t>(from)))));
  case kScatterBF16:
    return store(to,
                 floatToBf16(combine(reduction, bf16ToFloat(load<uint16_t>(to)),
                                     bf16ToFloat(load<uint16_t>(from)))));
  default: // bool: replace only (validation refuses the folds)
    *to = *from;
  }
}

} // namespace

int64_t scatterElementBytes(int64_t element) {
  switch (element) {
  case kScatterI32:
  case kScatterF32:
    return 4;
  case kScatterI64:
    return 8;
  case kScatterF16:
  case kScatterBF16:
    return 2;
  default:
    return 1;
  }
}

void scatterRows(const StridedBytes &operand, const StridedBytes &indices,
                 int64_t indexBytes, const StridedBytes &updates,
                 unsigned char *out, int64_t element, int64_t reduction) {
  int64_t bytes = scatterElementBytes(element);
  unsigned char *next = out;
  forEachElement(operand, [&](int64_t offset) {
    std::memcpy(next, operand.first + offset * bytes, bytes);
    next += bytes;
  });
  int64_t rows = operand.rank ? operand.sizes[0] : 0;
  int64_t count = indices.elementCount();
  if (rows <= 0 || count <= 0)
    return;
  int64_t width = operand.elementCount() / rows;
  std::vector<int64_t> target(static_cast<size_t>(count));
  int64_t m = 0;
  forEachElement(indices, [&](int64_t offset) {
    const unsigned char *at = indices.first + offset * indexBytes;
    int64_t index = indexBytes == 4 ? load<int32_t>(at) : load<int64_t>(at);
    // Clamped into [0, rows), as gather's indices are.
    target[m++] = std::clamp<int64_t>(index, 0, rows - 1);
  });
  int64_t k = 0; // the update element's position, row-major
  forEachElement(updates, [&](int64_t offset) {
    // One update row per index (a shape check before the run): never read
    // past the indices whatever the caller's views say.
    if (k / width >= count)
      return;
    int64_t row = target[k / width], column = k % width;
    unsigned char *to = out + (row * width + column) * bytes;
    const unsigned char *from = updates.first + offset * bytes;
    if (reduction == kScatterReplace)
      std::memcpy(to, from, bytes);
    else
      combineAt(to, from, element, reduction);
    ++k;
  });
}

extern "C" void anyshapeScatter(UnrankedMemref *operand,
                                UnrankedMemref *indices,
                                UnrankedMemref *updates, UnrankedMemref *result,
                                int64_t element, int64_t indexBytes,
                                int64_t reduction, AnyshapeExecutionContext *) {
  int64_t bytes = scatterElementBytes(element);
  auto host = [](const UnrankedMemref &memref, int64_t width) {
    auto *words = static_cast<const int64_t *>(memref.descriptor);
    return StridedBytes::of(memref, reinterpret_cast<const void *>(words[1]),
                            width);
  };
  StridedBytes out = host(*result, bytes);
  scatterRows(host(*operand, bytes), host(*indices, indexBytes), indexBytes,
              host(*updates, bytes), const_cast<unsigned char *>(out.first),
              element, reduction);
}

} // namespace anyshape::runtime

// argsort on host buffers (Argsort.h).
#include "Argsort.h"
#include "RowsAlong.h"
#include "Scatter.h" // the element codes

#include "support/Half.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

namespace anyshape::runtime {
namespace {

/// A float's bits mapped to an unsigned integer of the same order, with
/// -0.0 equal to 0.0 and every NaN one value above +inf.
uint64_t floatKey(float value) {
  uint32_t bits;
  if (value != value)
    bits = 0x7fc00000u; // the one NaN, above +inf's 0x7f800000
  else if (value == 0.0f)
    bits = 0; // -0.0 is 0.0
  else
    std::memcpy(&bits, &value, 4);
  // Negative floats reverse their order; positive ones go above them.
  return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
}

/// The element at `at` as a key of the same order.
uint64_t keyOf(const unsigned char *at, int64_t element) {
  auto load = [&](auto value) {
    std::memcpy(&value, at, sizeof(value));
    return value;
  };
  // Signed integers offset so that the unsigned order is theirs.
  constexpr uint64_t kSign = uint64_t(1) << 63;
  switch (element) {
  case kScatterI32:
    return uint64_t(int64_t(load(int32_t()))) ^ kSign;
  case kScatterI64:
    return uint64_t(load(int64_t())) ^ kSign;
  case kScatterF32:
    return floatKey(load(float()));
  case kScatterF16:
    return floatKey(halfToFloat(load(uint16_t())));
  case kScatterBF16:
    return floatKey(bf16ToFloat(load(uint16_t())));
  default: // bool
    return *at != 0;
  }
}

} // namespace

void argsortRows(const StridedBytes &x, int64_t element, int64_t axis,
                 bool descending, int64_t *out) {
  if (x.elementCount() <= 0)
    return;
  int64_t extent = x.sizes[axis];
  std::vector<std::pair<uint64_t, int64_t>> row(static_cast<size_t>(extent));
  auto before = [descending](const std::pair<uint64_t, int64_t> &a,
                             const std::pair<uint64_t, int64_t> &b) {
    if (a.first != b.first)
      return descending ? a.first > b.first : a.first < b.first;
    return a.second < b.second; // stable: the lower position first
  };
  forEachRowAlong(x, axis, [&](int64_t offset, int64_t first, int64_t inner) {
    for (int64_t k = 0; k < extent; ++k)
      row[k] = {keyOf(x.first + (offset + k * x.strides[axis]) * x.elementBytes,
                      element),
                k};
    std::sort(row.begin(), row.end(), before);
    for (int64_t k = 0; k < extent; ++k)
      out[first + k * inner] = row[k].second;
  });
}

extern "C" void anyshapeArgsort(UnrankedMemref *operand, UnrankedMemref *result,
                                int64_t element, int64_t axis,
                                int64_t descending,
                                AnyshapeExecutionContext *) {
  auto host = [](const UnrankedMemref &memref, int64_t width) {
    auto *words = static_cast<const int64_t *>(memref.descriptor);
    return StridedBytes::of(memref, reinterpret_cast<const void *>(words[1]),
                            width);
  };
  StridedBytes out = host(*result, 8);
  argsortRows(
      host(*operand, scatterElementBytes(element)), element, axis,
      descending != 0,
      reinterpret_cast<int64_t *>(const_cast<unsigned char *>(out.first)));
}

} // namespace anyshape::runtime

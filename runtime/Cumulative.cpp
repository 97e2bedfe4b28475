// cumulative on host buffers (Cumulative.h).
#include "Cumulative.h"
#include "RowsAlong.h"
#include "Scatter.h" // the element codes

#include "support/Half.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace anyshape::runtime {
namespace {

// The v1::ReduceKind numbers.
constexpr int64_t kSum = 1, kMax = 2, kMin = 3, kProd = 4;

/// One fold step of a float running value (NaN propagates through max and
/// min, as reduce's do).
double foldFloat(int64_t kind, double a, double v) {
  switch (kind) {
  case kSum:
    return a + v;
  case kProd:
    return a * v;
  default:
    if (std::isnan(a) || std::isnan(v))
      return std::numeric_limits<double>::quiet_NaN();
    return kind == kMax ? std::max(a, v) : std::min(a, v);
  }
}

/// One fold step of an integer running value, wrapping as `T` does.
template <typename T> T foldInt(int64_t kind, T a, T v) {
  using U = std::make_unsigned_t<T>;
  switch (kind) {
  case kSum:
    return T(U(a) + U(v));
  case kProd:
    return T(U(a) * U(v));
  default:
    return kind == kMax ? std::max(a, v) : std::min(a, v);
  }
}

template <typename T> T identityInt(int64_t kind) {
  return kind == kSum    ? T(0)
         : kind == kProd ? T(1)
         : kind == kMax  ? std::numeric_limits<T>::lowest()
                         : std::numeric_limits<T>::max();
}

double identityFloat(int64_t kind) {
  return kind == kSum    ? 0.0
         : kind == kProd ? 1.0
         : kind == kMax  ? -std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::infinity();
}

/// Reads and writes one element type through a running value `Acc`.
struct FloatCodec {
  int64_t element;
  double read(const unsigned char *at) const {
    if (element == kScatterF32) {
      float v;
      std::memcpy(&v, at, 4);
      return v;
    }
    uint16_t bits;
    std::memcpy(&bits, at, 2);
    return element == kScatterF16 ? halfToFloat(bits) : bf16ToFloat(bits);
  }
  void write(unsigned char *at, double value) const {
    if (element == kScatterF32) {
      float v = float(value);
      std::memcpy(at, &v, 4);
      return;
    }
    uint16_t bits = element == kScatterF16 ? floatToHalf(float(value))
                                           : floatToBf16(float(value));
    std::memcpy(at, &bits, 2);
  }
};

} // namespace

void cumulativeRows(const StridedBytes &x, int64_t element, int64_t axis,
                    int64_t kind, int64_t flags, unsigned char *out) {
  int64_t extent = x.rank ? x.sizes[axis] : 0;
  int64_t bytes = x.elementBytes;
  bool exclusive = flags & kCumulativeExclusive;
  bool reverse = flags & kCumulativeReverse;
  // Each row walked in the fold's order: `fold` gives the running value's
  // start, steps it by an element, and writes it as the element type.
  auto walk = [&](auto fold) {
    forEachRowAlong(x, axis, [&](int64_t offset, int64_t first, int64_t inner) {
      auto state = fold.start();
      for (int64_t step = 0; step < extent; ++step) {
        int64_t k = reverse ? extent - 1 - step : step;
        const unsigned char *from =
            x.first + (offset + k * x.strides[axis]) * bytes;
        unsigned char *to = out + (first + k * inner) * bytes;
        if (exclusive)
          fold.write(to, state);
        state = fold.step(state, from);
        if (!exclusive)
          fold.write(to, state);
      }
    });
  };
  if (element == kScatterF32 || element == kScatterF16 ||
      element == kScatterBF16) {
    struct {
      FloatCodec codec;
      int64_t kind;
      double start() const { return identityFloat(kind); }
      double step(double a, const unsigned char *at) const {
        return foldFloat(kind, a, codec.read(at));
      }
      void write(unsigned char *at, double v) const { codec.write(at, v); }
    } fold{{element}, kind};
    return walk(fold);
  }
  auto integers = [&](auto zero) {
    using T = decltype(zero);
    struct {
      int64_t kind;
      T start() const { return identityInt<T>(kind); }
      T step(T a, const unsigned char *at) const {
        T v;
        std::memcpy(&v, at, sizeof(T));
        return foldInt<T>(kind, a, v);
      }
      void write(unsigned char *at, T v) const {
        std::memcpy(at, &v, sizeof(T));
      }
    } fold{kind};
    walk(fold);
  };
  if (element == kScatterI32)
    integers(int32_t());
  else if (element == kScatterI64)
    integers(int64_t());
}

extern "C" void anyshapeCumulative(UnrankedMemref *operand,
                                   UnrankedMemref *result, int64_t element,
                                   int64_t axis, int64_t kind, int64_t flags,
                                   AnyshapeExecutionContext *) {
  int64_t bytes = scatterElementBytes(element);
  auto host = [&](const UnrankedMemref &memref) {
    auto *words = static_cast<const int64_t *>(memref.descriptor);
    return StridedBytes::of(memref, reinterpret_cast<const void *>(words[1]),
                            bytes);
  };
  StridedBytes out = host(*result);
  cumulativeRows(host(*operand), element, axis, kind, flags,
                 const_cast<unsigned char *>(out.first));
}

} // namespace anyshape::runtime

// Constant values: raw data, splats, stored tensors and seeded uniforms.
#include "ConstantData.h"

#include "DType.h"
#include "ShapeInference.h"
#include "runtime/support/Half.h"
#include "runtime/support/RunOnThreads.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

namespace anyshape {
namespace {

template <typename Int> Int saturatingCast(double v) {
  if (std::isnan(v))
    return 0;
  if (v <= static_cast<double>(std::numeric_limits<Int>::min()))
    return std::numeric_limits<Int>::min();
  if (v >= static_cast<double>(std::numeric_limits<Int>::max()))
    return std::numeric_limits<Int>::max();
  return static_cast<Int>(v); // truncates toward zero
}

std::string shapeString(const google::protobuf::RepeatedField<int64_t> &s) {
  std::string out = "[";
  for (int i = 0; i < s.size(); ++i)
    out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

/// Element `index` of a SeededUniform constant of a float dtype: the one
/// formula, so that every fill path produces the same bits.
double seededReal(uint64_t seed, double low, double high, int64_t index) {
  return low + (high - low) * seededUnit(seed, static_cast<uint64_t>(index));
}

/// Element `index` of a SeededUniform constant of `dtype`, before encoding.
double seededValue(uint64_t seed, double low, double high, v1::DType dtype,
                   int64_t index) {
  if (dtype == v1::DTYPE_BOOL)
    return seededUnit(seed, static_cast<uint64_t>(index)) >= 0.5 ? 1.0 : 0.0;
  double v = seededReal(seed, low, high, index);
  return isIntegerDType(dtype) ? std::floor(v) : v;
}

/// Writes element index(k) of the constant to at(k) for k in [begin, end).
/// f32, the dtype of every weight, skips the per-element dtype dispatch:
/// taking it cost the 12-layer encoder's link 0.15 s of 0.5.
template <typename Index, typename At>
void fillElements(uint64_t seed, double low, double high, v1::DType dtype,
                  int64_t begin, int64_t end, Index index, At at) {
  if (dtype == v1::DTYPE_F32) {
    for (int64_t k = begin; k < end; ++k) {
      float f = static_cast<float>(seededReal(seed, low, high, index(k)));
      std::memcpy(at(k), &f, sizeof f);
    }
    return;
  }
  for (int64_t k = begin; k < end; ++k)
    encodeElement(seededValue(seed, low, high, dtype, index(k)), dtype, at(k));
}

/// Runs body(begin, end) over [0, count) in contiguous parts, one per
/// core when the work (`count` items of `elementsEach` elements) is worth
/// it: generating a model's weights at load is most of a large
/// executable's link (85 M elements for 12 encoder layers).
template <typename Body>
void inParts(int64_t count, int64_t elementsEach, Body body) {
  constexpr int64_t kMinPerThread = int64_t{1} << 18; // elements
  int64_t parts = std::min<int64_t>(
      {int64_t{std::thread::hardware_concurrency()}, count,
       count * elementsEach / kMinPerThread}); // a buffer: no overflow
  if (parts <= 1) {
    body(int64_t{0}, count);
    return;
  }
  runOnThreads(parts, [&](int64_t part) {
    body(count * part / parts, count * (part + 1) / parts);
  });
}

} // namespace

double seededUnit(uint64_t seed, uint64_t index) {
  uint64_t z = seed + index * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

void fillSeededUniform(uint64_t seed, double low, double high, v1::DType dtype,
                       int64_t count, char *out) {
  int64_t elementSize = dtypeByteSize(dtype);
  inParts(count, 1, [&](int64_t begin, int64_t end) {
    fillElements(
        seed, low, high, dtype, begin, end, [](int64_t k) { return k; },
        [&](int64_t k) { return out + k * elementSize; });
  });
}

void fillSeededUniformTransposed(uint64_t seed, double low, double high,
                                 v1::DType dtype, int64_t rows, int64_t cols,
                                 char *out) {
  int64_t elementSize = dtypeByteSize(dtype);
  // Column c of the constant is row c of the output: its writes are
  // sequential, the generator is random access anyway.
  inParts(cols, rows, [&](int64_t firstColumn, int64_t endColumn) {
    for (int64_t c = firstColumn; c < endColumn; ++c)
      fillElements(
          seed, low, high, dtype, 0, rows,
          [&](int64_t r) { return r * cols + c; },
          [&](int64_t r) { return out + (c * rows + r) * elementSize; });
  });
}

bool isGeneratedConstant(const v1::ConstantAttrs &attrs) {
  if (attrs.value_case() != v1::ConstantAttrs::kSplat &&
      attrs.value_case() != v1::ConstantAttrs::kSeededUniform)
    return false;
  int64_t count = 1;
  for (int64_t size : attrs.shape())
    if (size < 0 || __builtin_mul_overflow(count, size, &count))
      return false;
  return count > kLargestEmbeddedGeneratedConstant;
}

StatusOr<int64_t> embeddedConstantBytes(const v1::ConstantAttrs &attrs) {
  ANYSHAPE_ASSIGN_OR_RETURN(int64_t bytes, constantByteSize(attrs));
  return isGeneratedConstant(attrs) ? 0 : bytes;
}

float floatRoundedToOdd(double value) {
  float f = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (!std::isfinite(f) || static_cast<double>(f) == value || (bits & 1))
    return f;
  // Inexact with an even last bit: the other neighbour of `value` is odd.
  return std::nextafter(f, value > f ? HUGE_VALF : -HUGE_VALF);
}

void encodeElement(double value, v1::DType dtype, char *out) {
  switch (dtype) {
  case v1::DTYPE_F32: {
    float f = static_cast<float>(value);
    std::memcpy(out, &f, 4);
    return;
  }
  case v1::DTYPE_F16: {
    uint16_t h = floatToHalf(floatRoundedToOdd(value));
    std::memcpy(out, &h, 2);
    return;
  }
  case v1::DTYPE_BF16: {
    uint16_t h = floatToBf16(floatRoundedToOdd(value));
    std::memcpy(out, &h, 2);
    return;
  }
  case v1::DTYPE_I32: {
    int32_t i = saturatingCast<int32_t>(value);
    std::memcpy(out, &i, 4);
    return;
  }
  case v1::DTYPE_I64: {
    int64_t i = saturatingCast<int64_t>(value);
    std::memcpy(out, &i, 8);
    return;
  }
  case v1::DTYPE_BOOL:
    *out = value != 0 ? 1 : 0;
    return;
  default:
    return;
  }
}

StatusOr<v1::Tensor> materializeConstant(const v1::ConstantAttrs &attrs,
                                         const TensorLookup *tensors) {
  ANYSHAPE_ASSIGN_OR_RETURN(int64_t bytes, constantByteSize(attrs));
  int64_t elementSize = dtypeByteSize(attrs.dtype());
  if (elementSize == 0)
    return invalidArgument("constant has unknown dtype");
  int64_t count = bytes / elementSize;
  v1::Tensor tensor;
  tensor.set_dtype(attrs.dtype());
  *tensor.mutable_shape() = attrs.shape();
  switch (attrs.value_case()) {
  case v1::ConstantAttrs::kData:
    if (static_cast<int64_t>(attrs.data().size()) != bytes)
      return invalidArgument("constant data size does not match its type");
    tensor.set_data(attrs.data());
    return tensor;
  case v1::ConstantAttrs::kTensorId: {
    const v1::Tensor *stored =
        tensors ? tensors->find(attrs.tensor_id()) : nullptr;
    if (!stored)
      return notFound("stored tensor '" + attrs.tensor_id() + "' not found");
    if (stored->dtype() != attrs.dtype() ||
        stored->shape().size() != attrs.shape().size() ||
        !std::equal(stored->shape().begin(), stored->shape().end(),
                    attrs.shape().begin()))
      return invalidArgument(
          "stored tensor '" + attrs.tensor_id() + "' is " +
          dtypeName(stored->dtype()) + shapeString(stored->shape()) +
          ", the constant declares " + dtypeName(attrs.dtype()) +
          shapeString(attrs.shape()));
    if (static_cast<int64_t>(stored->data().size()) != bytes)
      return invalidArgument("stored tensor '" + attrs.tensor_id() +
                             "' has the wrong byte size");
    tensor.set_data(stored->data());
    return tensor;
  }
  case v1::ConstantAttrs::kSplat: {
    std::string data(static_cast<size_t>(bytes), '\0');
    if (count > 0) {
      encodeElement(attrs.splat(), attrs.dtype(), data.data());
      for (int64_t i = 1; i < count; ++i)
        std::memcpy(data.data() + i * elementSize, data.data(), elementSize);
    }
    tensor.set_data(std::move(data));
    return tensor;
  }
  case v1::ConstantAttrs::kSeededUniform: {
    const auto &su = attrs.seeded_uniform();
    std::string data(static_cast<size_t>(bytes), '\0');
    fillSeededUniform(su.seed(), su.low(), su.high(), attrs.dtype(), count,
                      data.data());
    tensor.set_data(std::move(data));
    return tensor;
  }
  case v1::ConstantAttrs::VALUE_NOT_SET:
    break;
  }
  return invalidArgument("constant has no value");
}

} // namespace anyshape

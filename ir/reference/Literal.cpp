// Literal storage, rounding rules and conversion to and from wire tensors.
#include "Literal.h"

#include "ir/graph/ConstantData.h"
#include "runtime/support/Half.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace anyshape {

Literal Literal::zeros(DType dtype, std::vector<int64_t> shape) {
  Literal lit;
  lit.dtype = dtype;
  lit.shape = std::move(shape);
  int64_t n = lit.numElements();
  if (lit.isFloat())
    lit.f.assign(n, 0.0);
  else
    lit.i.assign(n, 0);
  return lit;
}

int64_t Literal::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

double roundToFloatDType(double v, DType dtype) {
  switch (dtype) {
  case v1::DTYPE_F16:
    return halfToFloat(floatToHalf(floatRoundedToOdd(v)));
  case v1::DTYPE_BF16:
    return bf16ToFloat(floatToBf16(floatRoundedToOdd(v)));
  default:
    return static_cast<float>(v);
  }
}

int64_t wrapToIntDType(int64_t v, DType dtype) {
  if (dtype == v1::DTYPE_I32)
    return static_cast<int32_t>(static_cast<uint32_t>(v));
  if (dtype == v1::DTYPE_BOOL)
    return v != 0;
  return v;
}

void Literal::setDouble(int64_t k, double v) {
  if (isFloat()) {
    f[k] = roundToFloatDType(v, dtype);
    return;
  }
  if (dtype == v1::DTYPE_BOOL) {
    i[k] = v != 0;
    return;
  }
  double lo = dtype == v1::DTYPE_I32 ? std::numeric_limits<int32_t>::min()
                                     : std::numeric_limits<int64_t>::min();
  // 2^63 as a double; every double at or above it saturates.
  double hi = dtype == v1::DTYPE_I32
                  ? std::numeric_limits<int32_t>::max()
                  : static_cast<double>(std::numeric_limits<int64_t>::max());
  if (std::isnan(v))
    i[k] = 0;
  else if (v <= lo)
    i[k] = static_cast<int64_t>(lo);
  else if (v >= hi)
    i[k] = dtype == v1::DTYPE_I32 ? std::numeric_limits<int32_t>::max()
                                  : std::numeric_limits<int64_t>::max();
  else
    i[k] = static_cast<int64_t>(v);
}

void Literal::setInt(int64_t k, int64_t v) {
  if (!isFloat()) {
    i[k] = wrapToIntDType(v, dtype);
    return;
  }
  // Through a double rounded to odd (inexact beyond 2^53), so that the
  // rounding to the dtype is the only one that counts.
  double d = static_cast<double>(v);
  __int128 error = static_cast<__int128>(v) - static_cast<__int128>(d);
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  if (error != 0 && !(bits & 1))
    d = std::nextafter(d, error > 0 ? HUGE_VAL : -HUGE_VAL);
  f[k] = roundToFloatDType(d, dtype);
}

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

StatusOr<Literal> literalFromTensor(const v1::Tensor &tensor,
                                    const GraphLimits &limits) {
  if (!isKnownDType(tensor.dtype()))
    return invalidArgument("tensor has unknown dtype " +
                           dtypeName(tensor.dtype()));
  if (tensor.shape_size() > limits.maxRank)
    return resourceExhausted("tensor rank exceeds the limit");
  int64_t count = 1;
  for (int64_t d : tensor.shape()) {
    if (d < 0)
      return invalidArgument("tensor has negative dim " + std::to_string(d));
    if (__builtin_mul_overflow(count, d, &count) ||
        count > limits.maxElementsPerTensor)
      return resourceExhausted("tensor element count exceeds the limit");
  }
  int64_t size = dtypeByteSize(tensor.dtype());
  if (static_cast<int64_t>(tensor.data().size()) != count * size)
    return invalidArgument(
        "tensor data has " + std::to_string(tensor.data().size()) +
        " bytes, its dtype and shape need " + std::to_string(count * size));
  Literal lit = Literal::zeros(
      tensor.dtype(),
      std::vector<int64_t>(tensor.shape().begin(), tensor.shape().end()));
  const char *p = tensor.data().data();
  for (int64_t k = 0; k < count; ++k, p += size) {
    switch (tensor.dtype()) {
    case v1::DTYPE_F32: {
      float v;
      std::memcpy(&v, p, 4);
      lit.f[k] = v;
      break;
    }
    case v1::DTYPE_F16:
    case v1::DTYPE_BF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      lit.f[k] =
          tensor.dtype() == v1::DTYPE_F16 ? halfToFloat(h) : bf16ToFloat(h);
      break;
    }
    case v1::DTYPE_I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      lit.i[k] = v;
      break;
    }
    case v1::DTYPE_I64:
      std::memcpy(&lit.i[k], p, 8);
      break;
    default: // bool: any nonzero byte is true
      lit.i[k] = *p != 0;
      break;
    }
  }
  return lit;
}

v1::Tensor literalToTensor(const Literal &lit) {
  v1::Tensor tensor;
  tensor.set_dtype(lit.dtype);
  for (int64_t d : lit.shape)
    tensor.add_shape(d);
  int64_t n = lit.numElements(), size = dtypeByteSize(lit.dtype);
  std::string data(static_cast<size_t>(n * size), '\0');
  for (int64_t k = 0; k < n; ++k) {
    char *out = data.data() + k * size;
    if (lit.dtype == v1::DTYPE_I64)
      std::memcpy(out, &lit.i[k], 8); // exact beyond 2^53
    else
      encodeElement(lit.getDouble(k), lit.dtype, out);
  }
  tensor.set_data(std::move(data));
  return tensor;
}

Literal randomLiteral(DType dtype, const std::vector<int64_t> &shape,
                      uint64_t seed) {
  Literal lit = Literal::zeros(dtype, shape);
  int64_t n = lit.numElements();
  for (int64_t k = 0; k < n; ++k) {
    double u = seededUnit(seed, static_cast<uint64_t>(k));
    if (lit.isFloat())
      lit.setDouble(k, 2.0 * u - 1.0);
    else if (dtype == v1::DTYPE_BOOL)
      lit.i[k] = u >= 0.5;
    else
      lit.i[k] = static_cast<int64_t>(u * 8.0);
  }
  return lit;
}

} // namespace anyshape

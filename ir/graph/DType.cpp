// Element type facts for the six dtypes of the wire format.
#include "DType.h"

namespace anyshape {

bool isKnownDType(int dtype) {
  switch (dtype) {
  case v1::DTYPE_F32:
  case v1::DTYPE_F16:
  case v1::DTYPE_BF16:
  case v1::DTYPE_I32:
  case v1::DTYPE_I64:
  case v1::DTYPE_BOOL:
    return true;
  default:
    return false;
  }
}

bool isFloatDType(DType dtype) {
  return dtype == v1::DTYPE_F32 || dtype == v1::DTYPE_F16 ||
         dtype == v1::DTYPE_BF16;
}

bool isIntegerDType(DType dtype) {
  return dtype == v1::DTYPE_I32 || dtype == v1::DTYPE_I64;
}

int64_t dtypeByteSize(DType dtype) {
  switch (dtype) {
  case v1::DTYPE_F32:
  case v1::DTYPE_I32:
    return 4;
  case v1::DTYPE_F16:
  case v1::DTYPE_BF16:
    return 2;
  case v1::DTYPE_I64:
    return 8;
  case v1::DTYPE_BOOL:
    return 1;
  default:
    return 0;
  }
}

std::string dtypeName(int dtype) {
  switch (dtype) {
  case v1::DTYPE_F32:
    return "f32";
  case v1::DTYPE_F16:
    return "f16";
  case v1::DTYPE_BF16:
    return "bf16";
  case v1::DTYPE_I32:
    return "i32";
  case v1::DTYPE_I64:
    return "i64";
  case v1::DTYPE_BOOL:
    return "bool";
  default:
    return "dtype(" + std::to_string(dtype) + ")";
  }
}

std::optional<DType> parseDType(std::string_view name) {
  for (int d = v1::DTYPE_F32; d <= v1::DTYPE_BOOL; ++d)
    if (dtypeName(d) == name)
      return static_cast<DType>(d);
  return std::nullopt;
}

} // namespace anyshape

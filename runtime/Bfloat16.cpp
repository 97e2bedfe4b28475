// f32 -> bf16 for JITed code on hosts without a bf16 conversion
// instruction (Bfloat16.h).
#include "runtime/Bfloat16.h"

#include "runtime/support/Half.h"

#include <cstdint>
#include <cstring>

namespace anyshape::runtime {

__bf16 anyshapeTruncF32ToBf16(float value) {
  uint16_t bits = floatToBf16(value); // the evaluator's rounding
  __bf16 result;
  std::memcpy(&result, &bits, sizeof result);
  return result;
}

} // namespace anyshape::runtime

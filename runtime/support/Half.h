// IEEE binary16 (f16) and bfloat16 conversions, round-to-nearest-even.
//
// Header-only and dependency-free: the reference evaluator, tensor I/O and
// (later) CPU kernels all need the same bit-exact conversions.
#pragma once

#include <cstdint>
#include <cstring>

namespace anyshape {

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline uint16_t floatToBf16(float f) {
  uint32_t u = floatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep it a quiet NaN
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

inline float bf16ToFloat(uint16_t h) { return bitsToFloat(uint32_t(h) << 16); }

inline uint16_t floatToHalf(float f) {
  uint32_t u = floatBits(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  uint32_t absBits = u & 0x7fffffffu;
  if (absBits > 0x7f800000u) // NaN
    return sign | 0x7e00u;
  if (absBits >= 0x477ff000u) // rounds to >= 65520: infinity
    return sign | 0x7c00u;
  if (absBits < 0x38800000u) { // below the smallest normal half: subnormal
    // Scale so the half subnormal unit (2^-24) becomes 1, round to integer.
    float scaled = bitsToFloat(absBits) * 16777216.0f; // 2^24, exact
    uint32_t m = static_cast<uint32_t>(scaled);
    float rest = scaled - static_cast<float>(m);
    if (rest > 0.5f || (rest == 0.5f && (m & 1)))
      ++m;
    return sign | static_cast<uint16_t>(m);
  }
  // Normal: rebias the exponent (127 -> 15) and round the mantissa 23 -> 10.
  uint32_t v = absBits - (112u << 23);
  v += 0xfffu + ((v >> 13) & 1);
  return sign | static_cast<uint16_t>(v >> 13);
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  if (exp == 0) { // zero or subnormal: mant * 2^-24
    float f = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return sign ? -f : f;
  }
  if (exp == 31) // inf or NaN
    return bitsToFloat(sign | 0x7f800000u | (mant << 13));
  return bitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

} // namespace anyshape

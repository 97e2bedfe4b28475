// The f32 -> bf16 rounding LLVM calls on hosts without AVX-512 BF16: there
// `fptrunc float to bfloat` is a call of the compiler-rt builtin
// __truncsfbf2, which neither Debian 12's libgcc nor this process has.
// Bound into every executable under that name (jit/LoadedObject.cpp).
#pragma once

namespace anyshape::runtime {

/// Round to nearest, ties to even, as vcvtneps2bf16 and the reference
/// evaluator round (support/Half.h's floatToBf16); a NaN stays a quiet NaN.
/// Returned in xmm0, as LLVM's x86-64 calling convention passes bfloat.
extern "C" __bf16 anyshapeTruncF32ToBf16(float value);

} // namespace anyshape::runtime

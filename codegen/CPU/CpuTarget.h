//===- CpuTarget.h - the CPU facts codegen decides by ------------*- C++
//-*-===//
//
// The facts of the CPU target that codegen's choices depend on, owned
// here so that no pass hard-codes one: the width of a vector register
// and how far LLVM interleaves a vectorised loop, from which the row-loop
// split of anyshape-split-vector-remainders and the remainder-loop hints
// (LoopHints.h) follow. The host's are detected once from LLVM's host CPU
// features, which is also what the object code is generated for
// (jit/ObjectCode.h) and what the compile cache keys on.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace anyshape::codegen {

struct CpuTarget {
  /// Bytes of the widest vector register: 64 with AVX-512, 32 with AVX,
  /// 16 otherwise (SSE, NEON).
  int64_t vectorBytes = 64;
  /// How many vector iterations LLVM interleaves in a row loop's body.
  int64_t interleave = 4;

  /// f32 elements one iteration of a vectorised row loop handles (vector
  /// lanes x interleave): 64 with AVX-512. A row loop split at a multiple
  /// of it runs whole vector iterations, and its remainder fewer.
  int64_t rowLoopStep() const { return vectorBytes / 4 * interleave; }

  /// This machine's.
  static const CpuTarget &host();
};

} // namespace anyshape::codegen

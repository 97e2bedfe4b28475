//===- CpuTarget.h - the CPU facts codegen decides by ------------*- C++
//-*-===//
//
// The facts of the CPU target that codegen's choices depend on, owned
// here so that no pass hard-codes one: the width of a vector register
// and how far LLVM interleaves a vectorised loop, from which the row-loop
// split of anyshape-split-vector-remainders and the remainder-loop hints
// (LoopHints.h) follow. The host's are detected once from LLVM's host CPU
// features, which is also what the object code is generated for
// (compiler/ObjectCode.h) and what the compile cache keys on.
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
  /// Store a constant GEMM weight [K, N] with N > K transposed
  /// (anyshape-transpose-wide-weights). Without AVX-512, oneDNN 2.6's
  /// GEMM reads such a weight 1.3-2.4x faster transposed at M = 1..16,
  /// about as fast from 24 to 512 (0.88-1.11x; [768, 3072]: 0.46 against
  /// 1.09 ms at M = 8, docs/benchmarks.md); with AVX-512 it runs other
  /// kernels, not measured this way, so the layout is left as the graph
  /// has it.
  bool transposeWideWeights = false;

  /// f32 elements one iteration of a vectorised row loop handles (vector
  /// lanes x interleave): 64 with AVX-512. A row loop split at a multiple
  /// of it runs whole vector iterations, and its remainder fewer.
  int64_t rowLoopStep() const { return vectorBytes / 4 * interleave; }

  /// This machine's.
  static const CpuTarget &host();
};

} // namespace anyshape::codegen

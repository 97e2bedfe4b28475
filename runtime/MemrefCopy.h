// Runtime functions the JITed code calls, bound into every executable as
// absolute symbols (never looked up by name in a shared library at run
// time).
#pragma once

#include <cstdint>

namespace anyshape::runtime {

/// A ranked memref as MLIR passes it unranked: the rank and a pointer to
/// the descriptor {allocated, aligned, offset, sizes[rank], strides[rank]}.
struct UnrankedMemref {
  int64_t rank;
  void *descriptor;
};

/// memref.copy between arbitrarily strided buffers of equal shape (MLIR
/// lowers copies it cannot prove contiguous to a call of this).
extern "C" void anyshapeMemrefCopy(int64_t elementSize, UnrankedMemref *source,
                                   UnrankedMemref *target);

} // namespace anyshape::runtime

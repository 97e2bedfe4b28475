// nonzero from the host flow (codegen's anyshape-nonzero-to-runtime-calls):
// the count of a buffer's nonzero elements, which sizes the result the
// host flow then allocates, and the coordinates written into it, i64
// [rank, count] in row-major order of the elements (docs/ops.md,
// nonzero). The buffers come as unranked memrefs through MLIR's C
// interface, any layout; the CUDA runtime's variants copy the operand
// from the device first and the coordinates back (cuda/CudaLaunch.h).
#pragma once

#include "ExecutionContext.h"
#include "MemrefCopy.h" // UnrankedMemref

#include <cstdint>
#include <cstring>
#include <vector>

namespace anyshape::runtime {

/// How generated code names the operand's element type: its width in
/// bytes, negated for floats, whose sign bit alone is still zero (-0.0).
/// bool is one byte; f16 and bf16 are both -2 (zero is the same bits).
enum NonZeroElement : int64_t {
  kNonZeroInt8 = 1,
  kNonZeroInt32 = 4,
  kNonZeroInt64 = 8,
  kNonZeroFloat16 = -2,
  kNonZeroFloat32 = -4,
};

/// The strided view a ranked descriptor describes, walked in row-major
/// order of its elements.
struct StridedBytes {
  const unsigned char *first; // element 0
  const int64_t *sizes;
  const int64_t *strides; // in elements
  int64_t rank;
  int64_t elementBytes;

  /// The view of `memref` whose elements are `elementBytes` wide at
  /// `base` (the descriptor's aligned pointer, or a host copy of its span).
  static StridedBytes of(const UnrankedMemref &memref, const void *base,
                         int64_t elementBytes) {
    auto *words = static_cast<const int64_t *>(memref.descriptor);
    return {static_cast<const unsigned char *>(base) + words[2] * elementBytes,
            words + 3, words + 3 + memref.rank, memref.rank, elementBytes};
  }
  int64_t elementCount() const {
    int64_t count = 1;
    for (int64_t d = 0; d < rank; ++d)
      count *= sizes[d];
    return count;
  }
  /// Elements spanned from `first` to the last one, inclusive (strides
  /// of bufferized views are never negative).
  int64_t span() const {
    if (elementCount() <= 0)
      return 0;
    int64_t last = 0;
    for (int64_t d = 0; d < rank; ++d)
      last += (sizes[d] - 1) * strides[d];
    return last + 1;
  }
};

/// The element width of a NonZeroElement.
inline int64_t nonZeroElementBytes(int64_t kind) {
  return kind < 0 ? -kind : kind;
}

/// Whether the element at `bytes` of kind `kind` is nonzero.
inline bool isNonZero(const unsigned char *bytes, int64_t kind) {
  switch (kind) {
  case kNonZeroFloat16: {
    uint16_t bits;
    std::memcpy(&bits, bytes, 2);
    return (bits & 0x7fff) != 0;
  }
  case kNonZeroFloat32: {
    uint32_t bits;
    std::memcpy(&bits, bytes, 4);
    return (bits & 0x7fffffffu) != 0;
  }
  case kNonZeroInt32: {
    uint32_t bits;
    std::memcpy(&bits, bytes, 4);
    return bits != 0;
  }
  case kNonZeroInt64: {
    uint64_t bits;
    std::memcpy(&bits, bytes, 8);
    return bits != 0;
  }
  default:
    return *bytes != 0;
  }
}

/// Calls `visit(k, coordinates)` for each nonzero element of `view`, k
/// counting them from 0, in row-major order; returns how many there were.
template <typename Visit>
int64_t forEachNonZero(const StridedBytes &view, int64_t kind, Visit visit) {
  int64_t count = view.elementCount();
  if (count <= 0)
    return 0;
  std::vector<int64_t> index(static_cast<size_t>(view.rank), 0);
  int64_t found = 0;
  for (int64_t k = 0; k < count; ++k) {
    int64_t offset = 0;
    for (int64_t d = 0; d < view.rank; ++d)
      offset += index[d] * view.strides[d];
    if (isNonZero(view.first + offset * view.elementBytes, kind))
      visit(found++, index.data());
    for (int64_t d = view.rank - 1; d >= 0 && ++index[d] == view.sizes[d]; --d)
      index[d] = 0;
  }
  return found;
}

/// Writes the coordinates of `view`'s nonzero elements into `out`, i64
/// [rank, count] row-major (count columns), as nonzero defines them.
inline void writeNonZeroCoordinates(const StridedBytes &view, int64_t kind,
                                    int64_t *out, int64_t count) {
  forEachNonZero(view, kind, [&](int64_t k, const int64_t *coordinates) {
    if (k >= count) // the count sized `out`; the data cannot have grown
      return;
    for (int64_t d = 0; d < view.rank; ++d)
      out[d * count + k] = coordinates[d];
  });
}

extern "C" {
/// The C interface targets of anyshapeCountNonZero and
/// anyshapeNonZeroIndices on host buffers.
int64_t anyshapeCountNonZero(UnrankedMemref *operand, int64_t kind,
                             AnyshapeExecutionContext *context);
void anyshapeNonZeroIndices(UnrankedMemref *operand, int64_t kind,
                            UnrankedMemref *result,
                            AnyshapeExecutionContext *context);
}

} // namespace anyshape::runtime

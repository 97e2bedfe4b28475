// Index checks the host flow calls (codegen's
// anyshape-index-checks-to-runtime-calls): every index of a buffer must
// lie in [low, high), or the run records its first one outside, in
// row-major order, in the execution context, and fails with the error of
// the wire node that asked for the check (jit/Executable.cpp formats it).
// The buffer comes as an unranked memref through MLIR's C interface; the
// CUDA runtime's variant copies it from the device first
// (cuda/CudaLaunch.h).
#pragma once

#include "ExecutionContext.h"
#include "MemrefCopy.h" // UnrankedMemref

#include <cstddef>
#include <cstdint>
#include <vector>

namespace anyshape::runtime {

/// The elements' offsets from the first, in row-major order, of a view
/// with these sizes and strides (none when a size is 0).
inline std::vector<int64_t>
rowMajorOffsets(const int64_t *sizes, const int64_t *strides, int64_t rank) {
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d)
    count *= sizes[d];
  std::vector<int64_t> offsets;
  if (count <= 0)
    return offsets;
  offsets.reserve(static_cast<std::size_t>(count));
  std::vector<int64_t> index(static_cast<std::size_t>(rank), 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += index[d] * strides[d];
    offsets.push_back(offset);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == sizes[d]; --d)
      index[d] = 0;
  }
  return offsets;
}

/// Records the first of `values` (at `offsets` from `base`) outside [low,
/// high) as `node`'s failure in `context`, unless one is recorded already.
template <typename T>
void checkIndices(const T *base, const std::vector<int64_t> &offsets,
                  int64_t low, int64_t high, int64_t node,
                  AnyshapeExecutionContext *context) {
  if (context->failedCheckNode != 0)
    return;
  for (int64_t offset : offsets) {
    int64_t value = base[offset];
    if (value < low || value >= high) {
      context->failedCheckNode = node + 1;
      context->failedCheckIndex = value;
      context->failedCheckExtent = high;
      return;
    }
  }
}

extern "C" {
/// The C interface targets of anyshapeCheckIndicesI32/I64.
void anyshapeCheckIndicesI32(UnrankedMemref *indices, int64_t low, int64_t high,
                             int64_t node, AnyshapeExecutionContext *context);
void anyshapeCheckIndicesI64(UnrankedMemref *indices, int64_t low, int64_t high,
                             int64_t node, AnyshapeExecutionContext *context);
}

} // namespace anyshape::runtime

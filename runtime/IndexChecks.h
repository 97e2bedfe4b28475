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

/// The number of elements of a view with these sizes.
inline int64_t elementCount(const int64_t *sizes, int64_t rank) {
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d)
    count *= sizes[d];
  return count;
}

/// Records the first element of the view at `first` (these sizes and
/// strides) outside [low, high), in row-major order, as `node`'s failure
/// in `context`, unless a failure is recorded already.
template <typename T>
void checkIndices(const T *first, const int64_t *sizes, const int64_t *strides,
                  int64_t rank, int64_t low, int64_t high, int64_t node,
                  AnyshapeExecutionContext *context) {
  int64_t count = elementCount(sizes, rank);
  if (context->failedCheckNode != 0 || count <= 0)
    return;
  std::vector<int64_t> index(static_cast<std::size_t>(rank), 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += index[d] * strides[d];
    int64_t value = first[offset];
    if (value < low || value >= high) {
      context->failedCheckNode = node + 1;
      context->failedCheckIndex = value;
      context->failedCheckExtent = high;
      return;
    }
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == sizes[d]; --d)
      index[d] = 0;
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

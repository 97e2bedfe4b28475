// scatter from the host flow (codegen's anyshape-scatter-to-runtime-calls):
// the operand copied into the result, then each row of updates combined
// into the result row its index names, in the updates' order (docs/ops.md,
// scatter). Linear: the operand once, each update once. The buffers come
// as unranked memrefs through MLIR's C interface, any layout but the
// result's (the host flow's own allocation, identity layout); the CUDA
// runtime's variant copies the operands from the device first and the
// result back (cuda/CudaScatter.cpp).
#pragma once

#include "ExecutionContext.h"
#include "MemrefCopy.h" // UnrankedMemref
#include "NonZero.h"    // StridedBytes

#include <cstdint>

namespace anyshape::runtime {

/// How generated code names the element type of the operand, updates
/// and result.
enum ScatterElement : int64_t {
  kScatterBool = 0,
  kScatterI32 = 1,
  kScatterI64 = 2,
  kScatterF16 = 3,
  kScatterBF16 = 4,
  kScatterF32 = 5,
};

/// The element width of a ScatterElement, in bytes.
int64_t scatterElementBytes(int64_t element);

/// The combination: v1::ScatterReduction's numbers (1 replace, 2 add,
/// 3 mul, 4 max, 5 min).
enum ScatterReductionCode : int64_t {
  kScatterReplace = 1,
  kScatterAdd = 2,
  kScatterMul = 3,
  kScatterMax = 4,
  kScatterMin = 5,
};

/// Writes scatter(operand, indices, updates) into `out`, contiguous
/// row-major of the operand's shape. `indexBytes` is 4 (i32) or 8 (i64).
void scatterRows(const StridedBytes &operand, const StridedBytes &indices,
                 int64_t indexBytes, const StridedBytes &updates,
                 unsigned char *out, int64_t element, int64_t reduction);

extern "C" {
/// The C interface target of anyshapeScatter_<T>_<I> on host buffers.
void anyshapeScatter(UnrankedMemref *operand, UnrankedMemref *indices,
                     UnrankedMemref *updates, UnrankedMemref *result,
                     int64_t element, int64_t indexBytes, int64_t reduction,
                     AnyshapeExecutionContext *context);
}

} // namespace anyshape::runtime

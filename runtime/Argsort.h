// argsort from the host flow (codegen's anyshape-argsort-to-runtime-calls):
// along one axis, the positions of a buffer's elements in sorted order,
// written as i64 into a buffer of its shape (docs/ops.md, argsort).
// Stable both ways, NaN above every number, -0.0 equal to 0.0. Each row
// is sorted as (key, position) pairs, where the key is the element mapped
// to an unsigned integer of the same order: the position breaks ties, so
// any sort gives the stable order. The operand comes as an unranked memref
// through MLIR's C interface, any layout; the result is the host flow's
// own allocation (identity layout). The CUDA runtime's variant copies the
// operand from the device first and the positions back
// (cuda/CudaArgsort.cpp).
#pragma once

#include "ExecutionContext.h"
#include "MemrefCopy.h" // UnrankedMemref
#include "NonZero.h"    // StridedBytes

#include <cstdint>

namespace anyshape::runtime {

/// Writes argsort(x) along `axis` into `out`, contiguous row-major of x's
/// shape. `element` is one of the ScatterElement codes (runtime/Scatter.h),
/// which name the six wire dtypes.
void argsortRows(const StridedBytes &x, int64_t element, int64_t axis,
                 bool descending, int64_t *out);

extern "C" {
/// The C interface target of anyshapeArgsort_<T> on host buffers.
void anyshapeArgsort(UnrankedMemref *operand, UnrankedMemref *result,
                     int64_t element, int64_t axis, int64_t descending,
                     AnyshapeExecutionContext *context);
}

} // namespace anyshape::runtime

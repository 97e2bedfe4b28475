// cumulative from the host flow (codegen's
// anyshape-cumulative-to-runtime-calls): along one axis, each element's
// running fold (sum, max, min, prod) of the elements at or before it, or
// strictly before (exclusive), or at or after (reverse), written into a
// buffer of the operand's type (docs/ops.md, cumulative). Linear: each
// element read and written once. Floats accumulate in double and round
// each result; integers wrap; max and min propagate NaN. The operand
// comes as an unranked memref through MLIR's C interface, any layout; the
// result is the host flow's own allocation (identity layout). The CUDA
// runtime's variant copies the operand from the device first and the
// result back (cuda/CudaCumulative.cpp).
#pragma once

#include "ExecutionContext.h"
#include "MemrefCopy.h" // UnrankedMemref
#include "NonZero.h"    // StridedBytes

#include <cstdint>

namespace anyshape::runtime {

/// How generated code passes exclusive and reverse: one word of flags.
enum CumulativeFlags : int64_t {
  kCumulativeExclusive = 1,
  kCumulativeReverse = 2,
};

/// Writes cumulative(x) along `axis` into `out`, contiguous row-major of
/// x's shape and element type. `element` is a ScatterElement code
/// (runtime/Scatter.h), `kind` a v1::ReduceKind number (1 sum, 2 max,
/// 3 min, 4 prod), `flags` CumulativeFlags.
void cumulativeRows(const StridedBytes &x, int64_t element, int64_t axis,
                    int64_t kind, int64_t flags, unsigned char *out);

extern "C" {
/// The C interface target of anyshapeCumulative_<T> on host buffers.
void anyshapeCumulative(UnrankedMemref *operand, UnrankedMemref *result,
                        int64_t element, int64_t axis, int64_t kind,
                        int64_t flags, AnyshapeExecutionContext *context);
}

} // namespace anyshape::runtime

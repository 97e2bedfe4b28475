// GEMM for JITed code: batched f32 matrix multiplication through oneDNN.
//
// The CPU pipeline lowers every f32 dot_general to a batched matmul
// C[b] = A[b] x B[b] on strided buffers and calls this function with MLIR's
// C interface (one ranked descriptor per operand). One oneDNN primitive
// per operand layout -- dense row-major, or dense with the last two dims
// swapped (a transposed view, which the pipeline passes instead of a
// transposed copy) -- created on first use with every dim a runtime
// value, serves every shape. Operands in any other layout are packed
// first.
#pragma once

#include <cstdint>

namespace anyshape::runtime {

/// A rank-3 MLIR memref descriptor.
struct Memref3D {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[3];
  int64_t strides[3];
};

struct AnyshapeExecutionContext;

/// c[b, m, n] = sum_k a[b, m, k] * b[b, k, n] (c is overwritten), on the
/// run's team (`context`'s team size: oneDNN takes it from the calling
/// thread's OpenMP setting, which follows the context for the call).
extern "C" void anyshapeBatchMatmulF32(Memref3D *a, Memref3D *b, Memref3D *c,
                                       AnyshapeExecutionContext *context);

/// The oneDNN implementation that serves operands dense (false) or as a
/// transposed view (true), as the library names it ("gemm:jit",
/// "brg:avx512_core"; a name with "ref" is its reference loop, an order
/// of magnitude slower, which no layout may get).
const char *gemmImplementation(bool aTransposed, bool bTransposed);

} // namespace anyshape::runtime

//===- CublasLt.h - GEMMs on the device through cuBLASLt ---------*- C++
//-*-===//
//
// cuBLASLt through dlopen("libcublasLt.so.13") (ANYSHAPE_LIBCUBLASLT names
// another library: the tests' fake) and one X-macro table of entry points
// (CublasLtEntries.def), as the driver is loaded: no anyshape binary links
// it. A CUDA executable's GEMMs (the host flow's
// anyshapeCudaBatchMatmulF32 calls) run through DeviceGemm: c[b] = a[b] x
// b[b] on row-major strided device buffers, as one strided-batched
// cuBLASLt matmul in the run's stream, with the algorithm cuBLASLt's
// heuristic picks cached per shape class for the executable.
//
// Row-major C = A x B is column-major C^T = B^T x A^T, and a row-major
// buffer read as column-major is its transpose, so cuBLASLt's A is our B
// and its B our A, each with op N when its last dim is unit-stride and op
// T when its first is (a transposed view). Other layouts, and an output
// that is not row-major, fail the run as Unimplemented.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/Gemm.h"
#include "runtime/cuda/CudaDevice.h"

#include <array>
#include <map>
#include <optional>
#include <shared_mutex>
#include <tuple>

namespace anyshape::runtime::cuda {

struct CublasLt {
#define X(name, params) int(*name) params = nullptr;
#include "runtime/cuda/CublasLtEntries.def"
#undef X
};

/// The loaded library; FailedPrecondition naming what is missing.
StatusOr<const CublasLt *> loadCublasLt();

/// cublasLtMatmulHeuristicResult_t, as cublasLt.h lays it out.
struct HeuristicResult {
  std::array<uint64_t, 8> algorithm; // cublasLtMatmulAlgo_t
  size_t workspaceBytes;
  int state;
  float waves;
  int reserved[4];
};

class DeviceGemm {
public:
  explicit DeviceGemm(CudaDevice &device) : device_(device) {}

  /// Enqueues c = a x b (batched; c overwritten) on `stream`, a workspace
  /// from `allocator` when the algorithm needs one.
  Status run(const Memref3D &a, const Memref3D &b, const Memref3D &c,
             void *stream, StreamAllocator &allocator);

  /// Shape classes whose algorithm has been chosen (tests, stats).
  size_t cachedShapes() const;

private:
  /// (batch, m, n, k, op A, op B, ld A, ld B, ld C, batch strides)
  using ShapeClass =
      std::tuple<int64_t, int64_t, int64_t, int64_t, int, int, int64_t, int64_t,
                 int64_t, int64_t, int64_t, int64_t>;
  CudaDevice &device_;
  mutable std::shared_mutex mutex_;
  std::map<ShapeClass, HeuristicResult> algorithms_;
};

} // namespace anyshape::runtime::cuda

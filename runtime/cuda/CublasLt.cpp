//===- CublasLt.cpp - GEMMs on the device through cuBLASLt -------*- C++
//-*-===//
#include "runtime/cuda/CublasLt.h"
#include "runtime/cuda/Toolkit.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

namespace anyshape::runtime::cuda {

namespace {

// cublasLt.h's and library_types.h's numbers.
constexpr int kComputeF32 = 68; // CUBLAS_COMPUTE_32F
constexpr int kRealF32 = 0;     // CUDA_R_32F
constexpr int kDescTransA = 3;  // CUBLASLT_MATMUL_DESC_TRANSA
constexpr int kDescTransB = 4;  // CUBLASLT_MATMUL_DESC_TRANSB
constexpr int kLayoutBatchCount = 5;
constexpr int kLayoutBatchStride = 6;
constexpr int kPreferenceMaxWorkspace = 1;
constexpr int kOpN = 0, kOpT = 1;
constexpr uint64_t kMaxWorkspaceBytes = uint64_t{32} << 20;

struct Loaded {
  CublasLt library;
  std::string error;
};

const Loaded &loaded() {
  static Loaded once = [] {
    Loaded l;
    // The override alone; else the loader's path, then the toolkit's.
    ToolkitLibrary opened = openToolkitLibrary(
        "libcublasLt.so.13", "ANYSHAPE_LIBCUBLASLT", "cuBLASLt");
    if (!opened.handle) {
      l.error = opened.error;
      return l;
    }
    void *handle = opened.handle;
    const std::string &path = opened.path;
#define X(name, params)                                                        \
  l.library.name = reinterpret_cast<int(*) params>(dlsym(handle, #name));      \
  if (!l.library.name && l.error.empty())                                      \
    l.error = "cuBLASLt " + path + " lacks " #name;
#include "runtime/cuda/CublasLtEntries.def"
#undef X
    return l;
  }();
  return once;
}

Status checkBlas(const char *call, int status) {
  if (status == 0)
    return Status::ok();
  return internalError(std::string(call) + " failed: cuBLAS status " +
                       std::to_string(status));
}

/// The process's handle, created once (cuBLASLt handles are thread-safe
/// and not tied to a stream).
StatusOr<void *> handle(const CublasLt &blas) {
  static StatusOr<void *> once = [&]() -> StatusOr<void *> {
    void *h = nullptr;
    ANYSHAPE_RETURN_IF_ERROR(
        checkBlas("cublasLtCreate", blas.cublasLtCreate(&h)));
    return h;
  }();
  return once;
}

/// One operand as cuBLASLt reads it: a column-major rows x columns matrix
/// with leading dim `leading`, under op `op`.
struct Operand {
  int op = kOpN;
  int64_t rows = 0, columns = 0, leading = 0, batchStride = 0;
};

/// Row-major `outer` x `inner` (strides `so`, `si`) as cuBLASLt's operand
/// whose op(...) is `inner` x `outer`: the buffer read column-major is the
/// transpose when the inner dim is unit-stride (op N), the matrix itself
/// when the outer one is (op T). Nothing otherwise.
std::optional<Operand> columnMajor(int64_t outer, int64_t inner, int64_t so,
                                   int64_t si, int64_t batchStride) {
  Operand o;
  o.batchStride = batchStride;
  if (si == 1 || inner == 1) {
    o.op = kOpN;
    o.rows = inner;
    o.columns = outer;
    o.leading = std::max<int64_t>({so, inner, 1});
    return o;
  }
  if (so == 1 || outer == 1) {
    o.op = kOpT;
    o.rows = outer;
    o.columns = inner;
    o.leading = std::max<int64_t>({si, outer, 1});
    return o;
  }
  return std::nullopt;
}

/// RAII for cuBLASLt's descriptors.
struct Descriptors {
  const CublasLt &blas;
  void *operation = nullptr, *preference = nullptr;
  void *layouts[3] = {nullptr, nullptr, nullptr};
  ~Descriptors() {
    for (void *layout : layouts)
      if (layout)
        blas.cublasLtMatrixLayoutDestroy(layout);
    if (preference)
      blas.cublasLtMatmulPreferenceDestroy(preference);
    if (operation)
      blas.cublasLtMatmulDescDestroy(operation);
  }
};

Status makeLayout(const CublasLt &blas, void **layout, const Operand &o,
                  int32_t batch) {
  ANYSHAPE_RETURN_IF_ERROR(
      checkBlas("cublasLtMatrixLayoutCreate",
                blas.cublasLtMatrixLayoutCreate(
                    layout, kRealF32, static_cast<uint64_t>(o.rows),
                    static_cast<uint64_t>(o.columns), o.leading)));
  ANYSHAPE_RETURN_IF_ERROR(
      checkBlas("cublasLtMatrixLayoutSetAttribute",
                blas.cublasLtMatrixLayoutSetAttribute(
                    *layout, kLayoutBatchCount, &batch, sizeof batch)));
  return checkBlas(
      "cublasLtMatrixLayoutSetAttribute",
      blas.cublasLtMatrixLayoutSetAttribute(
          *layout, kLayoutBatchStride, &o.batchStride, sizeof o.batchStride));
}

} // namespace

StatusOr<const CublasLt *> loadCublasLt() {
  const Loaded &l = loaded();
  if (!l.error.empty())
    return Status(StatusCode::FailedPrecondition, l.error);
  return &l.library;
}

size_t DeviceGemm::cachedShapes() const {
  std::shared_lock lock(mutex_);
  return algorithms_.size();
}

Status DeviceGemm::run(const Memref3D &a, const Memref3D &b, const Memref3D &c,
                       void *stream, StreamAllocator &allocator) {
  int64_t batch = c.sizes[0], m = c.sizes[1], n = c.sizes[2], k = a.sizes[2];
  if (batch == 0 || m == 0 || n == 0)
    return Status::ok();
  const Driver &driver = device_.driver();
  float *cFirst = c.aligned + c.offset;
  if (k == 0) {
    // Nothing to sum: c is zeros. Outputs are fresh, so contiguous.
    if (c.strides[2] != 1 || c.strides[1] != n || c.strides[0] != m * n)
      return Status(StatusCode::Unimplemented,
                    "a GEMM over no elements into a strided output");
    return checkCall(
        driver, "cuMemsetD32Async",
        driver.cuMemsetD32Async(reinterpret_cast<DevicePointer>(cFirst), 0,
                                static_cast<size_t>(batch * m * n), stream));
  }
  if (batch > std::numeric_limits<int32_t>::max())
    return Status(StatusCode::Unimplemented, "a GEMM of over 2^31 batches");
  auto batchStride = [&](const Memref3D &x) {
    return batch == 1 ? 0 : x.strides[0];
  };
  // cuBLASLt's A is our b (its op gives n x k), its B our a (k x m), its
  // D our c (n x m, which must be op N).
  std::optional<Operand> x =
      columnMajor(k, n, b.strides[1], b.strides[2], batchStride(b));
  std::optional<Operand> y =
      columnMajor(m, k, a.strides[1], a.strides[2], batchStride(a));
  std::optional<Operand> d =
      columnMajor(m, n, c.strides[1], c.strides[2], batchStride(c));
  if (!x || !y || !d || d->op != kOpN)
    return Status(StatusCode::Unimplemented,
                  "a GEMM operand that is neither row- nor column-major on "
                  "the device");
  ANYSHAPE_ASSIGN_OR_RETURN(const CublasLt *blas, loadCublasLt());
  ANYSHAPE_ASSIGN_OR_RETURN(void *h, handle(*blas));

  Descriptors descriptors{*blas};
  auto count = static_cast<int32_t>(batch);
  ANYSHAPE_RETURN_IF_ERROR(
      checkBlas("cublasLtMatmulDescCreate",
                blas->cublasLtMatmulDescCreate(&descriptors.operation,
                                               kComputeF32, kRealF32)));
  ANYSHAPE_RETURN_IF_ERROR(
      checkBlas("cublasLtMatmulDescSetAttribute",
                blas->cublasLtMatmulDescSetAttribute(
                    descriptors.operation, kDescTransA, &x->op, sizeof x->op)));
  ANYSHAPE_RETURN_IF_ERROR(
      checkBlas("cublasLtMatmulDescSetAttribute",
                blas->cublasLtMatmulDescSetAttribute(
                    descriptors.operation, kDescTransB, &y->op, sizeof y->op)));
  ANYSHAPE_RETURN_IF_ERROR(
      makeLayout(*blas, &descriptors.layouts[0], *x, count));
  ANYSHAPE_RETURN_IF_ERROR(
      makeLayout(*blas, &descriptors.layouts[1], *y, count));
  ANYSHAPE_RETURN_IF_ERROR(
      makeLayout(*blas, &descriptors.layouts[2], *d, count));

  ShapeClass shape{batch,
                   m,
                   n,
                   k,
                   x->op,
                   y->op,
                   x->leading,
                   y->leading,
                   d->leading,
                   x->batchStride,
                   y->batchStride,
                   d->batchStride};
  HeuristicResult algorithm{};
  bool known = false;
  {
    std::shared_lock lock(mutex_);
    if (auto it = algorithms_.find(shape); it != algorithms_.end()) {
      algorithm = it->second;
      known = true;
    }
  }
  if (!known) {
    ANYSHAPE_RETURN_IF_ERROR(checkBlas(
        "cublasLtMatmulPreferenceCreate",
        blas->cublasLtMatmulPreferenceCreate(&descriptors.preference)));
    uint64_t workspace = kMaxWorkspaceBytes;
    ANYSHAPE_RETURN_IF_ERROR(
        checkBlas("cublasLtMatmulPreferenceSetAttribute",
                  blas->cublasLtMatmulPreferenceSetAttribute(
                      descriptors.preference, kPreferenceMaxWorkspace,
                      &workspace, sizeof workspace)));
    int returned = 0;
    ANYSHAPE_RETURN_IF_ERROR(
        checkBlas("cublasLtMatmulAlgoGetHeuristic",
                  blas->cublasLtMatmulAlgoGetHeuristic(
                      h, descriptors.operation, descriptors.layouts[0],
                      descriptors.layouts[1], descriptors.layouts[2],
                      descriptors.layouts[2], descriptors.preference, 1,
                      &algorithm, &returned)));
    if (returned < 1 || algorithm.state != 0)
      return Status(StatusCode::Unimplemented,
                    "cuBLASLt has no algorithm for a GEMM of " +
                        std::to_string(batch) + " x " + std::to_string(m) +
                        "x" + std::to_string(k) + " by " + std::to_string(k) +
                        "x" + std::to_string(n));
    std::unique_lock lock(mutex_);
    algorithms_.emplace(shape, algorithm);
  }

  void *workspace = nullptr;
  if (algorithm.workspaceBytes > 0) {
    workspace =
        allocator.allocate(static_cast<int64_t>(algorithm.workspaceBytes));
    if (!workspace)
      return allocator.error();
  }
  const float one = 1.0f, zero = 0.0f;
  Status status = checkBlas(
      "cublasLtMatmul",
      blas->cublasLtMatmul(h, descriptors.operation, &one, b.aligned + b.offset,
                           descriptors.layouts[0], a.aligned + a.offset,
                           descriptors.layouts[1], &zero, cFirst,
                           descriptors.layouts[2], cFirst,
                           descriptors.layouts[2], algorithm.algorithm.data(),
                           workspace, algorithm.workspaceBytes, stream));
  // Stream-ordered: a later allocation of the run may take it at once.
  allocator.free(workspace);
  return status;
}

} // namespace anyshape::runtime::cuda

// A fake libcublasLt.so.13 for tests, loaded through the runtime's table
// (ANYSHAPE_LIBCUBLASLT names it). It keeps the descriptors the runtime
// builds and runs each matmul on the CPU, on the fake driver's stream
// queue (FakeCudaExecution.cpp: it runs when the stream is synchronised),
// after checking what a real cuBLASLt would: f32 compute, leading dims at
// least the rows, every operand inside live device memory, the output not
// transposed. So a GEMM's numerics in the CUDA path are checked against
// the reference like every kernel's.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

extern "C" {
// The fake driver's (FakeCudaExecution.cpp).
int anyshapeFakeCudaEnqueue(void *stream, void (*run)(void *), void *argument);
int anyshapeFakeCudaIsDeviceMemory(unsigned long long pointer, size_t bytes);
}

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidValue = 7;  // CUBLAS_STATUS_INVALID_VALUE
constexpr int kNotSupported = 15; // CUBLAS_STATUS_NOT_SUPPORTED

struct Operation {
  int compute = 0, scale = 0, transA = 0, transB = 0;
};
struct Layout {
  int type = 0;
  uint64_t rows = 0, columns = 0;
  int64_t leading = 0;
  int32_t batch = 1;
  int64_t batchStride = 0;
};

struct Matmul {
  Operation op;
  Layout a, b, d;
  const float *x, *y;
  float *out;
  float alpha, beta;
};

float at(const float *m, const Layout &l, int trans, int64_t batch, uint64_t i,
         uint64_t j) {
  // op(M)(i, j), M column-major.
  uint64_t r = trans ? j : i, c = trans ? i : j;
  return m[batch * l.batchStride + static_cast<int64_t>(r + c * l.leading)];
}

void runMatmul(void *argument) {
  auto *mm = static_cast<Matmul *>(argument);
  uint64_t rows = mm->d.rows, columns = mm->d.columns;
  uint64_t inner = mm->op.transA ? mm->a.rows : mm->a.columns;
  for (int32_t batch = 0; batch < mm->d.batch; ++batch)
    for (uint64_t j = 0; j < columns; ++j)
      for (uint64_t i = 0; i < rows; ++i) {
        double sum = 0;
        for (uint64_t l = 0; l < inner; ++l)
          sum += double(at(mm->x, mm->a, mm->op.transA, batch, i, l)) *
                 at(mm->y, mm->b, mm->op.transB, batch, l, j);
        float &out = mm->out[batch * mm->d.batchStride +
                             static_cast<int64_t>(i + j * mm->d.leading)];
        out = static_cast<float>(mm->alpha * sum) +
              (mm->beta != 0 ? mm->beta * out : 0.0f);
      }
  delete mm;
}

/// The bytes an operand spans, first to last element.
size_t span(const Layout &l) {
  if (l.rows == 0 || l.columns == 0)
    return 0;
  uint64_t last = (l.rows - 1) + (l.columns - 1) * l.leading +
                  uint64_t(l.batch - 1) * l.batchStride;
  return (last + 1) * sizeof(float);
}

template <typename T> int readValue(T &field, const void *value, size_t bytes) {
  if (bytes != sizeof(T))
    return kInvalidValue;
  std::memcpy(&field, value, bytes);
  return kSuccess;
}

} // namespace

extern "C" {

int cublasLtCreate(void **handle) {
  *handle = new char;
  return kSuccess;
}

int cublasLtMatmulDescCreate(void **description, int compute, int scale) {
  *description = new Operation{compute, scale, 0, 0};
  return kSuccess;
}

int cublasLtMatmulDescDestroy(void *description) {
  delete static_cast<Operation *>(description);
  return kSuccess;
}

int cublasLtMatmulDescSetAttribute(void *description, int attribute,
                                   const void *value, size_t bytes) {
  auto *op = static_cast<Operation *>(description);
  if (attribute == 3)
    return readValue(op->transA, value, bytes);
  if (attribute == 4)
    return readValue(op->transB, value, bytes);
  return kNotSupported;
}

int cublasLtMatrixLayoutCreate(void **layout, int type, uint64_t rows,
                               uint64_t columns, int64_t leading) {
  if (leading < static_cast<int64_t>(rows) || leading < 1)
    return kInvalidValue;
  *layout = new Layout{type, rows, columns, leading, 1, 0};
  return kSuccess;
}

int cublasLtMatrixLayoutDestroy(void *layout) {
  delete static_cast<Layout *>(layout);
  return kSuccess;
}

int cublasLtMatrixLayoutSetAttribute(void *layout, int attribute,
                                     const void *value, size_t bytes) {
  auto *l = static_cast<Layout *>(layout);
  if (attribute == 5)
    return readValue(l->batch, value, bytes);
  if (attribute == 6)
    return readValue(l->batchStride, value, bytes);
  return kNotSupported;
}

int cublasLtMatmulPreferenceCreate(void **preference) {
  *preference = new uint64_t(0);
  return kSuccess;
}

int cublasLtMatmulPreferenceDestroy(void *preference) {
  delete static_cast<uint64_t *>(preference);
  return kSuccess;
}

int cublasLtMatmulPreferenceSetAttribute(void *preference, int attribute,
                                         const void *value, size_t bytes) {
  if (attribute != 1)
    return kNotSupported;
  return readValue(*static_cast<uint64_t *>(preference), value, bytes);
}

int cublasLtMatmulAlgoGetHeuristic(void *, void *description, void *, void *,
                                   void *, void *, void *, int requested,
                                   void *results, int *returned) {
  auto *op = static_cast<Operation *>(description);
  if (requested < 1 || op->compute != 68 || op->scale != 0)
    return kNotSupported; // f32 compute and scale only
  // One result: algorithm bytes, no workspace, success.
  std::vector<char> result(64 + 8 + 4 + 4 + 16, 0);
  std::memcpy(results, result.data(), result.size());
  *returned = 1;
  return kSuccess;
}

int cublasLtMatmul(void *, void *description, const void *alpha, const void *a,
                   void *aLayout, const void *b, void *bLayout,
                   const void *beta, const void *c, void *cLayout, void *d,
                   void *dLayout, const void *, void *, size_t, void *stream) {
  auto *mm = new Matmul{*static_cast<Operation *>(description),
                        *static_cast<Layout *>(aLayout),
                        *static_cast<Layout *>(bLayout),
                        *static_cast<Layout *>(dLayout),
                        static_cast<const float *>(a),
                        static_cast<const float *>(b),
                        static_cast<float *>(d),
                        *static_cast<const float *>(alpha),
                        *static_cast<const float *>(beta)};
  const Layout &cl = *static_cast<Layout *>(cLayout);
  uint64_t m = mm->op.transA ? mm->a.columns : mm->a.rows;
  uint64_t n = mm->op.transB ? mm->b.rows : mm->b.columns;
  bool ok =
      c == d && m == mm->d.rows && n == mm->d.columns &&
      cl.rows == mm->d.rows && cl.columns == mm->d.columns &&
      mm->a.batch == mm->d.batch && mm->b.batch == mm->d.batch &&
      anyshapeFakeCudaIsDeviceMemory(reinterpret_cast<unsigned long long>(a),
                                     span(mm->a)) &&
      anyshapeFakeCudaIsDeviceMemory(reinterpret_cast<unsigned long long>(b),
                                     span(mm->b)) &&
      anyshapeFakeCudaIsDeviceMemory(reinterpret_cast<unsigned long long>(d),
                                     span(mm->d));
  if (!ok) {
    delete mm;
    return kInvalidValue;
  }
  if (anyshapeFakeCudaEnqueue(stream, &runMatmul, mm) != 0) {
    delete mm;
    return kInvalidValue;
  }
  return kSuccess;
}

} // extern "C"

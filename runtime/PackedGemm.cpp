// GEMM from a weight packed once (see PackedGemm.h).
//
// BLAS is column-major; our operands are row-major. C[m, n] = X[m, k] W[k, n]
// is, read column-major, C' = W' X' with C' = C as [N, M], W' = W as [N, K]
// and X' = X as [K, M]; so the weight is the library's A (the operand it
// packs) and a slice of the weight's columns is a block of A's rows.
#include "runtime/PackedGemm.h"

#include "runtime/ExecutionContext.h"
#include "runtime/HugePages.h"
#include "runtime/Threading.h"
#include "runtime/support/HandOff.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <vector>

#if ANYSHAPE_DNNL_PACKED_SGEMM
#include <oneapi/dnnl/dnnl_types.h>
// oneDNN's packed GEMM (its MKL-style sgemm_pack/sgemm_compute). libdnnl
// exports these but installs no header for them; the build checks that
// they link (runtime/CMakeLists.txt) and compiles this path only then.
namespace dnnl::impl::cpu {
dnnl_status_t sgemm_pack_get_size(const char *identifier, const char *transa,
                                  const char *transb, const dnnl_dim_t *m,
                                  const dnnl_dim_t *n, const dnnl_dim_t *k,
                                  const dnnl_dim_t *lda, const dnnl_dim_t *ldb,
                                  size_t *size, bool *pack);
dnnl_status_t sgemm_pack(const char *identifier, const char *transa,
                         const char *transb, const dnnl_dim_t *m,
                         const dnnl_dim_t *n, const dnnl_dim_t *k,
                         const dnnl_dim_t *lda, const dnnl_dim_t *ldb,
                         const float *source, float *destination);
dnnl_status_t sgemm_compute(const char *transa, const char *transb,
                            const dnnl_dim_t *m, const dnnl_dim_t *n,
                            const dnnl_dim_t *k, const float *a,
                            const dnnl_dim_t *lda, const float *b,
                            const dnnl_dim_t *ldb, const float *beta, float *c,
                            const dnnl_dim_t *ldc);
} // namespace dnnl::impl::cpu
#endif

extern "C" {
void GOMP_parallel(void (*fn)(void *), void *data, unsigned threads,
                   unsigned flags);
int omp_get_thread_num();
int omp_get_num_threads();
void omp_set_num_threads(int threads);
}

namespace anyshape::runtime {
namespace {

constexpr int64_t kEmpty = 0, kPacking = 1, kUnpackable = 2;

std::atomic<int64_t> packCount{0}, packedCallCount{0}, plainCallCount{0},
    releaseCount{0};

struct Slice {
  int64_t firstColumn = 0, columns = 0;
  float *data = nullptr; // the library's packed storage
};

struct PackedWeight {
  const float *source; // the weight's first element
  int64_t k, n;
  int64_t rowStride, columnStride; // of the weight's [K, N] view
  std::vector<Slice> slices;
  void *storage = nullptr; // every slice's data, one block (HugePages.h)

  bool serves(const Memref3D &b) const {
    return b.aligned + b.offset == source && b.sizes[1] == k &&
           b.sizes[2] == n && b.strides[1] == rowStride &&
           b.strides[2] == columnStride;
  }
  ~PackedWeight() { std::free(storage); }
};

#if ANYSHAPE_DNNL_PACKED_SGEMM
/// Fewer columns per slice than this and the per-call cost shows.
constexpr int64_t kMinSliceColumns = 32;
/// The row count the pack's blocking is chosen for: the middle of the
/// sequence lengths served; measured as fast as any other from 2 to 4096.
constexpr int64_t kPackedForRows = 512;

/// Runs task(thread, threads) on a team of `threads` (this thread alone
/// for 1); each member's oneDNN calls then run on that member alone.
template <typename Task> void onTeam(int threads, Task &task) {
  if (threads <= 1) {
    ScopedThreads alone(1);
    task(0, 1);
    return;
  }
  // The fork and the join are libgomp's, which ThreadSanitizer does not
  // see: the task is handed to each member, and their writes back.
  handOffRelease(&task);
  GOMP_parallel(
      [](void *data) {
        handOffAcquire(data);
        omp_set_num_threads(1); // this member's library calls: one thread
        (*static_cast<Task *>(data))(omp_get_thread_num(),
                                     omp_get_num_threads());
        handOffRelease(data);
      },
      &task, static_cast<unsigned>(threads), 0);
  handOffAcquire(&task);
}

int64_t teamOf(const AnyshapeExecutionContext *context) {
  return std::max<int64_t>(1, context ? context->teamSize : anyshapeTeamSize());
}

using dnnl::impl::cpu::sgemm_compute;
using dnnl::impl::cpu::sgemm_pack;
using dnnl::impl::cpu::sgemm_pack_get_size;

/// How the library reads the weight as A' = [N, K]: 'N' with the weight
/// row-major, 'T' with it stored transposed; 0 for any other view.
char weightTrans(const Memref3D &b, int64_t &lda) {
  int64_t k = b.sizes[1], n = b.sizes[2];
  if (b.strides[2] == 1 && (k == 1 || b.strides[1] >= n)) {
    lda = k == 1 ? n : b.strides[1];
    return 'N';
  }
  if (b.strides[1] == 1 && (n == 1 || b.strides[2] >= k)) {
    lda = n == 1 ? k : b.strides[2];
    return 'T';
  }
  return 0;
}

/// Packs `b` in slices on a team of `threads`; null if it cannot.
std::unique_ptr<PackedWeight> pack(const Memref3D &b, int threads) {
  int64_t lda = 0;
  char trans = weightTrans(b, lda);
  if (!trans)
    return nullptr;
  auto weight = std::make_unique<PackedWeight>();
  weight->source = b.aligned + b.offset;
  weight->k = b.sizes[1], weight->n = b.sizes[2];
  weight->rowStride = b.strides[1], weight->columnStride = b.strides[2];
  int64_t count = std::clamp<int64_t>(
      std::min<int64_t>(hardwareThreads(),
                        (weight->n + kMinSliceColumns - 1) / kMinSliceColumns),
      1, 64);
  weight->slices.resize(count);
  for (int64_t s = 0; s < count; ++s) {
    int64_t first = weight->n * s / count;
    weight->slices[s].firstColumn = first;
    weight->slices[s].columns = weight->n * (s + 1) / count - first;
  }
  // The slices' sizes first, so that they share one block: the weights
  // are then in as few huge pages as they fill (runtime/HugePages.h).
  const char transA[2] = {trans, 0};
  int64_t k = weight->k, ldb = weight->k, rows = kPackedForRows;
  std::vector<size_t> offsets(static_cast<size_t>(count) + 1, 0);
  for (int64_t s = 0; s < count; ++s) {
    size_t bytes = 0;
    bool copies = true;
    if (sgemm_pack_get_size("A", transA, "N", &weight->slices[s].columns, &rows,
                            &k, &lda, &ldb, &bytes, &copies) != dnnl_success)
      return nullptr;
    offsets[s + 1] = offsets[s] + (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
  }
  weight->storage = allocateForHugePages(offsets.back());
  if (!weight->storage)
    return nullptr;
  for (int64_t s = 0; s < count; ++s)
    weight->slices[s].data = reinterpret_cast<float *>(
        static_cast<char *>(weight->storage) + offsets[s]);
  std::atomic<bool> failed{false};
  auto task = [&](int thread, int team) {
    for (int64_t s = thread; s < count; s += team) {
      const Slice &slice = weight->slices[s];
      const float *from =
          weight->source +
          (trans == 'N' ? slice.firstColumn : slice.firstColumn * lda);
      // The dims are read only: the team shares them.
      if (sgemm_pack("A", transA, "N", &slice.columns, &rows, &k, &lda, &ldb,
                     from, slice.data) != dnnl_success)
        failed = true;
    }
  };
  onTeam(threads, task);
  if (failed)
    return nullptr;
  ++packCount;
  return weight;
}

/// The pack in `slot`, making it if the slot is empty and this call wins
/// the race to; null while another call packs, or if it cannot be packed.
const PackedWeight *packedIn(int64_t *slot, const Memref3D &b, int threads) {
  // The slot is generated code's int64_t, so it is read and written with
  // the compiler's atomic builtins (C++17 has no atomic_ref).
  int64_t value = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (value == kEmpty &&
      __atomic_compare_exchange_n(slot, &value, kPacking, false,
                                  __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
    std::unique_ptr<PackedWeight> weight = pack(b, threads);
    value = weight ? reinterpret_cast<int64_t>(weight.release()) : kUnpackable;
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  }
  if (value == kEmpty || value == kPacking || value == kUnpackable)
    return nullptr;
  return reinterpret_cast<const PackedWeight *>(value);
}

/// C = A B from the pack, B being the pack's weight for every batch item
/// (the caller checks both); false (C then rewritten by the caller) if
/// A's or C's view is not one it reads, or the library fails.
bool runPacked(const PackedWeight &weight, const Memref3D &a, const Memref3D &c,
               int threads) {
  int64_t batch = c.sizes[0], m = c.sizes[1], n = c.sizes[2], k = a.sizes[2];
  // X' = A as [K, M]: 'N' for row-major A, 'T' for a transposed view.
  char transX;
  int64_t ldx;
  if (a.strides[2] == 1 && (m == 1 || a.strides[1] >= k)) {
    transX = 'N', ldx = m == 1 ? k : a.strides[1];
  } else if (a.strides[1] == 1 && (k == 1 || a.strides[2] >= m)) {
    transX = 'T', ldx = k == 1 ? m : a.strides[2];
  } else {
    return false;
  }
  if (c.strides[2] != 1 || (m > 1 && c.strides[1] < n))
    return false;
  int64_t ldc = m == 1 ? n : c.strides[1];
  int64_t lda = weight.k; // ignored for a packed A, but checked
  std::atomic<bool> failed{false};
  auto task = [&](int thread, int team) {
    const char transB[2] = {transX, 0};
    const float beta = 0.0f;
    for (int64_t i = 0; i < batch; ++i) {
      const float *x = a.aligned + a.offset + i * a.strides[0];
      float *out = c.aligned + c.offset + i * c.strides[0];
      for (auto s = static_cast<size_t>(thread); s < weight.slices.size();
           s += static_cast<size_t>(team)) {
        const Slice &slice = weight.slices[s];
        int64_t rows = slice.columns, cols = m, depth = k;
        if (sgemm_compute("P", transB, &rows, &cols, &depth, slice.data, &lda,
                          x, &ldx, &beta, out + slice.firstColumn,
                          &ldc) != dnnl_success)
          failed = true;
      }
    }
  };
  onTeam(threads, task);
  return !failed;
}
#endif

} // namespace

extern "C" void
anyshapeBatchMatmulPackedF32(Memref3D *a, Memref3D *b, Memref3D *c,
                             SlotMemref *slot,
                             AnyshapeExecutionContext *context) {
#if ANYSHAPE_DNNL_PACKED_SGEMM
  int threads = static_cast<int>(teamOf(context));
  // One row: the library's GEMV is as fast. One weight for every batch
  // item, or nothing to pack.
  bool worthIt = c->sizes[0] * c->sizes[1] > 1 && a->sizes[2] > 0 &&
                 c->sizes[2] > 0 && (b->sizes[0] == 1 || b->strides[0] == 0);
  if (worthIt && slot && slot->aligned)
    if (const PackedWeight *weight =
            packedIn(slot->aligned + slot->offset, *b, threads))
      if (weight->serves(*b) && runPacked(*weight, *a, *c, threads)) {
        packedCallCount.fetch_add(1, std::memory_order_relaxed);
        return;
      }
#else
  (void)slot;
#endif
  plainCallCount.fetch_add(1, std::memory_order_relaxed);
  anyshapeBatchMatmulF32(a, b, c, context);
}

extern "C" void anyshapeReleaseGemmPack(int64_t slotAddress) {
  auto *slot = reinterpret_cast<int64_t *>(slotAddress);
  int64_t value = __atomic_exchange_n(slot, kEmpty, __ATOMIC_ACQ_REL);
  if (value != kEmpty && value != kPacking && value != kUnpackable) {
    delete reinterpret_cast<PackedWeight *>(value);
    ++releaseCount;
  }
}

bool packedGemmAvailable() { return ANYSHAPE_DNNL_PACKED_SGEMM != 0; }

PackedGemmCounts packedGemmCounts() {
  return {packCount.load(), packedCallCount.load(), plainCallCount.load(),
          releaseCount.load()};
}

} // namespace anyshape::runtime

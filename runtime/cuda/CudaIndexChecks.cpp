// Index checks on device buffers (runtime/IndexChecks.h): the span of the
// indices is copied to the host in the run's stream order, which waits for
// the kernels before it, and checked there. The price is one
// synchronisation of the stream per check, and the indices' bytes over the
// bus: token ids and positions are small next to the tensors they index.
#include "runtime/IndexChecks.h"
#include "runtime/cuda/CudaLaunch.h"

#include <cstring>

namespace anyshape::runtime::cuda {
namespace {

template <typename T>
void checkOnDevice(UnrankedMemref *indices, int64_t low, int64_t high,
                   int64_t node, AnyshapeExecutionContext *context) {
  auto *run = static_cast<CudaRun *>(context->moduleTable);
  if (!run->error.isOk() || context->failedCheckNode != 0)
    return;
  std::vector<unsigned char> host = spanOnHost(*run, *indices, sizeof(T));
  if (host.empty())
    return;
  std::vector<T> values(host.size() / sizeof(T));
  std::memcpy(values.data(), host.data(), host.size());
  auto *words = static_cast<const int64_t *>(indices->descriptor);
  int64_t rank = indices->rank;
  checkIndices(values.data(), words + 3, words + 3 + rank, rank, low, high,
               node, context);
}

} // namespace

extern "C" void anyshapeCudaCheckIndicesI32(UnrankedMemref *indices,
                                            int64_t low, int64_t high,
                                            int64_t node,
                                            AnyshapeExecutionContext *context) {
  checkOnDevice<int32_t>(indices, low, high, node, context);
}

extern "C" void anyshapeCudaCheckIndicesI64(UnrankedMemref *indices,
                                            int64_t low, int64_t high,
                                            int64_t node,
                                            AnyshapeExecutionContext *context) {
  checkOnDevice<int64_t>(indices, low, high, node, context);
}

} // namespace anyshape::runtime::cuda

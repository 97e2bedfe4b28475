// Index checks on device buffers (runtime/IndexChecks.h): the span of the
// indices is copied to the host in the run's stream order, which waits for
// the kernels before it, and checked there. The price is one
// synchronisation of the stream per check, and the indices' bytes over the
// bus: token ids and positions are small next to the tensors they index.
#include "runtime/IndexChecks.h"
#include "runtime/cuda/CudaLaunch.h"

namespace anyshape::runtime::cuda {
namespace {

template <typename T>
void checkOnDevice(UnrankedMemref *indices, int64_t low, int64_t high,
                   int64_t node, AnyshapeExecutionContext *context) {
  auto *run = static_cast<CudaRun *>(context->moduleTable);
  if (!run->error.isOk() || context->failedCheckNode != 0)
    return;
  auto *words = static_cast<const int64_t *>(indices->descriptor);
  int64_t rank = indices->rank;
  const int64_t *sizes = words + 3, *strides = words + 3 + rank;
  if (elementCount(sizes, rank) <= 0)
    return;
  int64_t span = 1; // strides of bufferized views are never negative
  for (int64_t d = 0; d < rank; ++d)
    span += (sizes[d] - 1) * strides[d];
  std::vector<T> host(static_cast<size_t>(span));
  auto first = static_cast<DevicePointer>(words[1] + words[2] * sizeof(T));
  const Driver &driver = *run->driver;
  const char *call = "cuMemcpyDtoHAsync_v2";
  int result = driver.cuMemcpyDtoHAsync_v2(
      host.data(), first, host.size() * sizeof(T), run->stream);
  if (result == 0) {
    call = "cuStreamSynchronize";
    result = driver.cuStreamSynchronize(run->stream);
  }
  if (result != 0) {
    run->error = checkCall(driver, call, result);
    return;
  }
  checkIndices(host.data(), sizes, strides, rank, low, high, node, context);
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

// scatter on device buffers (runtime/Scatter.h): the operand's, the
// indices' and the updates' spans are copied to the host in the run's
// stream order, which waits for the kernels before them; the result is
// computed there and copied into its device buffer. Linear work, but a
// round trip over the bus and a synchronisation per scatter: a device
// kernel is the next step (docs/cuda.md).
#include "runtime/Scatter.h"
#include "runtime/cuda/CudaLaunch.h"

#include <vector>

namespace anyshape::runtime::cuda {

extern "C" void anyshapeCudaScatter(UnrankedMemref *operand,
                                    UnrankedMemref *indices,
                                    UnrankedMemref *updates,
                                    UnrankedMemref *result, int64_t element,
                                    int64_t indexBytes, int64_t reduction,
                                    AnyshapeExecutionContext *context) {
  auto *run = static_cast<CudaRun *>(context->moduleTable);
  int64_t bytes = scatterElementBytes(element);
  StridedBytes out = StridedBytes::of(*result, nullptr, bytes);
  int64_t count = out.elementCount();
  if (!run->error.isOk() || count <= 0)
    return;
  std::vector<unsigned char> operandHost, indicesHost, updatesHost;
  StridedBytes operandView = viewOnHost(*run, *operand, bytes, operandHost);
  StridedBytes indicesView =
      viewOnHost(*run, *indices, indexBytes, indicesHost);
  StridedBytes updatesView = viewOnHost(*run, *updates, bytes, updatesHost);
  if (!run->error.isOk())
    return;
  std::vector<unsigned char> written(static_cast<size_t>(count * bytes));
  scatterRows(operandView, indicesView, indexBytes, updatesView, written.data(),
              element, reduction);
  copyToResult(*run, *result, bytes, written.data(), written.size());
}

} // namespace anyshape::runtime::cuda

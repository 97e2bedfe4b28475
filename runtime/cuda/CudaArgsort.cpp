// argsort on device buffers (runtime/Argsort.h): the operand's span is
// copied to the host in the run's stream order, which waits for the
// kernels before it; the positions are computed there and copied into the
// result's device buffer. A round trip over the bus and a synchronisation
// per argsort, as scatter's (docs/cuda.md).
#include "runtime/Argsort.h"
#include "runtime/Scatter.h" // the element codes
#include "runtime/cuda/CudaLaunch.h"

#include <vector>

namespace anyshape::runtime::cuda {

extern "C" void anyshapeCudaArgsort(UnrankedMemref *operand,
                                    UnrankedMemref *result, int64_t element,
                                    int64_t axis, int64_t descending,
                                    AnyshapeExecutionContext *context) {
  auto *run = static_cast<CudaRun *>(context->moduleTable);
  int64_t bytes = scatterElementBytes(element);
  int64_t count = StridedBytes::of(*result, nullptr, 8).elementCount();
  if (!run->error.isOk() || count <= 0)
    return;
  std::vector<unsigned char> host;
  StridedBytes view = viewOnHost(*run, *operand, bytes, host);
  if (!run->error.isOk())
    return;
  std::vector<int64_t> positions(static_cast<size_t>(count));
  argsortRows(view, element, axis, descending != 0, positions.data());
  copyToResult(*run, *result, 8, positions.data(), positions.size() * 8);
}

} // namespace anyshape::runtime::cuda

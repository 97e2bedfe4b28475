// cumulative on device buffers (runtime/Cumulative.h): the operand's span
// is copied to the host in the run's stream order, which waits for the
// kernels before it; the running folds are computed there and copied into
// the result's device buffer. A round trip over the bus and a
// synchronisation per cumulative, as argsort's (docs/cuda.md).
#include "runtime/Cumulative.h"
#include "runtime/Scatter.h" // the element codes
#include "runtime/cuda/CudaLaunch.h"

#include <vector>

namespace anyshape::runtime::cuda {

extern "C" void anyshapeCudaCumulative(UnrankedMemref *operand,
                                       UnrankedMemref *result, int64_t element,
                                       int64_t axis, int64_t kind,
                                       int64_t flags,
                                       AnyshapeExecutionContext *context) {
  auto *run = static_cast<CudaRun *>(context->moduleTable);
  int64_t bytes = scatterElementBytes(element);
  int64_t count = StridedBytes::of(*result, nullptr, bytes).elementCount();
  if (!run->error.isOk() || count <= 0)
    return;
  std::vector<unsigned char> host;
  StridedBytes view = viewOnHost(*run, *operand, bytes, host);
  if (!run->error.isOk())
    return;
  std::vector<unsigned char> folded(static_cast<size_t>(count * bytes));
  cumulativeRows(view, element, axis, kind, flags, folded.data());
  copyToResult(*run, *result, bytes, folded.data(), folded.size());
}

} // namespace anyshape::runtime::cuda

// nonzero on device buffers (runtime/NonZero.h): the operand's span is
// copied to the host in the run's stream order, which waits for the
// kernels before it; the count is computed there, and the coordinates are
// written there and copied into the result on the device. The count
// crosses to the host because the host flow sizes the result, and all
// that follows, by it: one synchronisation of the stream for the count,
// one for the coordinates.
#include "runtime/NonZero.h"
#include "runtime/cuda/CudaLaunch.h"

#include <vector>

namespace anyshape::runtime::cuda {
namespace {

/// The operand's span on the host (empty for an empty operand or after a
/// failure, recorded in the run); `view` then addresses it.
std::vector<unsigned char> operandOnHost(UnrankedMemref *operand, int64_t kind,
                                         CudaRun &run, StridedBytes &view) {
  std::vector<unsigned char> host;
  view = viewOnHost(run, *operand, nonZeroElementBytes(kind), host);
  return host;
}

} // namespace

extern "C" int64_t anyshapeCudaCountNonZero(UnrankedMemref *operand,
                                            int64_t kind,
                                            AnyshapeExecutionContext *context) {
  auto *run = static_cast<CudaRun *>(context->moduleTable);
  if (!run->error.isOk())
    return 0; // the run fails; nothing after this reads the sizes' data
  StridedBytes view;
  std::vector<unsigned char> host = operandOnHost(operand, kind, *run, view);
  if (host.empty())
    return 0;
  return forEachNonZero(view, kind, [](int64_t, const int64_t *) {});
}

extern "C" void anyshapeCudaNonZeroIndices(UnrankedMemref *operand,
                                           int64_t kind, UnrankedMemref *result,
                                           AnyshapeExecutionContext *context) {
  auto *run = static_cast<CudaRun *>(context->moduleTable);
  auto *words = static_cast<const int64_t *>(result->descriptor);
  int64_t count = words[4], rank = words[3];
  if (!run->error.isOk() || count * rank == 0)
    return;
  StridedBytes view;
  std::vector<unsigned char> host = operandOnHost(operand, kind, *run, view);
  if (host.empty())
    return;
  std::vector<int64_t> coordinates(static_cast<size_t>(count * rank));
  writeNonZeroCoordinates(view, kind, coordinates.data(), count);
  copyToResult(*run, *result, sizeof(int64_t), coordinates.data(),
               coordinates.size() * sizeof(int64_t));
}

} // namespace anyshape::runtime::cuda

// nonzero on host buffers (NonZero.h).
#include "NonZero.h"

namespace anyshape::runtime {
namespace {

StridedBytes hostView(const UnrankedMemref &memref, int64_t kind) {
  auto *words = static_cast<const int64_t *>(memref.descriptor);
  return StridedBytes::of(memref, reinterpret_cast<const void *>(words[1]),
                          nonZeroElementBytes(kind));
}

} // namespace

extern "C" int64_t anyshapeCountNonZero(UnrankedMemref *operand, int64_t kind,
                                        AnyshapeExecutionContext *) {
  return forEachNonZero(hostView(*operand, kind), kind,
                        [](int64_t, const int64_t *) {});
}

extern "C" void anyshapeNonZeroIndices(UnrankedMemref *operand, int64_t kind,
                                       UnrankedMemref *result,
                                       AnyshapeExecutionContext *) {
  // The result is the host flow's own allocation, [rank, count] with the
  // identity layout: its sizes are descriptor words 3 and 4.
  auto *words = static_cast<const int64_t *>(result->descriptor);
  auto *out = reinterpret_cast<int64_t *>(words[1]) + words[2];
  writeNonZeroCoordinates(hostView(*operand, kind), kind, out, words[4]);
}

} // namespace anyshape::runtime

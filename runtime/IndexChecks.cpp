// Index checks on host buffers (IndexChecks.h).
#include "IndexChecks.h"

namespace anyshape::runtime {
namespace {

/// The ranked descriptor's fields: the aligned pointer, offset, sizes and
/// strides.
template <typename T> struct View {
  const T *first; // the aligned pointer plus the offset
  const int64_t *sizes;
  const int64_t *strides;
  int64_t rank;
};

template <typename T> View<T> viewOf(const UnrankedMemref &memref) {
  auto *words = static_cast<const int64_t *>(memref.descriptor);
  auto *aligned = reinterpret_cast<const T *>(words[1]);
  return {aligned + words[2], words + 3, words + 3 + memref.rank, memref.rank};
}

template <typename T>
void checkHost(UnrankedMemref *indices, int64_t low, int64_t high, int64_t node,
               AnyshapeExecutionContext *context) {
  View<T> view = viewOf<T>(*indices);
  checkIndices(view.first, view.sizes, view.strides, view.rank, low, high, node,
               context);
}

} // namespace

extern "C" void anyshapeCheckIndicesI32(UnrankedMemref *indices, int64_t low,
                                        int64_t high, int64_t node,
                                        AnyshapeExecutionContext *context) {
  checkHost<int32_t>(indices, low, high, node, context);
}

extern "C" void anyshapeCheckIndicesI64(UnrankedMemref *indices, int64_t low,
                                        int64_t high, int64_t node,
                                        AnyshapeExecutionContext *context) {
  checkHost<int64_t>(indices, low, high, node, context);
}

} // namespace anyshape::runtime

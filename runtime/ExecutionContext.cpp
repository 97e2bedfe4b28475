#include "runtime/ExecutionContext.h"

#include "runtime/Allocator.h"

#include <algorithm>

namespace anyshape::runtime {
namespace {

void *cachingAlloc(void *, uint64_t alignment, uint64_t size) {
  return anyshapeAlignedAlloc(alignment, size);
}

void cachingFree(void *, void *pointer) { anyshapeFree(pointer); }

} // namespace

extern "C" void *anyshapeContextAlloc(AnyshapeExecutionContext *context,
                                      uint64_t alignment, uint64_t size) {
  return context->alloc(context->allocator, alignment, size);
}

extern "C" void anyshapeContextFree(AnyshapeExecutionContext *context,
                                    void *pointer) {
  context->free(context->allocator, pointer);
}

AnyshapeExecutionContext cachingContext(int64_t teamSize) {
  return {std::max<int64_t>(teamSize, 1),
          &cachingAlloc,
          &cachingFree,
          nullptr,
          nullptr,
          nullptr};
}

} // namespace anyshape::runtime

#include "runtime/ExecutionContext.h"

#include "runtime/Allocator.h"

#include <algorithm>
#include <cstring>

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

extern "C" void anyshapeRuntimeError(AnyshapeExecutionContext *context,
                                     const char *message) {
  if (!context || context->runtimeError[0])
    return;
  std::strncpy(context->runtimeError, message,
               sizeof context->runtimeError - 1);
  context->runtimeError[sizeof context->runtimeError - 1] = '\0';
}

AnyshapeExecutionContext cachingContext(int64_t teamSize) {
  AnyshapeExecutionContext context{};
  context.teamSize = std::max<int64_t>(teamSize, 1);
  context.alloc = &cachingAlloc;
  context.free = &cachingFree;
  return context;
}

} // namespace anyshape::runtime

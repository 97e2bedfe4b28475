// Rules on a nonzero's count, checked mid-run (SizeChecks.h).
#include "SizeChecks.h"

#include <csetjmp>

namespace anyshape::runtime {

extern "C" void anyshapeCheckSizes(int64_t failed, int64_t check, int64_t a,
                                   int64_t b,
                                   AnyshapeExecutionContext *context) {
  if (!failed || context->failedSizeCheck != 0)
    return;
  context->failedSizeCheck = check + 1;
  context->failedSizeA = a;
  context->failedSizeB = b;
  if (context->stopRun)
    std::longjmp(*static_cast<std::jmp_buf *>(context->stopRun), 1);
  anyshapeRuntimeError(context, "a rule on a nonzero's count failed, and "
                                "the run could not be stopped");
}

} // namespace anyshape::runtime

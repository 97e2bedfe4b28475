// The rules on sizes known only mid-run (a nonzero's count) that the host
// flow checks where the count becomes known (codegen's
// anyshape-size-checks-to-runtime-calls): a failed rule is recorded in the
// execution context and stops the run at once, by a longjmp to the jmp_buf
// the caller set (AnyshapeExecutionContext::stopRun), since any kernel
// after it could read past a buffer sized by the count. The frames it
// crosses are generated code and this function: nothing there needs
// unwinding. The caller frees what the run had allocated and reports the
// rule (jit/Executable.cpp).
#pragma once

#include "ExecutionContext.h"

#include <cstdint>

namespace anyshape::runtime {

extern "C" {
/// When `failed` is set, records rule `check` (its sides `a` and `b`) and
/// stops the run through `context->stopRun`; without one, the failure is
/// the run's runtime error and the run goes on (a caller that cannot stop
/// a run must not run an executable with such rules).
void anyshapeCheckSizes(int64_t failed, int64_t check, int64_t a, int64_t b,
                        AnyshapeExecutionContext *context);
}

} // namespace anyshape::runtime

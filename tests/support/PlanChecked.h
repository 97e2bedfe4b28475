// Compile options for the JIT tests: the default options, plus the check
// that every kernel codegen forms is exactly one fusion of the plan
// (CpuPipelineOptions::checkPlan), so that any graph a test compiles also
// tests that codegen follows the plan.
#pragma once

#include "jit/Compiler.h"

namespace anyshape::test {

inline jit::CompileOptions planChecked(jit::CompileOptions options = {}) {
  options.pipeline.checkPlan = options.pipeline.fuse;
  return options;
}

} // namespace anyshape::test

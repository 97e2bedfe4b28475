//===- LoopHints.h - vectorisation hints on generated LLVM IR ----*- C++
//-*-===//
//
// Loop metadata added to the translated module before LLVM optimises it,
// where the kernels' structure tells more than LLVM's cost model knows.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/CPU/CpuTarget.h"

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace anyshape::codegen {

/// Hints on every innermost loop of `module`:
///   - one that calls llvm.maximum / llvm.minimum (row max/min reductions,
///     see anyshape-min-max-reductions) is vectorised at the width of the
///     target's vector registers: the cost model prices those calls as if
///     they were scalarised and declines, although x86 lowers them to a few
///     vector instructions;
///   - one known to run at most a row loop's step of iterations
///     (CpuTarget::rowLoopStep: the remainder loops of
///     anyshape-split-vector-remainders) is vectorised with its tail folded
///     into masked vectors and without interleaving: no scalar iteration
///     is left (a softmax row of 1023 then costs 1.05-1.11x a row of
///     1024, not 1.6x; docs/benchmarks.md).
void addLoopHints(llvm::Module &module, llvm::TargetMachine &machine,
                  const CpuTarget &target);

} // namespace anyshape::codegen

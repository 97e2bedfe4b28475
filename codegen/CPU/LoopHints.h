//===- LoopHints.h - vectorisation hints on generated LLVM IR ----*- C++
//-*-===//
//
// Loop metadata added to the translated module before LLVM optimises it,
// where the kernels' structure tells more than LLVM's cost model knows.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/CPU/CpuTarget.h"

#include "llvm/ADT/StringSet.h"

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
///     1024, not 1.6x; docs/benchmarks.md);
///   - one of a kernel (a function named in `kernels`, or one OpenMP
///     outlined from it) whose every store advances with the loop, one
///     element an iteration, is marked parallel
///     (llvm.loop.parallel_accesses): its iterations touch no memory
///     another iteration writes. That rests on how kernels are built, not
///     on anything checked here: a kernel's loops are linalg ops' (and
///     copies'), whose outputs are fresh allocations (never an input's,
///     every init a tensor.empty or a fill of one) written once per
///     element, reading an output only at the element they write; so
///     what LLVM cannot prove is only that distinct buffers do not
///     overlap. Unmarked, it vectorises behind run-time overlap checks
///     with a scalar copy of the loop for when they fail (and cannot fold
///     a remainder's tail into masks). A store to one address every
///     iteration (an accumulator in memory) or at computed indices leaves
///     the loop as it was.
void addLoopHints(llvm::Module &module, llvm::TargetMachine &machine,
                  const CpuTarget &target, const llvm::StringSet<> &kernels);

} // namespace anyshape::codegen

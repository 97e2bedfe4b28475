//===- LoopHints.h - vectorisation hints on generated LLVM IR ----*- C++
//-*-===//
//
// Loop metadata added to the translated module before LLVM optimises it,
// where the kernels' structure tells more than LLVM's cost model knows.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace anyshape::jit {

/// Asks the loop vectoriser to vectorise every innermost loop that calls
/// llvm.maximum / llvm.minimum (row max/min reductions, see
/// anyshape-min-max-reductions), at the width of the target's vector
/// registers. Its cost model prices those calls as if they were scalarised
/// and declines, although x86 lowers them to a few vector instructions.
void hintMinMaxLoops(llvm::Module &module, llvm::TargetMachine &machine);

} // namespace anyshape::jit

//===- SplitLongBlocks.h - bounded functions for codegen ---------*- C++
//-*-===//
//
// LLVM's greedy register allocator is superlinear in a function's size:
// a host flow of N straight-line steps (a concatenate of 5,000 operands,
// one copy each) spent 21 s of a 25 s compile allocating registers. After
// optimisation, before codegen, a function over a size bound has its long
// straight-line blocks outside loops cut into pieces, and each piece is
// extracted into a function of its own (LLVM's CodeExtractor, arguments in
// one struct). Kernels are untouched: the cut happens after the optimiser
// has seen the whole function, only between host steps (never inside a
// loop), and never where a stack slot of a piece is still in use after it.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace llvm {
class Module;
} // namespace llvm

namespace anyshape::compiler {

/// Returns the number of functions extracted.
int splitLongBlocks(llvm::Module &module);

} // namespace anyshape::compiler

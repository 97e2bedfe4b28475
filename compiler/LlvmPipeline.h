//===- LlvmPipeline.h - LLVM's passes as anyshape runs them -----*- C++ -*-===//
//
// The optimisation a module gets before it is emitted: LLVM's default
// pipeline at a level, as MLIR's makeOptimizingTransformer builds it (the
// loop and SLP vectorisers and unrolling on), without two passes whose
// cost grows superlinearly with what generated host flows hold
// (ConstraintElimination, CalledValuePropagation). A module emitted in
// parts (ParallelCodegen.h) is optimised part by part, on the parts'
// threads, after propagateAcrossFunctions has run on it whole.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace anyshape::compiler {

/// LLVM's default pipeline at `optLevel` (0-3) on `module`, without
/// ConstraintElimination (its cost grows with conditions times facts: 91%
/// of `opt -O2` on a concatenate of 400 inputs; kernel loops, whose bounds
/// MLIR folded, lose nothing) and CalledValuePropagation (it helps only
/// indirect calls, which generated code has none of, and its lattice grows
/// with the values reaching the calls: 7.3 s on a concatenate of 1,000
/// inputs). Safe to run on several threads, each module in its own
/// context.
void optimizeModule(llvm::Module &module, int optLevel,
                    llvm::TargetMachine *machine);

/// What the default pipeline learns across functions that a part would
/// not see once the module is split: interprocedural constant propagation
/// (sizes the host flow passes its kernels as constants are folded into
/// the kernels). Cheap next to the pipeline.
void propagateAcrossFunctions(llvm::Module &module,
                              llvm::TargetMachine *machine);

/// How many times a pass was left out so far in this process (tests).
int64_t llvmPassesLeftOut();

} // namespace anyshape::compiler

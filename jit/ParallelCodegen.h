//===- ParallelCodegen.h - a module's object code, in parts at once -*- C++
//-*-===//
//
// Instruction selection and register allocation ("LLVM emit") are half of
// a large graph's compile, and they run function by function: a module
// can be emitted in parts, one per core. The optimised module is split
// (llvm::SplitModule, its locals made hidden globals so the parts link to
// each other), each part goes through bitcode into an LLVMContext of its
// own (a context is not thread-safe) and is emitted on a thread of its
// own. The loader links the objects into one JITDylib (ObjectBundle.h).
// Optimisation stays on the whole module, before the split, so what it
// learns across functions (sizes the host flow passes its kernels as
// constants) is kept.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/support/Status.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace anyshape::jit {

/// How many parts `module` is emitted in: `requested` if positive (tests;
/// at most kMaxBundledObjects),
/// otherwise one per kMinInstructionsPerPart instructions, up to one per
/// core (at most 4), and one whenever its globals hold more than
/// kMaxConstantBytesToSplit of data (embedded weights would be copied
/// through bitcode twice: memory a compile worker is limited in;
/// undefined and zero-filled globals do not count).
int codegenParts(const llvm::Module &module, int requested);

inline constexpr int64_t kMinInstructionsPerPart = 4000;
inline constexpr int64_t kMaxConstantBytesToSplit = int64_t{64} << 20;

/// `module` emitted by `machine` as one ELF object; its context's
/// diagnostic handler sees what LLVM reports.
StatusOr<std::string> emitObject(llvm::Module &module,
                                 llvm::TargetMachine &machine);

/// The object code of each part of `module` (which the split consumes:
/// do not use it afterwards), `parts` >= 2, emitted in parallel (a part
/// whose thread cannot start is emitted on the calling thread). An error
/// names the part and what LLVM said.
StatusOr<std::vector<std::string>> emitInParts(llvm::Module &module, int parts);

} // namespace anyshape::jit

//===- ParallelCodegen.h - a module's object code, in parts at once -*- C++
//-*-===//
//
// LLVM's optimisation and instruction selection and register allocation
// are most of a graph's compile, and they run function by function: a
// module can be optimised and emitted in parts, one per core. The module
// is split (its locals made hidden globals so the parts link to each
// other; each kernel kept with its outlined OpenMP bodies, the parts
// balanced by instructions), each part goes through bitcode into an
// LLVMContext of its own (a context is not thread-safe) and is optimised
// and emitted on a thread of its own. The loader links the objects into
// one JITDylib (ObjectBundle.h). What the pipeline learns across
// functions (sizes the host flow passes its kernels as constants) is
// learnt on the whole module before the split (propagateAcrossFunctions);
// kernels are never inlined (ObjectCode.cpp), so nothing else crosses.
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

namespace anyshape::compiler {

/// How many parts `module` (not yet optimised) is optimised and emitted
/// in: `requested` if positive (tests; at most kMaxBundledObjects),
/// otherwise one per kMinInstructionsPerPart instructions, up to one per
/// core (at most 4), and one whenever its globals hold more than
/// kMaxConstantBytesToSplit of data (embedded weights would be copied
/// through bitcode twice: memory a compile worker is limited in;
/// undefined and zero-filled globals do not count).
int codegenParts(const llvm::Module &module, int requested);

/// Counted before optimisation, which about doubles them (vectorised and
/// unrolled loops): the encoder layer has 4,300, then 9,300.
inline constexpr int64_t kMinInstructionsPerPart = 2000;
inline constexpr int64_t kMaxConstantBytesToSplit = int64_t{64} << 20;

/// `module` emitted by `machine` as one ELF object; its context's
/// diagnostic handler sees what LLVM reports.
StatusOr<std::string> emitObject(llvm::Module &module,
                                 llvm::TargetMachine &machine);

/// The object code of each part of `module` (which the split consumes:
/// do not use it afterwards), `parts` >= 2, each optimised at `optLevel`
/// (LlvmPipeline.h) and emitted on a thread of its own (a part whose
/// thread cannot start runs on the calling thread). `optimised`, if
/// given, receives the parts' optimised IR, in order. An error names the
/// part and what LLVM said.
StatusOr<std::vector<std::string>> emitInParts(llvm::Module &module, int parts,
                                               int optLevel,
                                               std::string *optimised);

} // namespace anyshape::compiler

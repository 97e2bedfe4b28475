//===- ObjectCode.h - the LLVM dialect to a relocatable object --*- C++ -*-===//
//
// The last compile stage: translate the pipeline's LLVM-dialect module to
// LLVM IR, add the executable's one exported entry, optimise for the host
// CPU and emit an ELF object. The object is what executables load
// (LoadedObject.h) and what the compile cache stores on disk, so loading a
// cached executable never runs the compiler.
//
// Entry ABI: `void anyshape_entry(void **args)`; args[0] points to the
// result pointer (a struct of one memref descriptor per output), args[1+k]
// to the pointer to input k's descriptor (Executable.cpp builds both).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/support/Status.h"

#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace anyshape::jit {

inline constexpr const char *kEntrySymbol = "anyshape_entry";

/// The CPU code is generated for: triple, CPU name and features. Objects
/// are only valid on a host with the same description (cache key input).
struct HostTarget {
  std::string triple;
  std::string cpu;
  std::string features;
  std::string description() const;
};

/// Registers LLVM's native target (idempotent, thread-safe).
void initialiseNativeTarget();

/// This machine's target (computed once).
const HostTarget &hostTarget();

/// A target machine for this host (position-independent code).
StatusOr<std::unique_ptr<llvm::TargetMachine>> createHostTargetMachine();

/// `module` must be fully in the LLVM dialect with a C-interface @main.
/// With `dumpDir`, writes the LLVM IR before and after optimisation there
/// (llvm_before_opt.ll, llvm_after_opt.ll).
StatusOr<std::string> emitObjectCode(mlir::ModuleOp module, int optLevel,
                                     const std::string &dumpDir = "");

} // namespace anyshape::jit

//===- HostTarget.h - the CPU object code is made for -----------*- C++ -*-===//
//
// This machine's CPU as LLVM names it (triple, CPU, features): what the
// compiler emits object code for, and what an object is only valid on, so
// the compile cache keys on its description. The loader and the compiler
// both need it; it takes LLVM's target registry, not MLIR.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/support/Status.h"

#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace anyshape::jit {

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

} // namespace anyshape::jit

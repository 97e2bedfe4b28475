//===- ObjectCode.h - the LLVM dialect to a relocatable object --*- C++ -*-===//
//
// The last compile stage: translate the pipeline's LLVM-dialect module to
// LLVM IR, add the executable's one exported entry, optimise for the host
// CPU and emit an ELF object. The object is what executables load
// (LoadedObject.h) and what the compile cache stores on disk, so loading a
// cached executable never runs the compiler.
//
// The object's entry and the symbols it exports and calls are
// runtime/Abi.h's; the entry checks every shape rule before it runs
// anything (ShapeCheckFunction.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/CPU/CpuTarget.h"
#include "compiler/Stage.h"
#include "jit/HostTarget.h"
#include "runtime/support/Status.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <string>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace anyshape::compiler {

/// `module` must be fully in the LLVM dialect with a C-interface @main.
/// With `dumpDir`, writes the LLVM IR before and after optimisation there
/// (before.ll, after.ll) and what LLVM reported (diagnostics.txt).
/// `target` is what the pipeline generated for (its loop hints follow it).
/// `stageDone` is called with Stage::kLlvmOptimise once the module is
/// translated and optimised, and with kLlvmEmit once the object exists.
/// A large module is emitted in parts on several cores (ParallelCodegen.h;
/// `codegenParts` > 0 forces that many) and its objects come back bundled
/// (ObjectBundle.h).
StatusOr<std::string> emitObjectCode(
    mlir::ModuleOp module, int optLevel, const codegen::CpuTarget &target,
    const std::string &dumpDir = "",
    llvm::function_ref<void(Stage)> stageDone = {}, int codegenParts = 0);

} // namespace anyshape::compiler

//===- Stage.h - the stages of a compile, one name each ---------*- C++ -*-===//
//
// A compile's stages, in the order Compiler.cpp runs them. The one list
// of them: the progress lines and CompileReport name each by stageName,
// `--dump-ir DIR` writes what each leaves into DIR/stageFolder, and
// docs/pipeline.md's table is ordered and numbered by it. The MLIR
// pipeline's parts are named in docs/pipeline.md, not numbered here: a
// target adds its own passes between them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace anyshape::compiler {

enum class Stage {
  kValidate,     ///< the wire graph checked (and specialised, if asked)
  kImport,       ///< dhlo, with the run-time shape checks validation found
  kMlirPipeline, ///< the target's passes, down to the LLVM dialect
  kCudaKernels,  ///< CUDA only: the kernels' PTX linked into cubins
  kLlvmOptimise, ///< LLVM IR, optimised for the host
  kLlvmEmit,     ///< the object code
  kLink,         ///< loaded into this process (Compiler::compile only)
};

/// As progress lines and reports print it: "MLIR pipeline".
const char *stageName(Stage stage);

/// The folder of `--dump-ir DIR` holding what the stage leaves: its number
/// and name, "2-mlir-pipeline".
std::string stageFolder(Stage stage);

} // namespace anyshape::compiler

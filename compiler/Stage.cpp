//===- Stage.cpp - the stages of a compile, one name each -------*- C++ -*-===//
#include "compiler/Stage.h"

#include <cctype>

namespace anyshape::compiler {

const char *stageName(Stage stage) {
  switch (stage) {
  case Stage::kValidate:
    return "validate";
  case Stage::kImport:
    return "import";
  case Stage::kMlirPipeline:
    return "MLIR pipeline";
  case Stage::kCudaKernels:
    return "CUDA kernels";
  case Stage::kLlvmOptimise:
    return "LLVM optimise";
  case Stage::kLlvmEmit:
    return "LLVM emit";
  case Stage::kLink:
    return "link";
  }
  return "unknown";
}

std::string stageFolder(Stage stage) {
  std::string folder = std::to_string(static_cast<int>(stage)) + "-";
  for (const char *c = stageName(stage); *c; ++c)
    folder += *c == ' ' ? '-' : static_cast<char>(std::tolower(*c));
  return folder;
}

} // namespace anyshape::compiler

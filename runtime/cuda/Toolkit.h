//===- Toolkit.h - where the CUDA toolkit's files are -----------*- C++ -*-===//
//
// The one owner of where anyshape looks for the CUDA toolkit's files:
// $CUDA_HOME first, then /usr/local/cuda. The libraries loaded with dlopen
// (cuBLASLt, nvJitLink) are tried as the dynamic loader finds them first
// (LD_LIBRARY_PATH, the system's paths), then there; ptxas there, then on
// PATH. (MLIR's libdevice search, for the kernels' math, is MLIR's own:
// $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH.)
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace anyshape::runtime::cuda {

/// The toolkit's `relative` path ("lib64/libnvJitLink.so.13",
/// "bin/ptxas") under each place the toolkit may be, in search order.
std::vector<std::string> toolkitPaths(const std::string &relative);

/// A library of the toolkit opened with dlopen (RTLD_NOW | RTLD_LOCAL).
struct ToolkitLibrary {
  void *handle = nullptr; ///< null: not found
  std::string path;       ///< what was opened
  std::string error;      ///< why not, naming what to set; empty if opened
};

/// `soname` ("libcublasLt.so.13") as the loader finds it, else from the
/// toolkit's lib64; `$overrideVariable`, when set and not empty, is the
/// only path tried (the tests' fake libraries). `what` names the library
/// in the error ("cuBLASLt").
ToolkitLibrary openToolkitLibrary(const std::string &soname,
                                  const char *overrideVariable,
                                  const std::string &what);

} // namespace anyshape::runtime::cuda

//===- PerfMap.h - JITed functions named for perf ---------------*- C++ -*-===//
//
// With ANYSHAPE_PERF_MAP=1 in the environment, every function an object
// defines (kernels, their OpenMP bodies, the host flow) is appended to
// /tmp/perf-PID.map as it is linked, so `perf record` / `perf report`
// name JITed code instead of printing bare addresses; what stays unnamed
// is oneDNN's JITed GEMM (its own DNNL_JIT_PROFILE=2 map truncates the
// same file when its first kernel is made, so use one or the other).
// docs/benchmarks.md, "Where the time goes", uses it. Off by default: no
// cost when unset.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace anyshape::jit {

/// This process's map, where perf looks for it: /tmp/perf-PID.map.
std::string perfMapPath();

/// Installs the perf-map writer on `jit`'s linker when the environment
/// asks for it (a no-op otherwise, or when the linker is not JITLink).
void addPerfMapIfRequested(llvm::orc::LLJIT &jit);

} // namespace anyshape::jit

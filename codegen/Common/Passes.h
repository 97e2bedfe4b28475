//===- Passes.h - target-neutral codegen passes -----------------*- C++ -*-===//
//
// Declarations of the target-neutral codegen passes (Passes.td) and the
// attributes they agree on. The names generated code and the runtime agree
// on are runtime/Abi.h's.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/Abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace anyshape::codegen {

#define GEN_PASS_DECL
#include "codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/Common/Passes.h.inc"

/// Whether `callee` is a nonzero's runtime function, with any suffix.
inline bool isNonZeroCall(llvm::StringRef callee) {
  return callee.starts_with(abi::kCountNonZero) ||
         callee.starts_with(abi::kNonZeroIndices);
}
/// Whether the host flow passes the execution context to `callee`, a
/// runtime function it calls, as the last operand: the GEMMs (the run's
/// team), the index and size checks (a failure is recorded in the context),
/// nonzero's, scatter, argsort and cumulative (the CUDA run's stream), the
/// convolution (the run's team, and its errors).
inline bool takesContextLast(llvm::StringRef callee) {
  return callee == abi::kBatchMatmulF32 ||
         callee == abi::kBatchMatmulPackedF32 ||
         callee == abi::kCheckIndicesI32 || callee == abi::kCheckIndicesI64 ||
         callee == abi::kCheckSizes || isNonZeroCall(callee) ||
         callee.starts_with(abi::kScatter) ||
         callee.starts_with(abi::kArgsort) ||
         callee.starts_with(abi::kCumulative) || callee == abi::kConvolutionF32;
}

/// Marks a memref.global that only the initializer writes: a constant of
/// every run, as a `constant` global is.
inline constexpr const char *kLoadTimeConstantAttr =
    "anyshape.load_time_constant";

/// Stands for the running execution's team size (`() -> i64`), which
/// picks a row-reduction kernel's schedule, until
/// anyshape-execution-context reads it from the context instead.
inline constexpr const char *kTeamSizeFunction = "anyshapeTeamSize";

/// Marks the functions that take the execution context
/// (runtime/ExecutionContext.h) as their first argument: @main and the
/// kernels (anyshape-execution-context).
inline constexpr const char *kExecutionContextAttr = "anyshape.context";

/// Marks a kernel function (anyshape-outline-kernels), naming its fusion's
/// kind: what merging, the execution context and object code look for.
inline constexpr const char *kKernelAttr = "dhlo.kernel";

/// Marks the scf.parallel of anyshape-stitch-rows: every dim is a row dim,
/// so its parallel version keeps them all parallel.
inline constexpr const char *kStitchedLoopAttr = "anyshape.stitched";

} // namespace anyshape::codegen

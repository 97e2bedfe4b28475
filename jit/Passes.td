//===- Passes.td - CPU backend passes ----------------------*- tablegen -*-===//
//
// Passes of the CPU backend proper (after bufferization); flags prefixed
// `anyshape-`.
//
//===----------------------------------------------------------------------===//

#ifndef ANYSHAPE_JIT_PASSES
#define ANYSHAPE_JIT_PASSES

include "mlir/Pass/PassBase.td"

def BatchMatmulToRuntimeCall
    : Pass<"anyshape-batch-matmul-to-runtime-call", "mlir::ModuleOp"> {
  let summary = "Call the GEMM library for f32 linalg.batch_matmul on buffers";
  let description = [{
    Replaces each f32 `linalg.batch_matmul` on memrefs with a call of
    `anyshapeBatchMatmulF32` (runtime/Gemm.h) on strided views of the same
    buffers, through MLIR's C interface. The runtime binds the symbol as an
    absolute address when the executable is JITed.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def MathApproximation : Pass<"anyshape-math-approximation"> {
  let summary = "Inline polynomial approximations of transcendentals";
  let description = [{
    Rewrites exp, log, tanh, erf, sin, cos, rsqrt and friends on f32 into
    MLIR's polynomial approximations: plain arithmetic the loop vectoriser
    can widen, where a libm call (tanhf: 1 GB/s, erff: 3 GB/s measured
    here) would keep a fused kernel far from memory bandwidth. Accuracy is
    tested against the reference evaluator (tests/jit/OpCoverageTest.cpp).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::x86vector::X86VectorDialect"];
}

#endif // ANYSHAPE_JIT_PASSES

//===- Passes.td - CPU codegen passes ------------------*- tablegen -*-===//
//
// The CPU's own codegen passes, alphabetical; flags prefixed `anyshape-`:
// library calls, schedules and versions, vectorisation, CPU math, and how
// a launch runs on the CPU. Target facts come from CpuTarget.h. One file
// each.
//
//===----------------------------------------------------------------------===//

#ifndef ANYSHAPE_CODEGEN_CPU_PASSES
#define ANYSHAPE_CODEGEN_CPU_PASSES

include "mlir/Pass/PassBase.td"

def MathApproximation : Pass<"anyshape-math-approximation"> {
  let summary = "Inline polynomial approximations of transcendentals";
  let description = [{
    Rewrites exp, log, tanh, erf, sin, cos and friends on f32 into
    MLIR's polynomial approximations (erf into one rational function of
    ours, without MLIR's per-element choice among three): plain
    arithmetic the loop vectoriser can widen, where a libm call (tanhf:
    1 GB/s, erff: 3 GB/s measured here) would keep a fused kernel far
    from memory bandwidth. Accuracy is tested against the reference
    evaluator (tests/jit/OpCoverageTest.cpp).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::x86vector::X86VectorDialect"];
}

def MinMaxReductions
    : Pass<"anyshape-min-max-reductions", "mlir::func::FuncOp"> {
  let summary = "Float max/min reductions as LLVM's NaN-propagating "
                "maximum/minimum intrinsics";
  let description = [{
    In every `linalg.generic` with a reduction dim, an `arith.maximumf` or
    `arith.minimumf` that combines into an output's running value becomes
    `llvm.intr.maximum` / `llvm.intr.minimum` (same semantics: NaN wins,
    +0 > -0). arith-expand would otherwise turn it into compares and
    selects, which LLVM's loop vectoriser does not recognise as a
    reduction; with the intrinsic, and the vectorisation hint that
    `codegen/CPU/LoopHints.h` puts on the loops holding it, a row max runs 16
    lanes at a time on AVX-512.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def SpeculateKernels : Pass<"anyshape-speculate-kernels", "mlir::ModuleOp"> {
  let summary = "Give each kernel up to 4 versions, chosen per run by cheap "
                "checks";
  let description = [{
    Every outermost `scf.parallel` without reductions is a kernel. This
    pass versions it on three questions, each answered once per run by a
    compare on sizes the host already holds:
      - implicit broadcast: a broadcast dim that may or may not stretch is
        read through `select(size == 1, 0, i)` (ShapeOpsToLinalg). When
        no such size is 1, a version with every such select replaced by
        `i` runs instead: plain strided loads the vectoriser can widen.
        Tag `no-stretch` / `stretch`;
      - amount of work: `work >= min-work` runs the parallel version (the
        outer dims and chunks of `chunk` iterations of the innermost dim
        over the OpenMP team, each chunk a serial vectorisable loop, so a
        `[1, N]` kernel uses every thread; every dim parallel in a loop
        marked `anyshape.stitched`),
        otherwise a serial `scf.for` nest that never wakes the team, so
        small shapes (a sequence of 1) stay as fast as a serial compile.
        `work` is the product of the parallel trip counts (rows) times the
        row work: the sum of the trip counts of the `scf.for` loops
        directly inside whose bounds are known before it, each times the
        row work of its own body. Tag `parallel` / `serial`;
      - row-reduction schedule, for a parallel kernel whose body holds
        only row loops, at least one a reduction folded by one
        associative op (codegen/CPU/SplitRowSchedule.h): with fewer rows than
        threads (`anyshapeTeamSize()`, declared by this pass) and row work
        of at least `split-row-min-work`, the rows run one after another,
        each shared among the threads in chunks, reductions through
        partial results (a middle-dim reduction's reduced dim in blocks
        with private partials, as a column reduction's rows below).
        Tag `split-row`.
    A whole 1-D reduction (a top-level `scf.for` folding one accumulator)
    is a kernel of one row: `split-row` or `serial`. A column reduction
    (an `scf.for` over rows whose body is a parallel loop over columns that
    share no element, codegen/CPU/ColumnSchedule.h) is one kernel with that loop:
    its parallel version gives each thread a block of rows folded into
    private partials (when the columns accumulate with one fold and the
    partials have at most `max-column-partials` elements), otherwise
    shares chunks of columns among the threads, each running every row
    (tags `row-blocks`, `column-chunks`, `serial`). A kernel with
    implicit-broadcast versions has 4 and gets no split-row one, so every
    kernel has at most 4 versions, as the fusion plan's tags say.
    `scf.parallel` loops nested in another become `scf.for` nests first
    (each thread runs them serially).
  }];
  let options = [Option<"minWork", "min-work", "int64_t", "32768",
                        "iterations below which a loop runs serially">,
                 Option<"chunk", "chunk", "int64_t", "4096",
                        "iterations of the innermost dim per parallel "
                        "iteration">,
                 Option<"splitRowMinWork", "split-row-min-work", "int64_t",
                        "131072",
                        "row work from which rows fewer than the threads "
                        "are each shared among the threads">,
                 Option<"maxColumnPartials", "max-column-partials",
                        "int64_t", "16777216",
                        "elements of a column reduction's per-thread "
                        "partials above which its threads share column "
                        "chunks instead">];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def SplitVectorRemainders
    : Pass<"anyshape-split-vector-remainders", "mlir::func::FuncOp"> {
  let summary = "Split innermost loops at a multiple of the vector step";
  let description = [{
    Every innermost `scf.for` with step 1 whose trip count may not be a
    multiple of `step` (CpuTarget::rowLoopStep, 64 on AVX-512) becomes two
    loops over the same body: `lower` to `lower + step * (trips / step)`,
    then `k` over `0 .. trips % step` at that point plus `k`, carrying
    iteration arguments from the first into the second. LLVM vectorises
    the first (16 lanes x 4 interleaved on AVX-512); `LoopHints.h` has
    the second vectorised with its tail folded into masked vectors, so no
    element runs in scalar code (a softmax row of 1023 elements ran its
    last 63 exps one at a time). This is the vector-width divisibility
    speculation, decided per loop by the trip count at run time.
  }];
  let options = [Option<"step", "step", "int64_t", "64",
                        "f32 elements per vector iteration of a row loop">];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def PackConstantWeights
    : Pass<"anyshape-pack-constant-weights", "mlir::ModuleOp"> {
  let summary = "GEMMs on a constant weight run from a pack made once";
  let description = [{
    Each call of `anyshapeBatchMatmulF32` whose B is a view of a constant
    of the executable (a constant `memref.global`, or a load-time one
    marked `anyshape.load_time_constant`) becomes a call of
    `anyshapeBatchMatmulPackedF32` (runtime/PackedGemm.h) with one more
    operand: a slot, a private zero-initialised `memref<1xi64>` global, one
    per weight view, where the first run keeps the weight packed for the
    library. Its `memref.get_global` sits in the host flow, before the
    fusion, so the slot reaches the kernel as an operand as the weight does
    and stacked layers' kernels stay identical. `anyshape_finalize`
    (created if absent) releases each slot's pack when the object is
    unloaded. Other GEMMs are left alone.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TransposeWideWeights
    : Pass<"anyshape-transpose-wide-weights", "mlir::func::FuncOp"> {
  let summary = "Store a wide constant GEMM weight transposed";
  let description = [{
    For an f32 `dhlo.dot_general` whose right operand is a 2-D constant
    weight [K, N] contracted on its first dim with N > K (a BERT FFN's
    [768, 3072]), stores the weight as [N, K] and contracts its second
    dim instead. The product is the same; the GEMM library then reads the
    weight as a transposed view (batch_matmul_transpose_b), which oneDNN
    2.6's AVX2 GEMM runs up to 2.4x faster for such weights at small M
    (docs/benchmarks.md). A dense `dhlo.constant` is transposed here; a
    `dhlo.seeded_uniform` is marked `transposed` and generated so at load.
    A constant other ops also read keeps its own copy for them. Run by
    the CPU pipeline where CpuTarget::transposeWideWeights says so.
  }];
  let dependentDialects = ["::anyshape::dhlo::DhloDialect"];
}

#endif // ANYSHAPE_CODEGEN_CPU_PASSES

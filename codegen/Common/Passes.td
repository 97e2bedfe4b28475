//===- Passes.td - target-neutral codegen passes -------*- tablegen -*-===//
//
// The target-neutral codegen passes, alphabetical; flags prefixed
// `anyshape-`. They form kernels from the fusion plan, outline them, and
// build the host flow around them (shape checks, buffers, the execution
// context); every target's pipeline runs them. The description of each
// says where it runs. One file each.
//
//===----------------------------------------------------------------------===//

#ifndef ANYSHAPE_CODEGEN_COMMON_PASSES
#define ANYSHAPE_CODEGEN_COMMON_PASSES

include "mlir/Pass/PassBase.td"

def CheckKernelFusions
    : Pass<"anyshape-check-kernel-fusions", "mlir::func::FuncOp"> {
  let summary = "Check that each fusion of the plan is one kernel";
  let description = [{
    Run on buffers, once kernels are formed (after
    `anyshape-reuse-reduced-values`): a kernel is a top-level linalg op, a
    stitched row loop, a copy or a library call, of a `dhlo.fusion` body or
    of the function. A departure from the plan is a fusion built as
    several kernels (accumulator fills, the operand layout copies a
    library call needs, a concatenate's copies of its operands, and the
    cast narrowing a column reduction's wider accumulator count with the
    kernel they belong to), or a kernel outside every fusion other than a
    fill or copy (ops the plan has their users recompute, left whole).
    With `print`, lists every kernel with its fusion and the departures.
    Otherwise every departure is an error (codegen builds exactly the
    plan's kernels), or with `allow-departures` a warning: the kernels are
    still right, one fusion built as two only costs a pass over memory,
    and a model that compiles slower beats one that does not. Every
    fused compile runs it; the CPU pipeline allows departures unless
    ANYSHAPE_STRICT_FUSION_PLAN is set (scripts/test sets it).
  }];
  let options = [Option<"print", "print", "bool", "false",
                        "List kernels and departures instead of failing">,
                 Option<"allowDepartures", "allow-departures", "bool",
                        "false", "Warn of each departure instead of failing">];
}

def ContextAllocation
    : Pass<"anyshape-context-allocation", "mlir::ModuleOp"> {
  let summary = "Allocate buffers through the execution context";
  let description = [{
    On the LLVM dialect, after the memref and func lowerings: in every
    function with `anyshape.context`, calls of MLIR's generic allocation
    functions (`_mlir_memref_to_llvm_alloc`, `_aligned_alloc`, `_free`)
    become calls of `anyshapeContextAlloc(context, alignment, size)` and
    `anyshapeContextFree(context, pointer)`, which use the run's allocator.
  }];
}

def ConvolutionsToRuntimeCalls
    : Pass<"anyshape-convolutions-to-runtime-calls", "mlir::ModuleOp"> {
  let summary = "Make each convolution_into a call of oneDNN's convolution";
  let description = [{
    Right after bufferization: each `dhlo.convolution_into` becomes a call
    of `anyshapeConvolutionF32` (runtime/Convolution.h) in the host flow,
    with the buffers as unranked views and the geometry (spatial rank,
    groups, then strides, dilations and paddings, three entries each) as
    i64 operands.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def CopyConcatenations
    : Pass<"anyshape-copy-concatenations", "mlir::func::FuncOp"> {
  let summary = "Write chains of insert_slice into a fresh buffer as copies";
  let description = [{
    A concatenate of N operands lowers to a chain of N `tensor.insert_slice`
    ops into one `tensor.empty`. One-Shot Bufferize's analysis walks the
    chain back from every slice it checks, so its time grew as N^3: a
    concatenate of 100 operands spent 1 s there, 400 over 200 s. The chain
    writes disjoint parts of a buffer nobody else sees, so nothing is left
    to analyse: this pass, right before bufferization, allocates that
    buffer, copies each source (a read-only `bufferization.to_memref`, one
    per distinct source) into its subview where its link was, and hands the
    buffer on as a `restrict writable` `bufferization.to_tensor`. The code is what bufferizing the chain in
    place gives (one allocation, one copy per operand), at the same
    locations (the fusion marks). A chain starts at a `tensor.empty` used
    only by it and runs, in one block, while each link is used only by the
    next; a link with other users ends it (a plain tensor from there on).
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ExecutionContext
    : Pass<"anyshape-execution-context", "mlir::ModuleOp"> {
  let summary = "Pass the execution context to the host flow and kernels";
  let description = [{
    After outlining, before a target lowers its launches: `@main` and
    every kernel function take the execution context
    (runtime/ExecutionContext.h) as a leading `!llvm.ptr` argument
    (attribute `anyshape.context`), and every `dhlo.launch` (or call) of a
    kernel passes it on. The team size a schedule is
    chosen by (`anyshapeTeamSize()` until here) is loaded from it, and
    every `omp.parallel` forks that many threads (`num_threads`), so no
    thread state decides how a run is scheduled.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def FreeAtLastUse : Pass<"anyshape-free-at-last-use", "mlir::func::FuncOp"> {
  let summary = "Move each deallocation right after the buffer's last use";
  let description = [{
    MLIR's ownership-based deallocation frees a buffer at the end of the
    block that allocated it, so every intermediate of a graph stays alive
    until the graph returns. This pass moves each `memref.dealloc` to just
    after the last op of its block that uses the buffer or any view of it
    (subviews, reshapes, casts; uses inside nested regions count as their
    ancestor op), so peak memory is the largest set of buffers live at one
    time, and freed blocks go back to the allocator's cache while the run
    continues, for the next intermediate to reuse. A deallocation whose
    buffer is used outside its block is left where it is.
  }];
}

def ShareReadOnlyViews
    : Pass<"anyshape-share-read-only-views", "mlir::func::FuncOp"> {
  let summary = "One view of a constant or input for every GEMM that reads it";
  let description = [{
    Each library fusion reshapes and casts its GEMM operands itself, so a
    weight read by n matrix products is viewed n times. One-shot
    bufferization puts a view in its buffer's alias set, and for every
    view it decides in place it walks that whole set: quadratic in the
    readers of one constant or input (0.5 of the MLIR pipeline's 3 s on a
    chain of 600 products by one weight). Nothing writes a constant or an
    argument of @main, so their views can be shared: this pass replaces a
    `tensor.reshape` (of a `tensor.from_elements` shape of constants, dims
    of function-level tensors or function-level values) or `tensor.cast`
    of one, inside a library fusion, by one function-level view of the same
    buffer, type and shape, built before the first fusion that needs it,
    with a shape tensor of its own. Runs right before bufferization.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def SplitFreshDeallocations
    : Pass<"anyshape-split-fresh-deallocations", "mlir::func::FuncOp"> {
  let summary = "Give each fresh buffer that aliases nothing its own dealloc";
  let description = [{
    Ownership-based deallocation ends a block with one `bufferization.dealloc`
    of every buffer the block owns, and MLIR's
    `buffer-deallocation-simplification` then asks, for each buffer, whether
    it may alias each other one: quadratic in the buffers of a block (1.1 s
    of a chain of 600 matrix products' compile). Most of them are fresh
    allocations that provably alias nothing else in the list, so this pass
    runs first and splits each such buffer into a dealloc of its own,
    without retained values, in time linear in the list: a buffer is split
    when it is a `memref.alloc` or `memref.alloca` result that is the root
    allocation of no other buffer in the list and of no retained value, and
    every root is a fresh allocation or an argument of the function (any
    other root, which could alias anything, splits nothing). The dealloc's
    results, the ownership of the retained values, do not change: a buffer
    that aliases no retained value contributes nothing to them.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def FreshOutputs : Pass<"anyshape-fresh-outputs", "mlir::func::FuncOp"> {
  let summary = "Copy only the outputs that would not be fresh buffers";
  let description = [{
    The entry ABI hands every output buffer to the caller, who frees it, so
    an output must never alias an input, a constant or another output.
    Before bufferization, this pass leaves a returned tensor alone when it
    is computed into a `tensor.empty` (directly or through a chain of
    destination-style inits): bufferization allocates it and the kernel
    writes the output in place. Any other returned value (an argument, a
    constant, a view, a value returned twice) is copied into a fresh
    `bufferization.alloc_tensor`. Writing outputs once instead of writing
    and copying them halves the output traffic of memory-bound graphs.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def FuseSharedProducers
    : Pass<"anyshape-fuse-shared-producers", "mlir::func::FuncOp"> {
  let summary = "Fuse elementwise producers into all of their consumers";
  let description = [{
    `linalg-fuse-elementwise-ops` fuses a producer only into its single
    consumer. This pass also fuses producers with several uses when every
    use is a `linalg.generic`, duplicating the producer's arithmetic into
    each so that it disappears and its tensor is never written to memory:
    softmax's `exp(x - max)` feeds both the row sum and the division, and
    recomputing it is cheaper than a round trip through memory. Producers
    whose body has grown past 48 ops are not duplicated, which bounds the
    growth of chains where every value has several consumers. A producer
    in a `dhlo.fusion` (`dhlo-form-fusions`) is fused only into consumers
    of that fusion, and not at all when the fusion yields it (another
    kernel reads it from memory); one outside every fusion (which the plan
    has each consumer recompute) into any consumer.

    With `move-reshapes`, it also does the rest of what
    `linalg-fuse-elementwise-ops` does (which it replaces, since that
    pass fuses any single-use producer, whatever the plan says): reshapes
    move through generics by expanding them, and linalg's canonicalization
    and constant folding run in the same rewrite. A collapse of a
    producer outside every fusion is first copied for each of its users,
    since only a collapse with one use moves into its reader.
  }];
  let options = [
    Option<"moveReshapes", "move-reshapes", "bool", "false",
           "Also fold reshapes into generics by expansion, canonicalize "
           "and fold constants, as linalg-fuse-elementwise-ops does">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::affine::AffineDialect"];
}

def HoistKernelBuffers
    : Pass<"anyshape-hoist-kernel-buffers", "mlir::func::FuncOp"> {
  let summary = "Move the buffers each fusion writes out to the host flow";
  let description = [{
    Right after bufferization, before deallocation: every `memref.alloc` in
    a `dhlo.fusion`, and every value it yields, moves in front of it with
    the pure ops (index arithmetic, dims, views) it is computed from; the
    fusion's results are replaced by those values and the fusion keeps no
    results. A `memref.reshape` in it (a GEMM operand made 3-D) moves out
    too, with the stores that write its shape, where its source allows:
    the host writes shapes, the kernel gets views. A fusion left empty (a
    reshape, now a view) is erased. From here on a kernel allocates nothing: buffer allocation
    and freeing are the host flow's, and deallocation places frees around
    the fusions as it would around any op.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def IndexChecksToRuntimeCalls
    : Pass<"anyshape-index-checks-to-runtime-calls", "mlir::ModuleOp"> {
  let summary = "Make each bufferized dhlo.check_index a runtime call";
  let description = [{
    Right after bufferization: each `dhlo.check_index` on buffers becomes a
    call of `anyshapeCheckIndicesI32` or `anyshapeCheckIndicesI64`
    (runtime/IndexChecks.h) in the host flow, with the indices as an
    unranked view, the range [low, high) (high the checked dim of the
    operand's buffer; low -high or 0) and the wire node's position, which
    the executable's error names.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def SizeChecksToRuntimeCalls
    : Pass<"anyshape-size-checks-to-runtime-calls", "mlir::ModuleOp"> {
  let summary = "Make each dhlo.check_sizes a runtime call";
  let description = [{
    Each `dhlo.check_sizes` (a rule on a nonzero's count) becomes, where it
    stands in the host flow, its condition evaluated on i64 and a call of
    `anyshapeCheckSizes(failed, check, a, b)` (runtime/SizeChecks.h),
    which stops the run when `failed` is set.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

def NonZeroToRuntimeCalls
    : Pass<"anyshape-nonzero-to-runtime-calls", "mlir::ModuleOp"> {
  let summary = "Make what a nonzero bufferized to runtime calls";
  let description = [{
    Right after bufferization: each `dhlo.count_nonzero` becomes a call of
    `anyshapeCountNonZero_<T>` (its i64 result the count that sizes the
    nonzero's result), and each `dhlo.nonzero_indices` a call of
    `anyshapeNonZeroIndices_<T>` (runtime/NonZero.h), in the host flow,
    with the buffers as unranked views and the element kind the runtime
    reads them by. T names the operand's element type.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def MergeIdenticalKernels
    : Pass<"anyshape-merge-identical-kernels", "mlir::ModuleOp"> {
  let summary = "One kernel function for every set of identical kernels";
  let description = [{
    Right after anyshape-outline-kernels: kernels whose functions are
    identical but for their names and locations (same type, attributes and
    body) become one, and every launch of the others launches it. Stacked
    layers of a model outline the same kernels once per layer (a 12-layer
    BERT encoder: 193 kernels, 10 distinct); each distinct one is then
    lowered, optimised and emitted once. Kernels are bucketed by a
    structural hash and compared exactly within a bucket, so the pass is
    linear in the module.
  }];
}

def OutlineKernels : Pass<"anyshape-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Each fusion a kernel function, launched from the host flow";
  let description = [{
    After the kernel-level passes (checking, stitching, speculation,
    OpenMP): each `dhlo.fusion`, which has no results by then
    (anyshape-hoist-kernel-buffers), becomes a private `func.func
    @<function>_kernel<id>` (attribute `dhlo.kernel` = its kind) holding
    its body, and a `dhlo.launch` of it in its place. What the body read
    from the host flow (buffers, sizes) is passed, in order of first use;
    constants are cloned into the kernel. What remains of the function is
    its host flow: shape computation, run-time checks, buffer allocation
    and freeing, library calls and launches.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def PrepareEntryAbi : Pass<"anyshape-prepare-entry-abi", "mlir::ModuleOp"> {
  let summary = "@main's calling convention: read-only inputs, C interface";
  let description = [{
    Marks every argument of `@main` `bufferization.writable = false` (the
    caller's inputs are never written) and asks for its C interface
    wrapper, which the entry calls (ObjectCode.h). That every output is a
    fresh allocation the caller frees is `anyshape-fresh-outputs`' job.
  }];
}

def PromoteAccumulators
    : Pass<"anyshape-promote-accumulators", "mlir::func::FuncOp"> {
  let summary = "Carry reduction accumulators through scf.for iter_args "
                "instead of memory";
  let description = [{
    For each `scf.for` whose body loads and later stores the same element
    of a fresh allocation at loop-invariant indices, with no other access
    to that allocation in the loop, the element is loaded once before the
    loop, carried as an iteration argument and stored once after it.
    Distinct allocations never alias, which the pass knows and LLVM, in
    OpenMP-outlined kernels, does not: without this a row reduction that
    also writes another buffer is not vectorised on the CPU. On the GPU
    the accumulator is a register instead of a global-memory round trip
    per element, and the reduction has the form a block or warp schedule
    splits (codegen/CUDA).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def ReuseReducedValues
    : Pass<"anyshape-reuse-reduced-values", "mlir::func::FuncOp"> {
  let summary = "In a stitched row, compute once a value that a reduction "
                "combines and a later elementwise op recomputes";
  let description = [{
    Inside the loops of `anyshape-stitch-rows`: when an elementwise
    `linalg.generic` recomputes the value that an earlier row reduction
    combines into its accumulator (softmax's `exp(x - max)`, summed, then
    divided by the sum), the reduction also writes the value into the
    elementwise op's output row and the elementwise op reads it back as its
    output's current value, from the L1 cache. Softmax then evaluates one
    exp polynomial per element instead of two. Legal when the two ops
    range over the same row element for element (a shared input read with
    the identity map), the value is the same computation on the same inputs
    through the same maps, and nothing between them touches the output.
    A member that recomputes a row an earlier member stored reads it back
    instead, and reading a row counts as the same input as another
    member's read of its output's old value in that row: attention's
    softmax, whose max stores x * c + mask first, then also evaluates one
    exp per element. Run CSE first, so that identical row views are one
    value.
  }];
}

def ScatterToRuntimeCalls
    : Pass<"anyshape-scatter-to-runtime-calls", "mlir::ModuleOp"> {
  let summary = "Make each scatter_into a runtime call";
  let description = [{
    Right after bufferization: each `dhlo.scatter_into` becomes a call of
    `anyshapeScatter_<T>_<I>` (runtime/Scatter.h) in the host flow, with
    the buffers as unranked views and codes for the element type, the
    index width and the reduction. T and I name the element and index
    types.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ArgsortToRuntimeCalls
    : Pass<"anyshape-argsort-to-runtime-calls", "mlir::ModuleOp"> {
  let summary = "Make each argsort_into a runtime call";
  let description = [{
    Right after bufferization: each `dhlo.argsort_into` becomes a call of
    `anyshapeArgsort_<T>` (runtime/Argsort.h) in the host flow, with the
    buffers as unranked views, a code for the element type, the axis and
    the direction. T names the element type.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def CumulativeToRuntimeCalls
    : Pass<"anyshape-cumulative-to-runtime-calls", "mlir::ModuleOp"> {
  let summary = "Make each cumulative_into a runtime call";
  let description = [{
    Right after bufferization: each `dhlo.cumulative_into` becomes a call
    of `anyshapeCumulative_<T>` (runtime/Cumulative.h) in the host flow,
    with the buffers as unranked views and codes for the element type, the
    axis, the fold (the wire ReduceKind's number) and the flags (1
    exclusive, 2 reverse). T names the element type.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def SeededConstantsAtLoad
    : Pass<"anyshape-seeded-constants-at-load", "mlir::ModuleOp"> {
  let summary = "Generate large seeded constants when the executable loads";
  let description = [{
    Runs on dhlo, before the conversion to linalg. Replaces each
    `dhlo.seeded_uniform` with a read-only tensor view
    (`bufferization.to_tensor restrict`) of an uninitialised public
    `memref.global`, and defines `@anyshape_initialize`, which fills every
    such global through `anyshapeFillSeededUniform` (the reference
    evaluator's generator). The loader calls it once, before any run
    (LoadedObject.h); the function exists, empty, in every module.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ShapeCheckFunction
    : Pass<"anyshape-shape-check-function", "mlir::ModuleOp"> {
  let summary = "The run-time shape checks the importer recorded, as code";
  let description = [{
    The first pass: turns the module's `dhlo.shape_checks` (what validation
    left to run time, written by the importer:
    ir/dhlo/IR/ShapeCheckAttr.h) into `@anyshape_check_shapes`, which the
    entry calls before `@main` (codegen/Common/ShapeCheckFunction.h), and drops the
    attribute. A module without it (not imported from a graph) is left as
    it is.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def StitchRows : Pass<"anyshape-stitch-rows", "mlir::func::FuncOp"> {
  let summary = "Run a row reduction and its consumers row by row, in one "
                "parallel loop";
  let description = [{
    The kStitch (and kInput) kernels of the fusion plan, on buffers. A run
    of consecutive linalg ops over the same rows, with a reduction among
    them, becomes one `scf.parallel` over the rows (its leading parallel
    dims, proven equal through the canonical size values) whose body runs
    every op on one row, in order: softmax reads a row, takes its max, sums
    the exponentials and writes the quotients while the row is in the L1
    cache, instead of three passes over memory. Legal when every buffer a
    member writes is accessed only at the current row (so rows are
    independent), and when a member loads from a buffer inside its body
    (a gather's table, a pad's operand), no member writes that buffer. The
    members are ops of one `dhlo.fusion` (one kernel of the plan): the pass
    stitches within each fusion's body. The loop is marked
    `anyshape.stitched`. It replaces the last member; ops between members
    that none of them needs move after it.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

def UnshareInits : Pass<"anyshape-unshare-inits", "mlir::func::FuncOp"> {
  let summary = "Give every op a destination tensor of its own";
  let description = [{
    CSE merges identical `tensor.empty`s, and identical `linalg.fill`s of
    them (the zero accumulators of row sums, the zero C of matmuls), so
    one tensor becomes the destination of several ops. Bufferization then
    fills one buffer and copies it for every destination (an extra pass
    over memory each, and a `memref.copy` that keeps a row reduction from
    being stitched with its fill), or writes a later op in place over an
    earlier op's result that it reads elementwise, which is legal alone
    but may be a buffer a gather of the same stitch loads at other rows.
    This pass clones the fill (with its empty tensor) for each user, then
    each shared empty tensor likewise, right before the user: in the
    user's kernel. Runs before bufferization.
  }];
}

def UnshareReshapeShapes
    : Pass<"anyshape-unshare-reshape-shapes", "mlir::func::FuncOp"> {
  let summary = "Give every tensor.reshape a shape tensor of its own";
  let description = [{
    MLIR 19's bufferization treats a `tensor.reshape`'s result as aliasing
    all of its operands, its shape tensor included. After CSE, the
    reshapes of several matmul results share one `tensor.from_elements`
    shape, so each result appears to alias the others and bufferization
    copies the destination of every GEMM but the first (a zero-filled C
    copied into a second buffer, for each GEMM). Giving each reshape its
    own `tensor.from_elements` shape, right before it, removes the false
    aliasing. A constant shape (a static compile's) is rebuilt as one too:
    as a constant it would bufferize to a read-only global, and a GEMM
    result reshaped with it would be computed into a copy. Runs before
    bufferization.
  }];
}

def BatchMatmulToRuntimeCall
    : Pass<"anyshape-batch-matmul-to-runtime-call", "mlir::ModuleOp"> {
  let summary = "Call the GEMM library for f32 linalg.batch_matmul on buffers";
  let description = [{
    Replaces each f32 `linalg.batch_matmul` (and `_transpose_a`/`_b`) on
    memrefs with a call of `anyshapeBatchMatmulF32` (runtime/Gemm.h) on
    strided views of the same buffers, a transposed operand as a
    `memref.transpose` view, through MLIR's C interface. The runtime binds the symbol as an
    absolute address when the executable is JITed. Contract: the runtime
    computes C = A x B, while `linalg.batch_matmul` accumulates into C; the
    two agree because the only producer of batch_matmuls in the pipeline
    (`dhlo-convert-to-linalg`, dot_general) zero-fills C just before.
    Running this pass on batch_matmuls that accumulate into live data
    would be wrong. The zero fill of a freshly allocated C that nothing
    else reads before the GEMM is erased: the runtime overwrites C.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}


def LaunchesToCalls
    : Pass<"anyshape-launches-to-calls", "mlir::ModuleOp"> {
  let summary = "A kernel launch on the CPU is a call of the kernel";
  let description = [{
    The CPU lowering of `dhlo.launch`: a `func.call` of the kernel
    function, on the calling thread (a parallel kernel forks the OpenMP
    team inside itself).
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // ANYSHAPE_CODEGEN_COMMON_PASSES

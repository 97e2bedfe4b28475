//===- Passes.td - CUDA codegen passes -----------------*- tablegen -*-===//
//
// The CUDA target's own codegen passes, alphabetical; flags prefixed
// `anyshape-`: how a fusion's loops map onto a grid of thread blocks, and
// how those launches run on the CPU when no GPU is at hand. Target facts
// come from CudaTarget.h. One file each.
//
//===----------------------------------------------------------------------===//

#ifndef ANYSHAPE_CODEGEN_CUDA_PASSES
#define ANYSHAPE_CODEGEN_CUDA_PASSES

include "mlir/Pass/PassBase.td"

def AlignVectorAccesses
    : Pass<"anyshape-align-vector-accesses", "mlir::gpu::GPUModuleOp"> {
  let summary = "A kernel's vector loads and stores aligned to their size";
  let description = [{
    Runs on the kernels in the LLVM dialect. Every 1-D vector `llvm.load`
    and `llvm.store` gets the alignment of its own size: the kernels'
    only vector accesses are the 4-wide versions' (VectorAccesses.h),
    which run only when the host found each aligned so, and without it
    NVPTX splits a 128-bit access into four.
  }];
}

def CheckDeviceOps
    : Pass<"anyshape-check-device-ops", "mlir::gpu::GPUModuleOp"> {
  let summary = "Refuse a kernel holding an op no device code has";
  let description = [{
    Runs on the outlined kernels first. A copy between buffers, an
    allocation or a call has no device lowering: lowered, it becomes a
    call of host code (the CPU runtime's `memrefCopy`, `malloc`) whose
    declaration the lowering puts in the host module, which kernels
    lowered in parallel race on (a crash, not an error). Such an op fails
    the compile here, naming it and its kernel. Codegen puts none there
    (anyshape-copies-as-loops makes a fusion's copies loops).
  }];
}

def CopiesAsLoops : Pass<"anyshape-copies-as-loops", "mlir::func::FuncOp"> {
  let summary = "A fusion's buffer copies as linalg.copy, so as loops";
  let description = [{
    Inside a fusion a `memref.copy` (a concatenate's parts, a reshape of
    a strided view, a slice kept) is data a kernel moves, not a host
    copy: it becomes `linalg.copy`, which turns into a parallel loop like
    every other kernel and so into a grid. Left a copy, it would run in
    one GPU thread, and a strided one has no device lowering at all (the
    CPU runtime's `memrefCopy`). Copies outside fusions stay: the host
    flow's, made device copies by anyshape-host-buffers.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def DeviceConstants : Pass<"anyshape-device-constants", "mlir::ModuleOp"> {
  let summary = "The host flow's constants as the runtime's device copies";
  let description = [{
    Runs on the LLVM dialect, after the host lowering. In every function
    that takes the execution context, each `llvm.mlir.addressof` of a
    global (a dense constant, load-time weights: host memory, which a
    kernel cannot read) is replaced by the result of
    `anyshapeCudaConstant(context, index, host address, bytes)`: the
    address of the constant's device copy, which the runtime uploads on
    first use and keeps for the executable's life. Globals are numbered
    in order of first use; the count is the module attribute
    `anyshape.cuda_constants`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def EmulatedKernels : Pass<"anyshape-emulated-kernels", "mlir::ModuleOp"> {
  let summary = "A host function running each outlined kernel's launch";
  let description = [{
    For the tests' fake driver (tests/cuda), which runs a launch by
    calling a CPU version of its kernel: right after outlining, each
    gpu.module's kernel gets a host function
    `@<module>_emulation(kernel arguments..., grid x/y/z, block x/y/z)`
    whose body is a `gpu.launch` of the kernel's body on that grid
    (anyshape-emulate-gpu-launches makes it loops). The kernel arguments
    lower to the same words as the NVVM kernel's parameters, so a launch's
    words are the emulation's arguments. Never part of a served compile.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::gpu::GPUDialect"];
}

def EmulateGpuLaunches
    : Pass<"anyshape-emulate-gpu-launches", "mlir::func::FuncOp"> {
  let summary = "Run each gpu.launch on the CPU: blocks and threads as loops";
  let description = [{
    The CPU lowering of the CUDA kernels, so that their numerics are
    tested where no GPU is: each `gpu.launch` becomes an `scf.parallel`
    over its blocks (which CUDA runs in any order, so in parallel here
    too); a block's body is cut at each top-level collective or barrier
    into phases (as PoCL runs OpenCL work-groups), each phase an `scf.for`
    nest over the block's threads, values crossing phases kept per thread
    in arrays, collectives folded serially between phases, the block's
    shared memory an array of its own. A collective or barrier under
    control flow, a shuffle, or dynamic shared memory is rejected.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect"];
}

def HostBuffers : Pass<"anyshape-host-buffers", "mlir::ModuleOp"> {
  let summary = "The host flow's own buffers on its stack; the rest device memory";
  let description = [{
    Runs on the host flow once the kernels are outlined (gpu.launch_func).
    Every buffer the host flow allocates lives in device memory (the
    context's allocator is the device allocator), except the small shape
    buffers the host itself writes and a `memref.reshape` reads: each
    statically sized buffer used only by stores, loads, reshapes' shape
    operands and its dealloc becomes a `memref.alloca` at its function's
    entry. A `memref.copy` into a contiguous buffer (an output that is
    an input, or a slice of another value: a sliding window's cache)
    becomes calls of the runtime's device copy,
    `anyshapeCudaCopy(context, to, from, bytes)`: one per block of the
    source's trailing dims its type proves contiguous, a host loop over
    the others. Then any other host access to a buffer (a load, a store,
    a copy into a strided view) would touch device memory from the CPU,
    and is an error.
    Emulated kernels (anyshape-emulated-kernels) are not host flow.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def LaunchesToRuntimeCalls
    : Pass<"anyshape-launches-to-runtime-calls", "mlir::ModuleOp"> {
  let summary = "gpu.launch_func as calls of the CUDA runtime's launch";
  let description = [{
    Runs after gpu-module-to-binary and anyshape-execution-context. The
    kernel images (the gpu.binary ops) are numbered in module order and
    recorded on the module as `anyshape.cuda_kernels` (name, object and
    the signature anyshape-record-kernel-signatures recorded for each),
    then erased; each `gpu.launch_func` becomes a call of
    `anyshapeCudaLaunch(context, kernel, grid, block, shared bytes,
    slots, count)` with its operands as 8-byte words in a stack array, in
    the order of the NVVM kernel's parameters (LaunchesToRuntimeCalls.cpp
    gives the layout). A launch outside a function with the context, of
    an unknown image, or with an async token, and an image without a
    signature, are errors. The GEMM call
    becomes the runtime's cuBLASLt one (`anyshapeCudaBatchMatmulF32`,
    the same C interface).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LowerSubgroupReduces
    : Pass<"anyshape-lower-subgroup-reduces", "mlir::gpu::GPUModuleOp"> {
  let summary = "Warp reductions as butterfly shuffles";
  let description = [{
    Each `gpu.subgroup_reduce` (the warp-per-row schedule's) becomes
    five `gpu.shuffle xor` steps over a 32-lane warp, MLIR's lowering,
    which convert-gpu-to-nvvm then maps to `shfl.sync`.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def MapKernelsToGpu
    : Pass<"anyshape-map-kernels-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Each fusion's loops as gpu.launch grids";
  let description = [{
    Runs on buffers, after the kernels' linalg ops became loops. Inside
    each `dhlo.fusion`, every top-level `scf.parallel` becomes a
    `gpu.launch` of `block-size` threads per block running a grid-stride
    loop over the loop's flattened iteration space (its last dim fastest,
    so neighbouring threads touch neighbouring elements); the grid is
    what covers the space, at most `max-blocks`. A row kernel (a row
    reduction, or a stitched row: RowSchedule.h) gets two more versions,
    chosen in the host flow per run: one warp per row for rows of at most
    `warp-max-row` elements, one block per row for longer ones; the
    grid-stride version (one row per thread) is kept for no rows and for
    more rows than a grid has blocks. A column kernel (a reduction over a
    dim that is not the last: ColumnSchedule.h) gets tiles of 32 columns
    by 8 row slices with shared-memory partials, for columns of at least
    8 rows. A loop that reads an implicit broadcast (a dim that may be 1 at
    run time, read through `select(size == 1, 0, i)`) is first versioned
    on it, as on the CPU (codegen/Common/ImplicitBroadcast.h): the
    original for runs where some such dim stretches, a copy with the
    selects folded for the runs where none does. Any other loop whose
    loads or stores walk its last dim gets a 4-wide version
    (VectorAccesses.h): each thread handles 4 neighbouring elements with
    one vector access per buffer, taken when the host proves them
    aligned. A run of other ops with
    side effects (a scalar store, a loop that is not parallel) becomes a
    launch of one thread. Ops without memory effects (sizes, views, the
    grid formula) and library calls stay in the host flow. Nested
    parallel loops run sequentially in their thread. A fusion whose
    pieces exchange SSA values runs as one launch of one thread.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block of a parallel loop's launch">,
    Option<"maxBlocks", "max-blocks", "int64_t", /*default=*/"4096",
           "Most blocks a launch takes; beyond, threads stride">,
    Option<"rowSchedule", "row-schedule", "std::string", /*default=*/"\"auto\"",
           "A row kernel's version: auto (chosen per run), thread, warp "
           "or block (forced, for tests)">,
    Option<"columnSchedule", "column-schedule", "std::string",
           /*default=*/"\"auto\"",
           "A column kernel's version: auto (chosen per run), thread or "
           "tile (forced, for tests)">,
    Option<"vectorAccesses", "vector-accesses", "bool", /*default=*/"true",
           "Give loops walking the last dim a 4-wide version (off: only "
           "the scalar one, for tests)">,
    Option<"warpMaxRow", "warp-max-row", "int64_t", /*default=*/"512",
           "Longest row a warp reduces on its own">,
    Option<"warpManyRows", "warp-many-rows", "int64_t", /*default=*/"4096",
           "Rows from which rows of up to twice warp-max-row go one per "
           "warp too">,
    Option<"warpsPerBlock", "warps-per-block", "int64_t", /*default=*/"4",
           "Rows per block of the warp-per-row version">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def PackEmulatedKernels
    : Pass<"anyshape-pack-emulated-kernels", "mlir::ModuleOp"> {
  let summary = "CUDA's kernelParams interface for each emulated kernel";
  let description = [{
    Runs on the LLVM dialect. Each function anyshape-emulated-kernels made
    gets a wrapper `@<module>_emulated(ptr)` taking an array of pointers,
    one per parameter (CUDA's kernelParams, then the grid and block
    sizes), and calling it with the values they point at.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ParallelOutsideReductions
    : Pass<"anyshape-parallel-outside-reductions", "mlir::func::FuncOp"> {
  let summary = "A fusion's reduction loop around a parallel loop, swapped";
  let description = [{
    linalg's loops of a column reduction are `scf.for` over the reduced
    rows around `scf.parallel` over the columns, accumulating in memory;
    a GPU would run that in one thread. When each parallel iteration
    writes only elements of its own (indices invariant in the reduction,
    loads of written buffers at exactly the stored element), the nest is
    swapped, so each column is a reduction loop of its own
    (anyshape-promote-accumulators then carries it in a register) and the
    column schedule can share it. Only a fusion's top-level loops.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def RecordKernelSignatures
    : Pass<"anyshape-record-kernel-signatures", "mlir::ModuleOp"> {
  let summary = "Each kernel's entry, block size and parameter bytes";
  let description = [{
    Runs on the kernels in the LLVM dialect, before gpu-module-to-binary.
    For each gpu.module it records, on the module as
    `anyshape.cuda_kernel_signatures` (keyed by the gpu.module's name),
    the NVVM kernel's entry name, the threads of its block (the product
    of its `nvvm.maxntid`) and each parameter's bytes in CUDA's
    kernelParams, which anyshape-launches-to-runtime-calls joins to the
    kernel images. A module without exactly one kernel, a kernel without
    a block size, or a parameter no launch passes is an error.
  }];
}

#endif // ANYSHAPE_CODEGEN_CUDA_PASSES

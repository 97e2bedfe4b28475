// RUN: %anyshape import %S/../../../../examples/elementwise_reduce.pbtxt > %t.mlir
// RUN: %anyshape-opt %t.mlir -pass-pipeline='builtin.module(anyshape-cuda-pipeline{chip=sm_90})' -mlir-disable-threading -mlir-print-ir-before=anyshape-execution-context -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: %anyshape-opt %t.mlir -pass-pipeline='builtin.module(anyshape-cuda-pipeline{chip=sm_90})' | FileCheck %s --check-prefix=HOST
// RUN: %anyshape-opt %t.mlir -pass-pipeline='builtin.module(anyshape-cuda-pipeline{chip=sm_80})' | FileCheck %s --check-prefix=SM80
// RUN: %anyshape-opt %t.mlir -pass-pipeline='builtin.module(anyshape-cuda-pipeline{emulate=true})' | FileCheck %s --check-prefix=EMU
// RUN: not %anyshape-opt %t.mlir -pass-pipeline='builtin.module(anyshape-cuda-pipeline{chip=sm_50})' 2>&1 | FileCheck %s --check-prefix=BADCHIP
// anyshape-cuda-pipeline reproduces the CUDA compile: the host flow
// launches each fusion's launcher, whose grids are gpu.launch_func ops of
// kernels serialised as PTX for the chip (SM90, before the host flow is
// lowered); then each launch is a call of the CUDA runtime,
// the PTX recorded on the module by launch index, and the host flow in the
// LLVM dialect (HOST). Emulated, it ends in the LLVM dialect on the host,
// as the CPU pipeline does.
// elementwise_reduce's kStitch fusion is the stored row length (one
// thread), then its rows in one of three versions chosen per run: a warp
// per row (128 threads: 4 rows a block), a block per row (256), a row per
// thread (the grid-stride launch).

// SM90: func.func private @main_kernel0
// SM90: gpu.launch_func  @main_kernel0_kernel::@main_kernel0_kernel blocks in (%[[ONE:.*]], %{{.*}}, %{{.*}}) threads in (%[[ONE]],
// SM90: scf.if
// SM90: gpu.launch_func  @main_kernel0_kernel_0::@main_kernel0_kernel {{.*}} threads in (%c128,
// SM90: scf.if
// SM90: gpu.launch_func  @main_kernel0_kernel_1::@main_kernel0_kernel {{.*}} threads in (%c256,
// SM90: %[[ROWS:.*]] = arith.ceildivsi %{{.*}}, %c256
// SM90: %[[CAPPED:.*]] = arith.minsi %[[ROWS]], %c4096
// SM90: %[[GRID:.*]] = arith.maxsi %[[CAPPED]]
// SM90: gpu.launch_func  @main_kernel0_kernel_2::@main_kernel0_kernel blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%c256,
// SM90: gpu.binary @main_kernel0_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, {{.*}}assembly = "{{.*}}.target sm_90
// SM90-SAME: .maxntid 1, 1, 1
// SM90: gpu.binary @main_kernel0_kernel_0 {{.*}}.maxntid 128, 1, 1
// SM90-SAME: shfl.sync.bfly
// SM90: gpu.binary @main_kernel0_kernel_1 {{.*}}.maxntid 256, 1, 1
// SM90-SAME: .shared
// SM90-SAME: bar.sync
// SM90: gpu.binary @main_kernel0_kernel_2 {{.*}}.maxntid 256, 1, 1
// SM90: func.func @main
// SM90: dhlo.launch @main_kernel0

// Each image carries the signature codegen recorded: the block its
// launches use (the PTX's .maxntid) and each parameter's bytes.
// HOST: module @elementwise_reduce attributes {anyshape.cuda_constants = 0 : i64, anyshape.cuda_kernels = [{block_size = 1 : i64, entry = "main_kernel0_kernel", name = "main_kernel0_kernel", object = "
// HOST-SAME: .target sm_90
// HOST-SAME: .maxntid 1, 1, 1
// HOST-SAME: parameter_bytes = array<i32: 8, 8, 8, 8>
// HOST-SAME: block_size = 128 : i64, entry = "main_kernel0_kernel", name = "main_kernel0_kernel_0"
// HOST-SAME: .maxntid 128, 1, 1
// HOST-SAME: name = "main_kernel0_kernel_1"
// HOST-SAME: name = "main_kernel0_kernel_2"
// HOST-NOT: gpu.
// HOST: llvm.func @anyshapeCudaLaunch(!llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i64)
// HOST: llvm.func @main_kernel0(%[[CONTEXT:[a-z0-9]+]]: !llvm.ptr,
// HOST-COUNT-4: llvm.call @anyshapeCudaLaunch(%[[CONTEXT]],
// HOST: llvm.func @main(
// HOST: llvm.call @main_kernel0(

// SM80-COUNT-4: .target sm_80



// EMU-NOT: gpu.
// EMU: llvm.func @main
// EMU: omp.parallel

// BADCHIP: error

// RUN: %anyshape-opt %s -split-input-file -anyshape-launches-to-runtime-calls -verify-diagnostics | FileCheck %s
// anyshape-launches-to-runtime-calls: the kernel images are recorded on
// the module by launch index, each with its recorded signature, and
// erased; each gpu.launch_func becomes
// anyshapeCudaLaunch(context, kernel, grid, block, shared bytes, slots,
// count) with its operands as 8-byte words in a stack array: a memref as
// (aligned, aligned, offset, sizes, strides), an index as i64, an f32's
// bits zero-extended. The CPU's GEMM call becomes the runtime's cuBLASLt
// one.

// CHECK: module attributes {anyshape.cuda_kernels = [{block_size = 128 : i64, entry = "first_kernel", name = "first", object = "ptx one", parameter_bytes = array<i32: 8>}, {block_size = 256 : i64, entry = "second_kernel", name = "second", object = "ptx two", parameter_bytes = array<i32: 8, 8, 8, 8, 8, 8, 4>}]}
// CHECK-NOT: anyshape.cuda_kernel_signatures
// CHECK-NOT: gpu.binary
// CHECK: func.func private @anyshapeCudaBatchMatmulF32(
// CHECK-LABEL: func.func @launcher
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr, %[[X:.*]]: memref<?xf32>, %[[N:.*]]: index, %[[S:.*]]: f32
// CHECK: %[[SLOTS:.*]] = memref.alloca() : memref<7xi64>
// CHECK: %[[BASE:.*]], %[[OFFSET:.*]], %[[SIZE:.*]], %[[STRIDE:.*]] = memref.extract_strided_metadata %[[X]]
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[PW:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK: %[[SIZEW:.*]] = arith.index_cast %[[SIZE]] : index to i64
// CHECK: %[[NW:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[BITS:.*]] = arith.bitcast %[[S]] : f32 to i32
// CHECK: %[[SW:.*]] = arith.extui %[[BITS]] : i32 to i64
// Slots 0-4 the memref's words, 5 the index, 6 the float.
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[PW]], %[[SLOTS]][%[[C0]]]
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: memref.store %[[PW]], %[[SLOTS]][%[[C1]]]
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: memref.store %[[SIZEW]], %[[SLOTS]][%[[C3]]]
// CHECK: %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT: memref.store %[[NW]], %[[SLOTS]][%[[C5]]]
// CHECK: %[[C6:.*]] = arith.constant 6 : index
// CHECK-NEXT: memref.store %[[SW]], %[[SLOTS]][%[[C6]]]
// The second image: kernel 1; no dynamic shared memory; 7 words.
// CHECK: %[[SHARED:.*]] = arith.constant 0 : i64
// CHECK: %[[KERNEL:.*]] = arith.constant 1 : i64
// CHECK: %[[COUNT:.*]] = arith.constant 7 : i64
// CHECK: call @anyshapeCudaLaunch(%[[CTX]], %[[KERNEL]], {{.*}}, %[[SHARED]], %{{.*}}, %[[COUNT]])
// CHECK-NOT: gpu.launch_func
// CHECK: call @anyshapeCudaBatchMatmulF32(
module attributes {gpu.container_module, anyshape.cuda_kernel_signatures = {
    first = {entry = "first_kernel", block_size = 128 : i64, parameter_bytes = array<i32: 8>},
    second = {entry = "second_kernel", block_size = 256 : i64, parameter_bytes = array<i32: 8, 8, 8, 8, 8, 8, 4>}}} {
  gpu.binary @first [#gpu.object<#nvvm.target, "ptx one">]
  gpu.binary @second [#gpu.object<#nvvm.target, "ptx two">]
  func.func private @anyshapeBatchMatmulF32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, !llvm.ptr) attributes {llvm.emit_c_interface}
  func.func @launcher(%ctx: !llvm.ptr, %x: memref<?xf32>, %n: index, %s: f32, %m: memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {anyshape.context} {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @second::@kernel blocks in (%n, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<?xf32>, %n : index, %s : f32)
    call @anyshapeBatchMatmulF32(%m, %m, %m, %ctx) : (memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, !llvm.ptr) -> ()
    return
  }
}

// -----

// A launch needs the execution context of its function.
module attributes {gpu.container_module, anyshape.cuda_kernel_signatures = {
    only = {entry = "only_kernel", block_size = 1 : i64, parameter_bytes = array<i32: 8>}}} {
  gpu.binary @only [#gpu.object<#nvvm.target, "ptx">]
  func.func @no_context(%n: index) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{a launch needs the execution context and a kernel image}}
    gpu.launch_func @only::@kernel blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// An image whose signature codegen did not record.
module attributes {gpu.container_module} {
  // expected-error @+1 {{a kernel image needs exactly one object and a recorded signature}}
  gpu.binary @unsigned [#gpu.object<#nvvm.target, "ptx">]
}

// RUN: %anyshape-opt %s -anyshape-device-constants | FileCheck %s
// anyshape-device-constants: in functions with the execution context, a
// global's address is its device copy's, asked of the runtime by index
// (first use numbers it) with its host address and size; elsewhere (an
// emulated kernel, the initializer) the global is left alone. The module
// records the count and is marked as a CUDA host flow.

// CHECK: module attributes {anyshape.cuda_constants = 2 : i64}
// CHECK: llvm.mlir.global external constant @anyshape_cuda_executable(1 : i8)
// CHECK: llvm.func @anyshapeCudaConstant(!llvm.ptr, i64, !llvm.ptr, i64) -> !llvm.ptr
llvm.mlir.global private constant @weights(dense<1.0> : tensor<768xf32>) : !llvm.array<768 x f32>
llvm.mlir.global private constant @bias(dense<2.0> : tensor<4xf32>) : !llvm.array<4 x f32>

// CHECK-LABEL: llvm.func @host
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr)
// CHECK: %[[W:.*]] = llvm.mlir.addressof @weights
// CHECK: %[[WI:.*]] = llvm.mlir.constant(0 : i64)
// CHECK: %[[WB:.*]] = llvm.mlir.constant(3072 : i64)
// CHECK: %[[WD:.*]] = llvm.call @anyshapeCudaConstant(%[[CTX]], %[[WI]], %[[W]], %[[WB]])
// CHECK: %[[B:.*]] = llvm.mlir.addressof @bias
// CHECK: %[[BI:.*]] = llvm.mlir.constant(1 : i64)
// CHECK: %[[BD:.*]] = llvm.call @anyshapeCudaConstant(%[[CTX]], %[[BI]], %[[B]],
// CHECK: %[[W2:.*]] = llvm.mlir.addressof @weights
// CHECK: llvm.mlir.constant(0 : i64)
// CHECK: %[[WD2:.*]] = llvm.call @anyshapeCudaConstant(%[[CTX]],
// Every use is the device copy's; the host address only feeds the calls.
// CHECK: llvm.insertvalue %[[WD]],
// CHECK: llvm.insertvalue %[[BD]],
// CHECK: llvm.insertvalue %[[WD2]],
llvm.func @host(%ctx: !llvm.ptr) -> !llvm.struct<(ptr, ptr, ptr)> attributes {anyshape.context} {
  %w = llvm.mlir.addressof @weights : !llvm.ptr
  %b = llvm.mlir.addressof @bias : !llvm.ptr
  %w2 = llvm.mlir.addressof @weights : !llvm.ptr
  %u = llvm.mlir.undef : !llvm.struct<(ptr, ptr, ptr)>
  %s0 = llvm.insertvalue %w, %u[0] : !llvm.struct<(ptr, ptr, ptr)>
  %s1 = llvm.insertvalue %b, %s0[1] : !llvm.struct<(ptr, ptr, ptr)>
  %s2 = llvm.insertvalue %w2, %s1[2] : !llvm.struct<(ptr, ptr, ptr)>
  llvm.return %s2 : !llvm.struct<(ptr, ptr, ptr)>
}

// CHECK-LABEL: llvm.func @emulated
// CHECK-NOT: anyshapeCudaConstant
llvm.func @emulated() -> !llvm.ptr {
  %w = llvm.mlir.addressof @weights : !llvm.ptr
  llvm.return %w : !llvm.ptr
}

// RUN: %anyshape-opt %s -split-input-file -anyshape-host-buffers -verify-diagnostics | FileCheck %s
// anyshape-host-buffers: the host flow's shape buffers move to its stack
// (the context's allocator is device memory), a copy between device
// buffers becomes the runtime's device copy, and any other host access
// to a buffer is an error.

// CHECK-LABEL: func.func @shape_buffer
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<2xindex>
// CHECK-NOT: memref.alloc(
// CHECK-NOT: memref.dealloc
// CHECK: memref.reshape
func.func @shape_buffer(%ctx: !llvm.ptr, %x: memref<?xf32>, %n: index) -> memref<?x?xf32> attributes {anyshape.context} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %shape = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  memref.store %n, %shape[%c0] : memref<2xindex>
  memref.store %c1, %shape[%c1] : memref<2xindex>
  %r = memref.reshape %x(%shape) : (memref<?xf32>, memref<2xindex>) -> memref<?x?xf32>
  memref.dealloc %shape : memref<2xindex>
  return %r : memref<?x?xf32>
}

// -----

// An output that is an input: a stream-ordered copy of n * 4 bytes.
// CHECK: func.func private @anyshapeCudaCopy(!llvm.ptr, i64, i64, i64)
// CHECK-LABEL: func.func @copy
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr, %[[X:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?xf32>)
// CHECK: %[[N:.*]] = memref.dim %[[X]]
// CHECK: %[[BYTES:.*]] = arith.muli %{{.*}}, %[[N]]
// CHECK: %[[B:.*]] = arith.index_cast %[[BYTES]] : index to i64
// CHECK: call @anyshapeCudaCopy(%[[CTX]], %{{.*}}, %{{.*}}, %[[B]])
// CHECK-NOT: memref.copy
func.func @copy(%ctx: !llvm.ptr, %x: memref<?xf32>, %y: memref<?xf32>) attributes {anyshape.context} {
  memref.copy %x, %y : memref<?xf32> to memref<?xf32>
  return
}

// -----

// A slice of a cache as an output: the trailing [n, 16] of each of the
// b * 2 leading positions is contiguous, one copy each (a loop nest over
// the leading dims, each block n * 16 * 4 bytes at its own stride).
// CHECK-LABEL: func.func @strided_copy
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr, %[[X:.*]]: memref<?x2x?x16xf32, strided<[?, ?, 16, 1], offset: ?>>
// CHECK: %[[BASE:.*]], %[[OFFSET:.*]], %[[SIZES:.*]]:4, %[[STRIDES:.*]]:4 = memref.extract_strided_metadata %[[X]]
// CHECK: scf.for %[[I:.*]] =
// CHECK: scf.for %[[J:.*]] =
// CHECK: arith.muli %[[STRIDES]]#0
// CHECK: arith.muli %[[STRIDES]]#1
// CHECK: call @anyshapeCudaCopy(%[[CTX]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: memref.copy
func.func @strided_copy(%ctx: !llvm.ptr, %x: memref<?x2x?x16xf32, strided<[?, ?, 16, 1], offset: ?>>, %y: memref<?x2x?x16xf32>) attributes {anyshape.context} {
  memref.copy %x, %y : memref<?x2x?x16xf32, strided<[?, ?, 16, 1], offset: ?>> to memref<?x2x?x16xf32>
  return
}

// -----

// A source whose innermost dim is strided has no contiguous block.
func.func @column_copy(%ctx: !llvm.ptr, %x: memref<?xf32, strided<[?], offset: ?>>, %y: memref<?xf32>) attributes {anyshape.context} {
  // expected-error @+1 {{the host flow would access a device buffer here}}
  memref.copy %x, %y : memref<?xf32, strided<[?], offset: ?>> to memref<?xf32>
  return
}

// -----

// Reading a device buffer on the CPU.
func.func @host_read(%ctx: !llvm.ptr, %x: memref<?xf32>) -> f32 attributes {anyshape.context} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{the host flow would access a device buffer here}}
  %v = memref.load %x[%c0] : memref<?xf32>
  return %v : f32
}

// RUN: %anyshape-opt %s -anyshape-batch-matmul-to-runtime-call | FileCheck %s
// The anyshape-batch-matmul-to-runtime-call pass. Each f32
// linalg.batch_matmul on memrefs becomes a call of the runtime's
// @anyshapeBatchMatmulF32 (runtime/Abi.h kBatchMatmulF32) on its operands
// cast to fully dynamic strided rank-3 memrefs; the one private declaration
// carries llvm.emit_c_interface, so the call lowers to the
// _mlir_ciface_anyshapeBatchMatmulF32 symbol the JIT binds. Batch matmuls
// with a non-f32 operand, or on tensors, stay.

// CHECK: func.func private @anyshapeBatchMatmulF32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>)
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-NOT: func.func private @anyshapeBatchMatmulF32

// CHECK-LABEL: func.func @static_f32
// CHECK-SAME: (%[[A:.*]]: memref<2x3x4xf32>, %[[B:.*]]: memref<2x4x5xf32>, %[[C:.*]]: memref<2x3x5xf32>)
// CHECK-NEXT: %[[CA:.*]] = memref.cast %[[A]] : memref<2x3x4xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT: %[[CB:.*]] = memref.cast %[[B]] : memref<2x4x5xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT: %[[CC:.*]] = memref.cast %[[C]] : memref<2x3x5xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT: call @anyshapeBatchMatmulF32(%[[CA]], %[[CB]], %[[CC]])
// CHECK-NEXT: return
func.func @static_f32(%a: memref<2x3x4xf32>, %b: memref<2x4x5xf32>, %c: memref<2x3x5xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x3x4xf32>, memref<2x4x5xf32>) outs(%c : memref<2x3x5xf32>)
  return
}

// A strided view and two calls share the one declaration.
// CHECK-LABEL: func.func @strided_twice
// CHECK-SAME: (%[[A:.*]]: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %[[B:.*]]: memref<?x?x?xf32>, %[[C:.*]]: memref<?x?x?xf32>)
// CHECK: %[[CA:.*]] = memref.cast %[[A]] : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK: call @anyshapeBatchMatmulF32(%[[CA]], %{{.*}}, %{{.*}})
// CHECK: call @anyshapeBatchMatmulF32(
// CHECK-NOT: linalg.batch_matmul
// CHECK: return
func.func @strided_twice(%a: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)
  linalg.batch_matmul ins(%a, %b : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)
  return
}

// CHECK-LABEL: func.func @f16
// CHECK-NOT: call
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : memref<2x3x4xf16>, memref<2x4x5xf16>) outs(%{{.*}} : memref<2x3x5xf16>)
func.func @f16(%a: memref<2x3x4xf16>, %b: memref<2x4x5xf16>, %c: memref<2x3x5xf16>) {
  linalg.batch_matmul ins(%a, %b : memref<2x3x4xf16>, memref<2x4x5xf16>) outs(%c : memref<2x3x5xf16>)
  return
}

// f16 inputs accumulated into f32: not every operand is f32.
// CHECK-LABEL: func.func @mixed
// CHECK-NOT: call
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : memref<2x3x4xf16>, memref<2x4x5xf16>) outs(%{{.*}} : memref<2x3x5xf32>)
func.func @mixed(%a: memref<2x3x4xf16>, %b: memref<2x4x5xf16>, %c: memref<2x3x5xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x3x4xf16>, memref<2x4x5xf16>) outs(%c : memref<2x3x5xf32>)
  return
}

// CHECK-LABEL: func.func @tensors
// CHECK-NOT: call
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%{{.*}} : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
func.func @tensors(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%c : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// The zero fill of a fresh C is dropped (the runtime overwrites C); a
// non-zero fill, or one whose C is read before the GEMM, stays.
// CHECK-LABEL: func.func @zero_filled_c
// CHECK: %[[C:.*]] = memref.alloc
// CHECK-NOT: linalg.fill
// CHECK: call @anyshapeBatchMatmulF32
// CHECK: %[[D:.*]] = memref.alloc
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[D]]
// CHECK: call @anyshapeBatchMatmulF32
// CHECK: %[[E:.*]] = memref.alloc
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[E]]
// CHECK-NEXT: memref.copy %[[E]]
// CHECK: call @anyshapeBatchMatmulF32
func.func @zero_filled_c(%a: memref<2x3x4xf32>, %b: memref<2x4x5xf32>, %seen: memref<2x3x5xf32>) -> (memref<2x3x5xf32>, memref<2x3x5xf32>, memref<2x3x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c = memref.alloc() : memref<2x3x5xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<2x3x5xf32>)
  linalg.batch_matmul ins(%a, %b : memref<2x3x4xf32>, memref<2x4x5xf32>) outs(%c : memref<2x3x5xf32>)
  %d = memref.alloc() : memref<2x3x5xf32>
  linalg.fill ins(%one : f32) outs(%d : memref<2x3x5xf32>)
  linalg.batch_matmul ins(%a, %b : memref<2x3x4xf32>, memref<2x4x5xf32>) outs(%d : memref<2x3x5xf32>)
  %e = memref.alloc() : memref<2x3x5xf32>
  linalg.fill ins(%zero : f32) outs(%e : memref<2x3x5xf32>)
  memref.copy %e, %seen : memref<2x3x5xf32> to memref<2x3x5xf32>
  linalg.batch_matmul ins(%a, %b : memref<2x3x4xf32>, memref<2x4x5xf32>) outs(%e : memref<2x3x5xf32>)
  return %c, %d, %e : memref<2x3x5xf32>, memref<2x3x5xf32>, memref<2x3x5xf32>
}

// batch_matmul_transpose_b (B as [batch, N, K]: attention's K) passes B
// as a transposed view of the same buffer, no copy; the runtime reads it
// in place (its acb layout).
// CHECK-LABEL: func.func @transpose_b
// CHECK-SAME: (%[[A:.*]]: memref<?x?x?xf32>, %[[B:.*]]: memref<?x?x?xf32>, %[[C:.*]]: memref<?x?x?xf32>)
// CHECK: %[[TB:.*]] = memref.transpose %[[B]] (d0, d1, d2) -> (d0, d2, d1)
// CHECK: %[[CB:.*]] = memref.cast %[[TB]] : memref<?x?x?xf32, strided<[?, 1, ?]>> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK: call @anyshapeBatchMatmulF32(%{{.*}}, %[[CB]], %{{.*}})
// CHECK-NOT: linalg.batch_matmul
func.func @transpose_b(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  linalg.batch_matmul_transpose_b ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)
  return
}

// CHECK-LABEL: func.func @transpose_a
// CHECK-SAME: (%[[A:.*]]: memref<?x?x?xf32>, %[[B:.*]]: memref<?x?x?xf32>, %[[C:.*]]: memref<?x?x?xf32>)
// CHECK: %[[TA:.*]] = memref.transpose %[[A]] (d0, d1, d2) -> (d0, d2, d1)
// CHECK: %[[CA:.*]] = memref.cast %[[TA]]
// CHECK: call @anyshapeBatchMatmulF32(%[[CA]], %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.batch_matmul
func.func @transpose_a(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  linalg.batch_matmul_transpose_a ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)
  return
}

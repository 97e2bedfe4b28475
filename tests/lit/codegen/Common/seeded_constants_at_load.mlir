// RUN: %anyshape-opt %s -split-input-file -anyshape-seeded-constants-at-load | FileCheck %s
// The anyshape-seeded-constants-at-load pass. Each dhlo.seeded_uniform
// becomes a read-only view of an uninitialised public global, and
// @anyshape_initialize fills each global once through the runtime's
// generator with the op's parameters (address, element count, wire dtype,
// seed, low, high); each global is marked anyshape.load_time_constant (a
// constant to every run: anyshape-pack-constant-weights packs GEMM weights
// it reads). A module without one still gets an empty initializer.

// CHECK-LABEL: module @weights
// CHECK: func.func private @anyshapeFillSeededUniform(i64, i64, i32, i64, f64, f64)
// CHECK: func.func @main
// CHECK-NOT: dhlo.seeded_uniform
// CHECK: %[[W:.*]] = memref.get_global @[[G0:anyshape_seeded[_0-9]*]] : memref<64x128xf32>
// CHECK: bufferization.to_tensor %[[W]] restrict : memref<64x128xf32>
// CHECK: %[[H:.*]] = memref.get_global @[[G1:anyshape_seeded[_0-9]*]] : memref<5000xf16>
// CHECK: bufferization.to_tensor %[[H]] restrict : memref<5000xf16>
// CHECK-DAG: memref.global "public" @[[G0]] : memref<64x128xf32> = uninitialized {alignment = 64 : i64, anyshape.load_time_constant}
// CHECK-DAG: memref.global "public" @[[G1]] : memref<5000xf16> = uninitialized {alignment = 64 : i64, anyshape.load_time_constant}
// CHECK: func.func @anyshape_initialize()
// CHECK: %[[B0:.*]] = memref.get_global @[[G0]]
// CHECK: %[[P0:.*]] = memref.extract_aligned_pointer_as_index %[[B0]]
// CHECK: %[[A0:.*]] = arith.index_cast %[[P0]] : index to i64
// CHECK-DAG: %[[N0:.*]] = arith.constant 8192 : i64
// CHECK-DAG: %[[T0:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[S0:.*]] = arith.constant 7 : i64
// CHECK-DAG: %[[L0:.*]] = arith.constant -1.000000e+00 : f64
// CHECK-DAG: %[[U0:.*]] = arith.constant 2.500000e-01 : f64
// CHECK: call @anyshapeFillSeededUniform(%[[A0]], %[[N0]], %[[T0]], %[[S0]], %[[L0]], %[[U0]])
// CHECK: memref.get_global @[[G1]]
// CHECK: call @anyshapeFillSeededUniform
// CHECK: return
module @weights {
  func.func @main(%x: tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<5000xf16>) {
    %w = dhlo.seeded_uniform {seed = 7 : ui64, low = -1.0 : f64, high = 0.25 : f64} : tensor<64x128xf32>
    %y = dhlo.add %x, %w : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
    %h = dhlo.seeded_uniform {seed = 8 : ui64, low = 0.0 : f64, high = 1.0 : f64} : tensor<5000xf16>
    return %y, %h : tensor<64x128xf32>, tensor<5000xf16>
  }
}

// -----

// CHECK-LABEL: module @none
// CHECK-NOT: memref.global
// CHECK: func.func @anyshape_initialize() {
// CHECK-NEXT: return
module @none {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

// -----

// A transposed one ([96, 32], the wire constant [32, 96]) is generated
// through the transposed fill, given the wire shape: rows 32, cols 96.
// CHECK-LABEL: module @transposed
// CHECK: func.func private @anyshapeFillSeededUniformTransposed(i64, i64, i64, i32, i64, f64, f64)
// CHECK: memref.global "public" @[[G:anyshape_seeded[_0-9]*]] : memref<96x32xf32>
// CHECK: func.func @anyshape_initialize()
// CHECK-DAG: %[[R:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[C:.*]] = arith.constant 96 : i64
// CHECK: call @anyshapeFillSeededUniformTransposed(%{{.*}}, %[[R]], %[[C]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
module @transposed {
  func.func @main() -> tensor<96x32xf32> {
    %w = dhlo.seeded_uniform {seed = 7 : ui64, low = -1.0 : f64, high = 0.25 : f64, transposed} : tensor<96x32xf32>
    return %w : tensor<96x32xf32>
  }
}

// RUN: %anyshape-opt %s --anyshape-convolutions-to-runtime-calls -cse | FileCheck %s
// anyshape-convolutions-to-runtime-calls: a convolution_into becomes one
// call of the runtime's oneDNN convolution on unranked views, the geometry
// as i64 operands three entries per attribute (unused ones 1 for strides
// and dilations, 0 for paddings), then the weights' slot: 0 for weights
// that may change, else the address of a global word of the call's own,
// which the finalizer releases.

// CHECK-DAG: memref.global "private" @anyshape_convolution_weights : memref<1xi64> = dense<0> {alignment = 8 : i64}
// CHECK-DAG: func.func private @anyshapeReleaseConvolutionWeights(i64)
// CHECK: func.func private @anyshapeConvolutionF32(memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}

// CHECK-LABEL: func.func @two_d
// CHECK-DAG: %[[X:.*]] = memref.cast %arg0 : memref<?x3x?x?xf32> to memref<*xf32>
// CHECK-DAG: %[[W:.*]] = memref.cast %arg1 : memref<4x3x3x3xf32> to memref<*xf32>
// CHECK-DAG: %[[Y:.*]] = memref.cast %arg2 : memref<?x4x?x?xf32> to memref<*xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK: call @anyshapeConvolutionF32(%[[X]], %[[W]], %[[Y]], %[[C2]], %[[C1]], %[[C2]], %[[C1]], %[[C1]], %[[C1]], %[[C2]], %[[C1]], %[[C1]], %[[C0]], %[[C0]], %[[C0]], %[[C1]], %[[C0]], %[[C0]])
// CHECK-NOT: dhlo.convolution_into
func.func @two_d(%x: memref<?x3x?x?xf32>, %w: memref<4x3x3x3xf32>, %y: memref<?x4x?x?xf32>) {
  dhlo.convolution_into %x, %w, %y {dilations = array<i64: 1, 2>, groups = 1 : i64, padding_high = array<i64: 0, 1>, padding_low = array<i64: 1, 0>, strides = array<i64: 2, 1>} : memref<?x3x?x?xf32>, memref<4x3x3x3xf32>, memref<?x4x?x?xf32>
  return
}

// CHECK-LABEL: func.func @constant_weights
// CHECK: %[[SLOT:.*]] = memref.get_global @anyshape_convolution_weights : memref<1xi64>
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[SLOT]]
// CHECK: %[[A:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK: call @anyshapeConvolutionF32({{.*}}, %[[A]])
memref.global "private" constant @weights : memref<2x2x3xf32> = dense<1.0>
func.func @constant_weights(%x: memref<?x2x?xf32>, %y: memref<?x2x?xf32>) {
  %w = memref.get_global @weights : memref<2x2x3xf32>
  dhlo.convolution_into %x, %w, %y {dilations = array<i64: 1>, groups = 1 : i64, padding_high = array<i64: 0>, padding_low = array<i64: 0>, strides = array<i64: 1>} : memref<?x2x?xf32>, memref<2x2x3xf32>, memref<?x2x?xf32>
  return
}

// CHECK-LABEL: func.func @anyshape_finalize
// CHECK: %[[S:.*]] = memref.get_global @anyshape_convolution_weights
// CHECK: %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
// CHECK: %[[SA:.*]] = arith.index_cast %[[SP]] : index to i64
// CHECK: call @anyshapeReleaseConvolutionWeights(%[[SA]])

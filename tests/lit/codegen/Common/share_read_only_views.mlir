// RUN: %anyshape-opt %s -split-input-file -anyshape-share-read-only-views | FileCheck %s
// The anyshape-share-read-only-views pass. The reshapes and casts that
// library fusions make of a constant, or of an argument bufferization may
// not write, become one function-level view per buffer, type and shape,
// with a shape of its own; what only the old view used goes. Views of a
// fusion's own results, of a writable argument, or in a kernel fusion
// stay where they are.

// CHECK-LABEL: func.func @weight_read_twice
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32> {bufferization.writable = false})
// CHECK: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<3x3xf32>
// CHECK: %[[DIM:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK: %[[XSHAPE:.*]] = tensor.from_elements %{{.*}}, %[[DIM]], %{{.*}} : tensor<3xindex>
// CHECK: %[[XVIEW:.*]] = tensor.reshape %[[X]](%[[XSHAPE]])
// CHECK: %[[XCAST:.*]] = tensor.cast %[[XVIEW]] : tensor<?x?x?xf32> to tensor<1x?x3xf32>
// CHECK: %[[WSHAPE:.*]] = tensor.from_elements
// CHECK: %[[WVIEW:.*]] = tensor.reshape %[[W]](%[[WSHAPE]])
// CHECK: %[[WCAST:.*]] = tensor.cast %[[WVIEW]] : tensor<?x?x?xf32> to tensor<1x3x3xf32>
// CHECK: %[[F0:.*]] = dhlo.fusion "kLibrary" 0
// CHECK-NOT: tensor.from_elements
// CHECK: linalg.batch_matmul ins(%[[XCAST]], %[[WCAST]] :
// CHECK: dhlo.fusion "kLibrary" 1
// CHECK-NOT: tensor.from_elements
// CHECK: linalg.batch_matmul ins(%{{.*}}, %[[WCAST]] :
// A kernel fusion keeps its own view.
// CHECK: dhlo.fusion "kLoop" 2
// CHECK: tensor.reshape %[[W]]
func.func @weight_read_twice(%x: tensor<?x3xf32> {bufferization.writable = false}) -> (tensor<1x?x3xf32>, tensor<1x?x3xf32>, tensor<9xf32>) {
  %c0 = arith.constant 0 : index
  %w = arith.constant dense<0.5> : tensor<3x3xf32>
  %r0 = dhlo.fusion "kLibrary" 0 versions ["library"] -> tensor<1x?x3xf32> {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %n = tensor.dim %x, %c0 : tensor<?x3xf32>
    %xs = tensor.from_elements %c1, %n, %c3 : tensor<3xindex>
    %xv = tensor.reshape %x(%xs) : (tensor<?x3xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
    %xc = tensor.cast %xv : tensor<?x?x?xf32> to tensor<1x?x3xf32>
    %ws = tensor.from_elements %c1, %c3, %c3 : tensor<3xindex>
    %wv = tensor.reshape %w(%ws) : (tensor<3x3xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
    %wc = tensor.cast %wv : tensor<?x?x?xf32> to tensor<1x3x3xf32>
    %e = tensor.empty(%n) : tensor<1x?x3xf32>
    %m = linalg.batch_matmul ins(%xc, %wc : tensor<1x?x3xf32>, tensor<1x3x3xf32>) outs(%e : tensor<1x?x3xf32>) -> tensor<1x?x3xf32>
    dhlo.yield %m : tensor<1x?x3xf32>
  }
  %r1 = dhlo.fusion "kLibrary" 1 versions ["library"] -> tensor<1x?x3xf32> {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %n = tensor.dim %x, %c0 : tensor<?x3xf32>
    %ws = tensor.from_elements %c1, %c3, %c3 : tensor<3xindex>
    %wv = tensor.reshape %w(%ws) : (tensor<3x3xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
    %wc = tensor.cast %wv : tensor<?x?x?xf32> to tensor<1x3x3xf32>
    %e = tensor.empty(%n) : tensor<1x?x3xf32>
    %m = linalg.batch_matmul ins(%r0, %wc : tensor<1x?x3xf32>, tensor<1x3x3xf32>) outs(%e : tensor<1x?x3xf32>) -> tensor<1x?x3xf32>
    dhlo.yield %m : tensor<1x?x3xf32>
  }
  %r2 = dhlo.fusion "kLoop" 2 versions ["generic"] -> tensor<9xf32> {
    %c9 = arith.constant 9 : index
    %s = tensor.from_elements %c9 : tensor<1xindex>
    %flat = tensor.reshape %w(%s) : (tensor<3x3xf32>, tensor<1xindex>) -> tensor<9xf32>
    dhlo.yield %flat : tensor<9xf32>
  }
  return %r0, %r1, %r2 : tensor<1x?x3xf32>, tensor<1x?x3xf32>, tensor<9xf32>
}

// -----

// An argument bufferization may write, and a fusion's own result, keep
// their views inside the fusion.
// CHECK-LABEL: func.func @writable
// CHECK-NEXT: %{{.*}} = dhlo.fusion "kLibrary" 0
// CHECK-NEXT: tensor.cast %{{.*}} : tensor<?x3xf32> to tensor<2x3xf32>
func.func @writable(%x: tensor<?x3xf32>) -> tensor<2x3xf32> {
  %r = dhlo.fusion "kLibrary" 0 versions ["library"] -> tensor<2x3xf32> {
    %v = tensor.cast %x : tensor<?x3xf32> to tensor<2x3xf32>
    dhlo.yield %v : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}

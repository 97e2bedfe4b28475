// RUN: %anyshape-opt %s -split-input-file -anyshape-fresh-outputs | FileCheck %s
// The anyshape-fresh-outputs pass, on @main in tensor form. A returned
// tensor computed into a tensor.empty (directly, or through the tied inits
// of destination-style ops such as a fill then a reduction) is left alone;
// any other returned tensor (an argument, a constant, a view, the second
// occurrence of a value returned twice) is copied into a fresh
// bufferization.alloc_tensor. A convolution's result, a buffer the host
// flow allocates for its call, is left alone. Functions not named main are
// untouched.

#map = affine_map<(d0) -> (d0)>
// An elementwise result computed into tensor.empty is returned as is; the
// argument returned beside it is copied.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<4xf32>)
// CHECK: %[[ACOPY:.*]] = bufferization.alloc_tensor() copy(%[[A]]) : tensor<4xf32>
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: return %[[G]], %[[ACOPY]] : tensor<4xf32>, tensor<4xf32>
func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %g, %a : tensor<4xf32>, tensor<4xf32>
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// A reduction into linalg.fill(tensor.empty) is fresh too.
// CHECK-LABEL: func.func @main
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[F]] : tensor<4xf32>)
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: return %[[R]] : tensor<4xf32>
func.func @main(%b: tensor<4x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]} ins(%b : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>
// A value returned twice: the first occurrence keeps the fresh buffer, the
// second gets a copy of its own.
// CHECK-LABEL: func.func @main
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: %[[GCOPY:.*]] = bufferization.alloc_tensor() copy(%[[G]]) : tensor<4xf32>
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: return %[[G]], %[[GCOPY]] : tensor<4xf32>, tensor<4xf32>
func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %g, %g : tensor<4xf32>, tensor<4xf32>
}

// -----

// A constant, a view of a fresh tensor and a destination-style op writing
// into an argument all get copies.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[S:.*]]: f32)
// CHECK: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK: %[[V:.*]] = tensor.extract_slice
// CHECK: %[[F:.*]] = linalg.fill ins(%[[S]] : f32) outs(%[[A]] : tensor<4xf32>)
// CHECK: %[[CCOPY:.*]] = bufferization.alloc_tensor() copy(%[[C]]) : tensor<4xf32>
// CHECK: %[[VCOPY:.*]] = bufferization.alloc_tensor() copy(%[[V]]) : tensor<2xf32>
// CHECK: %[[FCOPY:.*]] = bufferization.alloc_tensor() copy(%[[F]]) : tensor<4xf32>
// CHECK: return %[[CCOPY]], %[[VCOPY]], %[[FCOPY]] : tensor<4xf32>, tensor<2xf32>, tensor<4xf32>
func.func @main(%a: tensor<4xf32>, %s: f32) -> (tensor<4xf32>, tensor<2xf32>, tensor<4xf32>) {
  %c = arith.constant dense<1.0> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %full = linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %v = tensor.extract_slice %full[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
  %f = linalg.fill ins(%s : f32) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  return %c, %v, %f : tensor<4xf32>, tensor<2xf32>, tensor<4xf32>
}

// -----

// Only @main follows the entry ABI: other functions are left alone.
// CHECK-LABEL: func.func @helper
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: return %[[A]] : tensor<4xf32>
func.func @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @main
// CHECK: %[[Y:.*]] = dhlo.convolution
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: return %[[Y]]
func.func @main(%x: tensor<?x2x?xf32>, %w: tensor<3x2x1xf32>) -> tensor<?x3x?xf32> {
  %y = dhlo.convolution %x, %w {dilations = array<i64: 1>, groups = 1 : i64, padding_high = array<i64: 0>, padding_low = array<i64: 0>, strides = array<i64: 1>} : (tensor<?x2x?xf32>, tensor<3x2x1xf32>) -> tensor<?x3x?xf32>
  return %y : tensor<?x3x?xf32>
}

// RUN: %anyshape-opt %s -anyshape-unshare-inits | FileCheck %s
// The anyshape-unshare-inits pass. A fill of a tensor.empty with several
// users is cloned, with its empty tensor, right before every user but
// the first, and so is a shared tensor.empty, so each destination is its
// own buffer after bufferization.

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @two_sums
// CHECK: %[[E1:.*]] = tensor.empty
// CHECK-NEXT: %[[F1:.*]] = linalg.fill ins(%{{.*}}) outs(%[[E1]]
// CHECK-NEXT: %[[S1:.*]] = linalg.generic {{.*}} outs(%[[F1]]
// CHECK: %[[E2:.*]] = tensor.empty
// CHECK-NEXT: %[[F2:.*]] = linalg.fill ins(%{{.*}}) outs(%[[E2]]
// CHECK-NEXT: %[[S2:.*]] = linalg.generic {{.*}} outs(%[[F2]]
// CHECK: return %[[S1]], %[[S2]]
func.func @two_sums(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s1 = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %s2 = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %s1, %s2 : tensor<4xf32>, tensor<4xf32>
}

// Two ops writing the same (CSE-merged) empty tensor each get their own:
// otherwise bufferization writes the second in place over the first's
// result, which it reads elementwise.
// CHECK-LABEL: func.func @shared_empty
// CHECK: %[[E1:.*]] = tensor.empty
// CHECK-NEXT: %[[A:.*]] = linalg.generic {{.*}} outs(%[[E1]]
// CHECK: %[[E2:.*]] = tensor.empty
// CHECK-NEXT: %[[B:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4x8xf32>) outs(%[[E2]]
// CHECK: return %[[B]]
func.func @shared_empty(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %t = arith.negf %in : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

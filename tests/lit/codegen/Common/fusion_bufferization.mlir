// RUN: %anyshape-opt %s --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s
// One-Shot Bufferize sees through a dhlo.fusion: its results are the
// buffers it yields, so a kernel's ops bufferize in place as they would
// outside one (no copy), and the consumer in the next fusion reads the
// first fusion's buffer.
#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @two_kernels
// CHECK-SAME: (%[[A:.*]]: memref<?xf32>) -> memref<?xf32>
// CHECK: %[[F0:.*]] = dhlo.fusion "kLoop" 0 versions ["serial"] -> memref<?xf32> {
// CHECK: %[[B0:.*]] = memref.alloc
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<?xf32>) outs(%[[B0]] : memref<?xf32>)
// CHECK: dhlo.yield %[[B0]] : memref<?xf32>
// CHECK: %[[F1:.*]] = dhlo.fusion "kLoop" 1 versions ["serial"] -> memref<?xf32> {
// CHECK: %[[B1:.*]] = memref.alloc
// CHECK: linalg.generic {{.*}} ins(%[[F0]] : memref<?xf32>) outs(%[[B1]] : memref<?xf32>)
// CHECK: dhlo.yield %[[B1]] : memref<?xf32>
// CHECK-NOT: memref.copy
// CHECK: return %[[F1]]
func.func @two_kernels(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %0 = dhlo.fusion "kLoop" 0 versions ["serial"] -> tensor<?xf32> {
    %e = tensor.empty(%n) : tensor<?xf32>
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = math.exp %x : f32
      linalg.yield %y : f32
    } -> tensor<?xf32>
    dhlo.yield %r : tensor<?xf32>
  }
  %1 = dhlo.fusion "kLoop" 1 versions ["serial"] -> tensor<?xf32> {
    %e = tensor.empty(%n) : tensor<?xf32>
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%0 : tensor<?xf32>) outs(%e : tensor<?xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.negf %x : f32
      linalg.yield %y : f32
    } -> tensor<?xf32>
    dhlo.yield %r : tensor<?xf32>
  }
  return %1 : tensor<?xf32>
}

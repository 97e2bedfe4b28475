// RUN: %anyshape-opt %s -split-input-file -anyshape-fuse-shared-producers | FileCheck %s
// RUN: %anyshape-opt %s -split-input-file -anyshape-fuse-shared-producers=move-reshapes=1 | FileCheck %s --check-prefix=MOVE
// The anyshape-fuse-shared-producers pass. An elementwise linalg.generic
// whose every user is a linalg.generic is fused into each of them, so its
// arithmetic is duplicated and the producer disappears (softmax's exp feeds
// both the row sum and the division). A producer with any other user (a
// func.return, a linalg.matmul) is left alone, and so are its consumers.

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// The exp producer is recomputed inside the reduction and the division;
// no generic reads its tensor any more.
// CHECK-LABEL: func.func @softmax_like
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[X]] : tensor<4x8xf32>)
// CHECK: math.exp
// CHECK-NEXT: arith.addf
// CHECK: %[[DIV:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[SUM]] : tensor<4x8xf32>, tensor<4xf32>)
// CHECK: math.exp
// CHECK-NEXT: arith.divf
// CHECK-NOT: linalg.generic
// CHECK: return %[[DIV]]
func.func @softmax_like(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %er = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%p : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %y = arith.addf %a, %acc : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %d = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%p, %s : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>
// The producer is also returned: it stays, and both consumers still read
// its result instead of recomputing the exp.
// CHECK-LABEL: func.func @returned_producer
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: %[[C1:.*]] = linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK-NOT: math.exp
// CHECK: %[[C2:.*]] = linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK-NOT: math.exp
// CHECK: return %[[C1]], %[[C2]], %[[P]]
func.func @returned_producer(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %c1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%p, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.addf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<4xf32>
  %c2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%p, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.mulf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<4xf32>
  return %c1, %c2, %p : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
// A producer feeding a linalg.matmul as well as a generic is not fused
// into the generic either.
// CHECK-LABEL: func.func @matmul_user
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: math.tanh
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<4x4xf32>)
// CHECK-NOT: math.tanh
// CHECK: linalg.matmul ins(%[[P]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>)
func.func @matmul_user(%a: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %e = tensor.empty() : tensor<4x4xf32>
  %p = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.tanh %x : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  %c = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  %m = linalg.matmul ins(%p, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %c, %m : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>
// A producer that its fusion yields (fusion 1 reads it from memory) stays
// whole, and its fusion's consumer reads it; fusion 1 cannot see through
// fusion 0's result. A producer whose users are all in its fusion is
// fused.
// CHECK-LABEL: func.func @read_by_another_fusion
// CHECK: dhlo.fusion "kLoop" 0
// CHECK-NEXT: %[[P:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK-NOT: math.exp
// CHECK: dhlo.yield %[[P]],
// CHECK: dhlo.fusion "kLoop" 1
// CHECK-NEXT: linalg.generic
// CHECK-NOT: math.exp
// CHECK: arith.mulf
// CHECK: dhlo.fusion "kLoop" 2
// CHECK-NEXT: linalg.generic
// CHECK: math.tanh
// CHECK-NEXT: arith.negf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @read_by_another_fusion(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %f0:2 = dhlo.fusion "kLoop" 0 versions ["serial"] -> tensor<4xf32>, tensor<4xf32> {
    %p = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = math.exp %x : f32
      linalg.yield %y : f32
    } -> tensor<4xf32>
    %c0 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%p, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %z = arith.addf %x, %y : f32
      linalg.yield %z : f32
    } -> tensor<4xf32>
    dhlo.yield %p, %c0 : tensor<4xf32>, tensor<4xf32>
  }
  %c1 = dhlo.fusion "kLoop" 1 versions ["serial"] -> tensor<4xf32> {
    %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%f0#0, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %z = arith.mulf %x, %y : f32
      linalg.yield %z : f32
    } -> tensor<4xf32>
    dhlo.yield %r : tensor<4xf32>
  }
  %d = dhlo.fusion "kLoop" 2 versions ["serial"] -> tensor<4xf32> {
    %q = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = math.tanh %x : f32
      linalg.yield %y : f32
    } -> tensor<4xf32>
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%q : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.negf %x : f32
      linalg.yield %y : f32
    } -> tensor<4xf32>
    dhlo.yield %r : tensor<4xf32>
  }
  return %f0#1, %c1, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>
// With move-reshapes (in place of linalg-fuse-elementwise-ops), a
// producer with one use is still not fused into another fusion, and a
// reshape of a generic's result moves above it.
// MOVE-LABEL: func.func @single_use_across_fusions
// MOVE: dhlo.fusion "kLoop" 0
// MOVE-NEXT: linalg.generic
// MOVE: math.exp
// MOVE: dhlo.fusion "kLoop" 1
// MOVE-NEXT: linalg.generic
// MOVE: arith.negf
// MOVE-LABEL: func.func @reshape_moves_up
// MOVE: tensor.expand_shape %arg0
// MOVE: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x2xf32>)
// MOVE-NOT: tensor.expand_shape
func.func @single_use_across_fusions(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %p = dhlo.fusion "kLoop" 0 versions ["serial"] -> tensor<4xf32> {
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = math.exp %x : f32
      linalg.yield %y : f32
    } -> tensor<4xf32>
    dhlo.yield %r : tensor<4xf32>
  }
  %c = dhlo.fusion "kLoop" 1 versions ["serial"] -> tensor<4xf32> {
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%p : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.negf %x : f32
      linalg.yield %y : f32
    } -> tensor<4xf32>
    dhlo.yield %r : tensor<4xf32>
  }
  return %c : tensor<4xf32>
}

func.func @reshape_moves_up(%a: tensor<4xf32>) -> tensor<2x2xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %r = tensor.expand_shape %p [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

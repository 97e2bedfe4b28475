// RUN: %anyshape-opt %s -split-input-file -anyshape-reuse-reduced-values | FileCheck %s
// The anyshape-reuse-reduced-values pass, inside loops marked
// anyshape.stitched. A row sum of exp(x - m) followed by exp(x - m) / sum:
// the sum also writes exp(x - m) into the quotient's output row, and the
// quotient divides its output's current value. A later op that computes
// something else, or an unmarked loop, is left alone.

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax_row
// CHECK-SAME: (%[[X:.*]]: memref<1x8xf32>, %[[M:.*]]: memref<1xf32>, %[[S:.*]]: memref<1xf32>, %[[Y:.*]]: memref<1x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[M]] : {{.*}}) outs(%[[S]], %[[Y]] : memref<1xf32>, memref<1x8xf32>)
// CHECK: %[[E:.*]] = math.exp
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %{{.*}}, %[[E]]
// CHECK-NEXT: linalg.yield %[[ADD]], %[[E]]
// CHECK: linalg.generic {{.*}} outs(%[[Y]] : memref<1x8xf32>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %[[SUM:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[Q:.*]] = arith.divf %[[OUT]], %[[SUM]]
// CHECK-NEXT: linalg.yield %[[Q]]
func.func @softmax_row(%x: memref<1x8xf32>, %m: memref<1xf32>, %s: memref<1xf32>, %y: memref<1x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    linalg.generic {indexing_maps = [#map, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %m : memref<1x8xf32>, memref<1xf32>) outs(%s : memref<1xf32>) {
    ^bb0(%in: f32, %mx: f32, %acc: f32):
      %d = arith.subf %in, %mx : f32
      %e = math.exp %d : f32
      %a = arith.addf %acc, %e : f32
      linalg.yield %a : f32
    }
    linalg.generic {indexing_maps = [#map, #row, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %m, %s : memref<1x8xf32>, memref<1xf32>, memref<1xf32>) outs(%y : memref<1x8xf32>) {
    ^bb0(%in: f32, %mx: f32, %sum: f32, %o: f32):
      %d = arith.subf %in, %mx : f32
      %e = math.exp %d : f32
      %q = arith.divf %e, %sum : f32
      linalg.yield %q : f32
    }
    scf.reduce
  } {anyshape.stitched}
  return
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// exp(x + m) is not the summed exp(x - m): nothing changes.
// CHECK-LABEL: func.func @different_value
// CHECK: outs(%{{.*}} : memref<1xf32>)
// CHECK: linalg.yield %{{[^,]*}} : f32
// CHECK: math.exp
// CHECK: arith.divf
func.func @different_value(%x: memref<1x8xf32>, %m: memref<1xf32>, %s: memref<1xf32>, %y: memref<1x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    linalg.generic {indexing_maps = [#map, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %m : memref<1x8xf32>, memref<1xf32>) outs(%s : memref<1xf32>) {
    ^bb0(%in: f32, %mx: f32, %acc: f32):
      %d = arith.subf %in, %mx : f32
      %e = math.exp %d : f32
      %a = arith.addf %acc, %e : f32
      linalg.yield %a : f32
    }
    linalg.generic {indexing_maps = [#map, #row, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %m, %s : memref<1x8xf32>, memref<1xf32>, memref<1xf32>) outs(%y : memref<1x8xf32>) {
    ^bb0(%in: f32, %mx: f32, %sum: f32, %o: f32):
      %d = arith.addf %in, %mx : f32
      %e = math.exp %d : f32
      %q = arith.divf %e, %sum : f32
      linalg.yield %q : f32
    }
    scf.reduce
  } {anyshape.stitched}
  return
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// The quotient adds to its output's old value: that value must stay.
// CHECK-LABEL: func.func @reads_old_output
// CHECK: outs(%{{.*}} : memref<1xf32>)
// CHECK: linalg.yield %{{[^,]*}} : f32
// CHECK: math.exp
// CHECK: arith.divf
func.func @reads_old_output(%x: memref<1x8xf32>, %m: memref<1xf32>, %s: memref<1xf32>, %y: memref<1x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    linalg.generic {indexing_maps = [#map, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %m : memref<1x8xf32>, memref<1xf32>) outs(%s : memref<1xf32>) {
    ^bb0(%in: f32, %mx: f32, %acc: f32):
      %d = arith.subf %in, %mx : f32
      %e = math.exp %d : f32
      %a = arith.addf %acc, %e : f32
      linalg.yield %a : f32
    }
    linalg.generic {indexing_maps = [#map, #row, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %m, %s : memref<1x8xf32>, memref<1xf32>, memref<1xf32>) outs(%y : memref<1x8xf32>) {
    ^bb0(%in: f32, %mx: f32, %sum: f32, %o: f32):
      %d = arith.subf %in, %mx : f32
      %e = math.exp %d : f32
      %q = arith.divf %e, %sum : f32
      %r = arith.addf %q, %o : f32
      linalg.yield %r : f32
    }
    scf.reduce
  } {anyshape.stitched}
  return
}

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

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// Attention's softmax, s = x * c + mask: the max also stores s into the
// quotient's row, the sum reads s back from it and stores exp(s - max)
// over it, and the quotient divides that: one exp per element.
// CHECK-LABEL: func.func @masked_softmax_row
// CHECK-SAME: (%[[X:.*]]: memref<1x8xf32>, %[[K:.*]]: memref<1x8xf32>, %[[M:.*]]: memref<1xf32>, %[[S:.*]]: memref<1xf32>, %[[Y:.*]]: memref<1x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[K]] : {{.*}}) outs(%[[M]], %[[Y]] : memref<1xf32>, memref<1x8xf32>)
// CHECK: %[[B:.*]] = arith.addf
// CHECK-NEXT: %[[MAX:.*]] = arith.maximumf %{{.*}}, %[[B]]
// CHECK-NEXT: linalg.yield %[[MAX]], %[[B]]
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[K]], %[[M]], %[[Y]] : {{.*}}) outs(%[[S]], %[[Y]] : memref<1xf32>, memref<1x8xf32>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %[[MX:.*]]: f32, %[[SROW:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[SROW]], %[[MX]]
// CHECK-NEXT: %[[E:.*]] = math.exp %[[D]]
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %{{.*}}, %[[E]]
// CHECK-NEXT: linalg.yield %[[ADD]], %[[E]]
// CHECK: linalg.generic {{.*}} outs(%[[Y]] : memref<1x8xf32>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %[[SUM:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[Q:.*]] = arith.divf %[[OUT]], %[[SUM]]
// CHECK-NEXT: linalg.yield %[[Q]]
func.func @masked_softmax_row(%x: memref<1x8xf32>, %mask: memref<1x8xf32>, %m: memref<1xf32>, %s: memref<1xf32>, %y: memref<1x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %scale = arith.constant 0.125 : f32
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    linalg.generic {indexing_maps = [#map, #bc, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %mask : memref<1x8xf32>, memref<1x8xf32>) outs(%m : memref<1xf32>) {
    ^bb0(%in: f32, %k: f32, %acc: f32):
      %a = arith.mulf %in, %scale : f32
      %b = arith.addf %a, %k : f32
      %mx = arith.maximumf %acc, %b : f32
      linalg.yield %mx : f32
    }
    linalg.generic {indexing_maps = [#map, #bc, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %mask, %m : memref<1x8xf32>, memref<1x8xf32>, memref<1xf32>) outs(%s : memref<1xf32>) {
    ^bb0(%in: f32, %k: f32, %mx: f32, %acc: f32):
      %a = arith.mulf %in, %scale : f32
      %b = arith.addf %a, %k : f32
      %d = arith.subf %b, %mx : f32
      %e = math.exp %d : f32
      %sum = arith.addf %acc, %e : f32
      linalg.yield %sum : f32
    }
    linalg.generic {indexing_maps = [#map, #bc, #row, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %mask, %m, %s : memref<1x8xf32>, memref<1x8xf32>, memref<1xf32>, memref<1xf32>) outs(%y : memref<1x8xf32>) {
    ^bb0(%in: f32, %k: f32, %mx: f32, %sum: f32, %o: f32):
      %a = arith.mulf %in, %scale : f32
      %b = arith.addf %a, %k : f32
      %d = arith.subf %b, %mx : f32
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
// The row the max stored is refilled before the sum: the sum must keep
// computing x + 1 itself.
// CHECK-LABEL: func.func @row_written_in_between
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : memref<1xf32>)
// CHECK: arith.addf
// CHECK: math.exp
func.func @row_written_in_between(%x: memref<1x8xf32>, %m: memref<1xf32>, %s: memref<1xf32>, %y: memref<1x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "reduction"]} ins(%x : memref<1x8xf32>) outs(%m, %y : memref<1xf32>, memref<1x8xf32>) {
    ^bb0(%in: f32, %acc: f32, %o: f32):
      %b = arith.addf %in, %one : f32
      %mx = arith.maximumf %acc, %b : f32
      linalg.yield %mx, %b : f32, f32
    }
    linalg.fill ins(%one : f32) outs(%y : memref<1x8xf32>)
    linalg.generic {indexing_maps = [#map, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %m : memref<1x8xf32>, memref<1xf32>) outs(%s : memref<1xf32>) {
    ^bb0(%in: f32, %mx: f32, %acc: f32):
      %b = arith.addf %in, %one : f32
      %d = arith.subf %b, %mx : f32
      %e = math.exp %d : f32
      %sum = arith.addf %acc, %e : f32
      linalg.yield %sum : f32
    }
    scf.reduce
  } {anyshape.stitched}
  return
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// The quotient also adds s, its output's old value, outside exp(s - max):
// the row must keep s, so the sum does not store over it.
// CHECK-LABEL: func.func @old_output_read_elsewhere
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : memref<1xf32>)
// CHECK: math.exp
// CHECK: linalg.yield %{{[^,]*}} : f32
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.addf
func.func @old_output_read_elsewhere(%s0: memref<1x8xf32>, %m: memref<1xf32>, %s: memref<1xf32>, %y: memref<1x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    linalg.generic {indexing_maps = [#map, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%y, %m : memref<1x8xf32>, memref<1xf32>) outs(%s : memref<1xf32>) {
    ^bb0(%in: f32, %mx: f32, %acc: f32):
      %d = arith.subf %in, %mx : f32
      %e = math.exp %d : f32
      %sum = arith.addf %acc, %e : f32
      linalg.yield %sum : f32
    }
    linalg.generic {indexing_maps = [#map, #row, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%y, %m, %s : memref<1x8xf32>, memref<1xf32>, memref<1xf32>) outs(%y : memref<1x8xf32>) {
    ^bb0(%in: f32, %mx: f32, %sum: f32, %o: f32):
      %d = arith.subf %o, %mx : f32
      %e = math.exp %d : f32
      %q = arith.divf %e, %sum : f32
      %r = arith.addf %q, %o : f32
      linalg.yield %r : f32
    }
    scf.reduce
  } {anyshape.stitched}
  return
}

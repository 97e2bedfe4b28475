// RUN: %anyshape-opt %s -split-input-file -anyshape-stitch-rows | FileCheck %s
// The anyshape-stitch-rows pass. A run of linalg ops on buffers over the
// same rows (sizes proven equal through allocation sizes and memref.dim),
// with a reduction among them, in one dhlo.fusion (the buffers are the
// host flow's, allocated before it), becomes one scf.parallel over the
// rows, marked anyshape.stitched, whose body runs every op on one row in
// order. Nothing is stitched when a member reads a buffer another
// member writes at a different row, when the rows differ, when an op with
// memory effects sits between, or when there is no reduction.

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// Softmax: max, sum of exp(x - max), quotient, row by row.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: memref<?x8xf32>)
// CHECK: %[[ROWS:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK: %[[MAX:.*]] = memref.alloc(%[[ROWS]])
// CHECK: %[[SUM:.*]] = memref.alloc(%[[ROWS]])
// CHECK: %[[OUT:.*]] = memref.alloc(%[[ROWS]])
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK: %[[MAXROW:.*]] = memref.subview %[[MAX]][%[[I]]] [1] [1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[MAXROW]]
// CHECK: %[[XROW:.*]] = memref.subview %[[X]][%[[I]], 0] [1, 8] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[XROW]] : {{.*}}) outs(%{{.*}} : memref<1xf32
// CHECK: arith.maximumf
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: %[[OUTROW:.*]] = memref.subview %[[OUT]][%[[I]], 0] [1, 8] [1, 1]
// CHECK: linalg.generic {{.*}} outs(%[[OUTROW]] : memref<1x8xf32
// CHECK: arith.divf
// CHECK: } {anyshape.stitched}
// CHECK-NEXT: dhlo.yield
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[MAX]]
// CHECK-NEXT: memref.dealloc %[[SUM]]
// CHECK-NEXT: return %[[OUT]]
func.func @softmax(%x: memref<?x8xf32>) -> memref<?x8xf32> {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = memref.dim %x, %c0 : memref<?x8xf32>
  %max = memref.alloc(%rows) : memref<?xf32>
  %sum = memref.alloc(%rows) : memref<?xf32>
  %out = memref.alloc(%rows) : memref<?x8xf32>
  dhlo.fusion "kStitch" 0 versions [] {
    linalg.fill ins(%ninf : f32) outs(%max : memref<?xf32>)
    linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x8xf32>) outs(%max : memref<?xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %m = arith.maximumf %acc, %in : f32
      linalg.yield %m : f32
    }
    linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
    linalg.generic {indexing_maps = [#map, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %max : memref<?x8xf32>, memref<?xf32>) outs(%sum : memref<?xf32>) {
    ^bb0(%in: f32, %m: f32, %acc: f32):
      %d = arith.subf %in, %m : f32
      %e = math.exp %d : f32
      %s = arith.addf %acc, %e : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#map, #row, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %max, %sum : memref<?x8xf32>, memref<?xf32>, memref<?xf32>) outs(%out : memref<?x8xf32>) {
    ^bb0(%in: f32, %m: f32, %s: f32, %o: f32):
      %d = arith.subf %in, %m : f32
      %e = math.exp %d : f32
      %q = arith.divf %e, %s : f32
      linalg.yield %q : f32
    }
    dhlo.yield
  }
  memref.dealloc %max : memref<?xf32>
  memref.dealloc %sum : memref<?xf32>
  return %out : memref<?x8xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
// The last op reads the row sums along its column dim: row i would need
// sums of other rows. The fill and the reduction are stitched; the last
// op runs after the loop, on whole buffers.
// CHECK-LABEL: func.func @cross_row_read
// CHECK: %[[SUM:.*]] = memref.alloc
// CHECK: %[[OUT:.*]] = memref.alloc
// CHECK: scf.parallel
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: } {anyshape.stitched}
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[SUM]] : memref<?xf32>) outs(%[[OUT]] : memref<?x?xf32>)
// CHECK-NOT: scf.parallel
func.func @cross_row_read(%x: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  %sum = memref.alloc(%n) : memref<?xf32>
  %out = memref.alloc(%n, %n) : memref<?x?xf32>
  dhlo.fusion "kStitch" 0 versions [] {
    linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
    linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x?xf32>) outs(%sum : memref<?xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %acc, %in : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#col, #map], iterator_types = ["parallel", "parallel"]} ins(%sum : memref<?xf32>) outs(%out : memref<?x?xf32>) {
    ^bb0(%s: f32, %o: f32):
      linalg.yield %s : f32
    }
    dhlo.yield
  }
  return %out : memref<?x?xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// Rows of different inputs, not known to be equal: the fill of x's rows
// and the reduction over y's rows are not stitched.
// CHECK-LABEL: func.func @unrelated_rows
// CHECK-NOT: scf.parallel
func.func @unrelated_rows(%x: memref<?x4xf32>, %y: memref<?x4xf32>) -> (memref<?xf32>, memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %k = memref.dim %y, %c0 : memref<?x4xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  %sum = memref.alloc(%k) : memref<?xf32>
  dhlo.fusion "kStitch" 0 versions [] {
    linalg.fill ins(%zero : f32) outs(%a : memref<?xf32>)
    linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%y : memref<?x4xf32>) outs(%sum : memref<?xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %acc, %in : f32
      linalg.yield %s : f32
    }
    dhlo.yield
  }
  return %a, %sum : memref<?xf32>, memref<?xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// A memref.copy between the fill and the reduction ends the group; a
// lone reduction is left alone.
// CHECK-LABEL: func.func @copy_between
// CHECK-NOT: scf.parallel
func.func @copy_between(%x: memref<?x4xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %init = memref.alloc(%n) : memref<?xf32>
  %sum = memref.alloc(%n) : memref<?xf32>
  dhlo.fusion "kStitch" 0 versions [] {
    linalg.fill ins(%zero : f32) outs(%init : memref<?xf32>)
    memref.copy %init, %sum : memref<?xf32> to memref<?xf32>
    linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x4xf32>) outs(%sum : memref<?xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %acc, %in : f32
      linalg.yield %s : f32
    }
    dhlo.yield
  }
  memref.dealloc %init : memref<?xf32>
  return %sum : memref<?xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
// Two elementwise ops over the same rows: no reduction, nothing to gain.
// CHECK-LABEL: func.func @no_reduction
// CHECK-NOT: scf.parallel
func.func @no_reduction(%x: memref<?x4xf32>) -> memref<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %a = memref.alloc(%n) : memref<?x4xf32>
  %b = memref.alloc(%n) : memref<?x4xf32>
  dhlo.fusion "kStitch" 0 versions [] {
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x4xf32>) outs(%a : memref<?x4xf32>) {
    ^bb0(%in: f32, %o: f32):
      %y = arith.negf %in : f32
      linalg.yield %y : f32
    }
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : memref<?x4xf32>) outs(%b : memref<?x4xf32>) {
    ^bb0(%in: f32, %o: f32):
      %y = arith.negf %in : f32
      linalg.yield %y : f32
    }
    dhlo.yield
  }
  memref.dealloc %a : memref<?x4xf32>
  return %b : memref<?x4xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#scalar = affine_map<(d0, d1) -> ()>
// A scalar stored into a fresh buffer between members (a size, as
// tensor.from_elements bufferizes) stays before the stitched loop: the
// reduction and the scaling that reads the scalar are one loop. A store
// into a buffer an earlier member already read would end the group.
// CHECK-LABEL: func.func @scalar_between
// CHECK: memref.store
// CHECK: scf.parallel
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: } {anyshape.stitched}
func.func @scalar_between(%x: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  %sum = memref.alloc(%n) : memref<?xf32>
  %count = memref.alloc() : memref<f32>
  %out = memref.alloc(%n, %m) : memref<?x?xf32>
  dhlo.fusion "kStitch" 0 versions [] {
    linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
    linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x?xf32>) outs(%sum : memref<?xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %acc, %in : f32
      linalg.yield %s : f32
    }
    %mi = arith.index_cast %m : index to i64
    %mf = arith.sitofp %mi : i64 to f32
    memref.store %mf, %count[] : memref<f32>
    linalg.generic {indexing_maps = [#row, #scalar, #map], iterator_types = ["parallel", "parallel"]} ins(%sum, %count : memref<?xf32>, memref<f32>) outs(%out : memref<?x?xf32>) {
    ^bb0(%s: f32, %c: f32, %o: f32):
      %q = arith.divf %s, %c : f32
      linalg.yield %q : f32
    }
    dhlo.yield
  }
  return %out : memref<?x?xf32>
}

// -----

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#unitrow = affine_map<(d0, d1, d2) -> (0, d1)>
// A static batch of 1: once its size is known, a map may read the batch
// dim with 0 instead of d0, which is still the current row. The max and
// the sum reading it are one loop (as in a softmax specialised to batch
// 1).
// CHECK-LABEL: func.func @unit_row_dim
// CHECK: scf.parallel
// CHECK-COUNT-2: linalg.generic
// CHECK: } {anyshape.stitched}
// CHECK-NOT: linalg.generic
func.func @unit_row_dim(%x: memref<1x?x?xf32>) -> memref<1x?xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c1 : memref<1x?x?xf32>
  %max = memref.alloc(%n) : memref<1x?xf32>
  %sum = memref.alloc(%n) : memref<1x?xf32>
  dhlo.fusion "kStitch" 0 versions [] {
    linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : memref<1x?x?xf32>) outs(%max : memref<1x?xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %m = arith.maximumf %acc, %in : f32
      linalg.yield %m : f32
    }
    linalg.generic {indexing_maps = [#map, #unitrow, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %max : memref<1x?x?xf32>, memref<1x?xf32>) outs(%sum : memref<1x?xf32>) {
    ^bb0(%in: f32, %m: f32, %acc: f32):
      %d = arith.subf %in, %m : f32
      %s = arith.addf %acc, %d : f32
      linalg.yield %s : f32
    }
    dhlo.yield
  }
  return %sum : memref<1x?xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// A pad shifting each row right by one loads its source under an scf.if,
// at the current row. The row sum of the padded rows, then an in-place
// update of the pad's source (a buffer bufferization reused), are one
// loop: each row is read by the pad before the update writes it. The
// rows are the leading dim only (over both dims, the pad would read a
// column the update already wrote).
// CHECK-LABEL: func.func @pad_then_update_source
// CHECK: scf.parallel (%{{[a-z0-9_]+}}) =
// CHECK: scf.if
// CHECK: memref.load
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: } {anyshape.stitched}
// CHECK-NOT: linalg.generic
func.func @pad_then_update_source(%x: memref<?x?xf32>) -> (memref<?x?xf32>, memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  %src = memref.alloc(%n, %m) : memref<?x?xf32>
  %padded = memref.alloc(%n, %m) : memref<?x?xf32>
  %sum = memref.alloc(%n) : memref<?xf32>
  dhlo.fusion "kStitch" 0 versions [] {
    memref.copy %x, %src : memref<?x?xf32> to memref<?x?xf32>
    %m1 = arith.subi %m, %c1 : index
    %view = memref.subview %src[0, 0] [%n, %m1] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1]>>
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%padded : memref<?x?xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %k = arith.subi %j, %c1 : index
      %inside = arith.cmpi sge, %k, %c0 : index
      %v = scf.if %inside -> (f32) {
        %l = memref.load %view[%i, %k] : memref<?x?xf32, strided<[?, 1]>>
        scf.yield %l : f32
      } else {
        scf.yield %zero : f32
      }
      linalg.yield %v : f32
    }
    linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
    linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%padded : memref<?x?xf32>) outs(%sum : memref<?xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %acc, %in : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%padded : memref<?x?xf32>) outs(%src : memref<?x?xf32>) {
    ^bb0(%in: f32, %o: f32):
      %t = arith.mulf %in, %o : f32
      linalg.yield %t : f32
    }
    dhlo.yield
  }
  memref.dealloc %padded : memref<?x?xf32>
  return %src, %sum : memref<?x?xf32>, memref<?xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// A gather's table is loaded at rows the indices choose: a member that
// writes the table ends the group before it.
// CHECK-LABEL: func.func @gather_table_written
// CHECK: scf.parallel
// CHECK: } {anyshape.stitched}
// CHECK: linalg.generic
// CHECK-NOT: anyshape.stitched
func.func @gather_table_written(%x: memref<?x?xf32>, %idx: memref<?xindex>) -> (memref<?x?xf32>, memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  %table = memref.alloc(%n, %m) : memref<?x?xf32>
  %rows = memref.alloc(%n, %m) : memref<?x?xf32>
  %sum = memref.alloc(%n) : memref<?xf32>
  dhlo.fusion "kStitch" 0 versions [] {
    memref.copy %x, %table : memref<?x?xf32> to memref<?x?xf32>
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%rows : memref<?x?xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %r = memref.load %idx[%i] : memref<?xindex>
      %l = memref.load %table[%r, %j] : memref<?x?xf32>
      linalg.yield %l : f32
    }
    linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
    linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%rows : memref<?x?xf32>) outs(%sum : memref<?xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %acc, %in : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%rows : memref<?x?xf32>) outs(%table : memref<?x?xf32>) {
    ^bb0(%in: f32, %o: f32):
      %t = arith.mulf %in, %o : f32
      linalg.yield %t : f32
    }
    dhlo.yield
  }
  memref.dealloc %rows : memref<?x?xf32>
  return %table, %sum : memref<?x?xf32>, memref<?xf32>
}

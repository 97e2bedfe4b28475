// RUN: %anyshape-opt %s -split-input-file --dhlo-test-print-fusion-plan -o /dev/null | FileCheck %s
// The fusion planner's kinds on small functions: an elementwise chain with
// a splat is one kLoop; a column reduction takes its producers (kInput); a
// softmax over rows is one kStitch; a producer shared by two kernels stays
// out of both; an index space that cannot be proven equal is not fused.
// Each kernel lists its speculative versions: parallel/serial, crossed
// with no-stretch/stretch when a broadcast dim may or may not be 1; a
// reduction of the innermost dim also split-row (a 1-D value is one row),
// of a middle dim split-row with row blocks or column chunks; a reduction
// of the first dim row-blocks and column-chunks for parallel; a reduction
// of every dim of a larger value no parallel one.

// CHECK-LABEL: fusion plan of @chain
// CHECK: fusions: 1
// CHECK-NEXT: #0 kLoop root dhlo.tanh over [n, 4], 5 ops: constant broadcast_in_dim exp mul tanh | versions: parallel serial{{$}}
func.func @chain(%x: tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>> {
  %c = dhlo.constant dense<2.0> : tensor<f32>
  %b = dhlo.broadcast_in_dim %c {shape = #dhlo.shape<n, 4>, broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %e = dhlo.exp %x : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %m = dhlo.mul %e, %b : (tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %t = dhlo.tanh %m : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  return %t : tensor<?x4xf32, #dhlo.shape<n, 4>>
}

// -----

// CHECK-LABEL: fusion plan of @column_reduce
// CHECK: fusions: 1
// CHECK-NEXT: #0 kInput root dhlo.reduce over [n, m], 3 ops, 1 reductions: abs exp reduce | versions: row-blocks column-chunks serial{{$}}
func.func @column_reduce(%x: tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?xf32, #dhlo.shape<m>> {
  %a = dhlo.abs %x : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %e = dhlo.exp %a : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %r = dhlo.reduce %e {kind = "sum", dimensions = array<i64: 0>} : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?xf32, #dhlo.shape<m>>
  return %r : tensor<?xf32, #dhlo.shape<m>>
}

// -----

// CHECK-LABEL: fusion plan of @softmax
// CHECK: fusions: 1
// CHECK-NEXT: #0 kStitch root dhlo.div over [n, m], 7 ops, 2 reductions: reduce broadcast_in_dim sub exp reduce broadcast_in_dim div | versions: split-row parallel serial{{$}}
func.func @softmax(%x: tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>> {
  %max = dhlo.reduce %x {kind = "max", dimensions = array<i64: 1>} : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?xf32, #dhlo.shape<n>>
  %bm = dhlo.broadcast_in_dim %max {shape = #dhlo.shape<n, m>, broadcast_dimensions = array<i64: 0>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %s = dhlo.sub %x, %bm : (tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %e = dhlo.exp %s : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %sum = dhlo.reduce %e {kind = "sum", dimensions = array<i64: 1>} : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?xf32, #dhlo.shape<n>>
  %bs = dhlo.broadcast_in_dim %sum {shape = #dhlo.shape<n, m>, broadcast_dimensions = array<i64: 0>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %d = dhlo.div %e, %bs : (tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  return %d : tensor<?x?xf32, #dhlo.shape<n, m>>
}

// -----

// The exp feeds two kernels over its own space: each recomputes it (as
// anyshape-fuse-shared-producers has codegen do) rather than read it back
// from memory.
// CHECK-LABEL: fusion plan of @shared_producer
// CHECK: fusions: 2
// CHECK-NEXT: #0 kLoop root dhlo.tanh over [n], 2 ops: exp tanh
// CHECK-NEXT: #1 kLoop root dhlo.sin over [n], 2 ops: exp sin
func.func @shared_producer(%x: tensor<?xf32, #dhlo.shape<n>>) -> (tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>) {
  %e = dhlo.exp %x : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>>
  %t = dhlo.tanh %e : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>>
  %s = dhlo.sin %e : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>>
  return %t, %s : tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>
}

// -----

// m may be 1 and stretch to n: the broadcast's operand space [m] is not
// provably the kernel's [n], so its producer stays out, and says why.
// CHECK-LABEL: fusion plan of @unprovable
// CHECK: not fused: 1
// CHECK-NEXT: dhlo.exp into dhlo.add: index space [m] not provably [n]
func.func @unprovable(%x: tensor<?xf32, #dhlo.shape<m>>, %y: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>> {
  %e = dhlo.exp %x : (tensor<?xf32, #dhlo.shape<m>>) -> tensor<?xf32, #dhlo.shape<m>>
  %b = dhlo.broadcast_in_dim %e {shape = #dhlo.shape<n>, broadcast_dimensions = array<i64: 0>} : (tensor<?xf32, #dhlo.shape<m>>) -> tensor<?xf32, #dhlo.shape<n>>
  %a = dhlo.add %b, %y : (tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>>
  return %a : tensor<?xf32, #dhlo.shape<n>>
}

// -----

// b's dim k may be 1 (stretch) or m: four versions.
// CHECK-LABEL: fusion plan of @maybe_stretch
// CHECK: fusions: 1
// CHECK-NEXT: #0 kLoop root dhlo.add over [n, m], 2 ops: broadcast_in_dim add | versions: no-stretch/parallel no-stretch/serial stretch/parallel stretch/serial{{$}}
func.func @maybe_stretch(%x: tensor<?x?xf32, #dhlo.shape<n, m>>, %b: tensor<?xf32, #dhlo.shape<k>>) -> tensor<?x?xf32, #dhlo.shape<n, m>> {
  %bb = dhlo.broadcast_in_dim %b {shape = #dhlo.shape<n, m>, broadcast_dimensions = array<i64: 1>} : (tensor<?xf32, #dhlo.shape<k>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %y = dhlo.add %x, %bb : (tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  return %y : tensor<?x?xf32, #dhlo.shape<n, m>>
}

// -----

// Reductions of every dim: a 1-D value's is one row (split-row), a 2-D
// value's a serial loop nest.
// CHECK-LABEL: fusion plan of @whole_reductions
// CHECK: fusions: 2
// CHECK-NEXT: #0 kInput root dhlo.reduce over [n], 2 ops, 1 reductions: exp reduce | versions: split-row serial{{$}}
// CHECK-NEXT: #1 kInput root dhlo.reduce over [n, m], 2 ops, 1 reductions: exp reduce | versions: serial{{$}}
func.func @whole_reductions(%x: tensor<?xf32, #dhlo.shape<n>>, %y: tensor<?x?xf32, #dhlo.shape<n, m>>) -> (tensor<f32, #dhlo.shape<>>, tensor<f32, #dhlo.shape<>>) {
  %e = dhlo.exp %x : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>>
  %s = dhlo.reduce %e {kind = "sum", dimensions = array<i64: 0>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<f32, #dhlo.shape<>>
  %f = dhlo.exp %y : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %t = dhlo.reduce %f {kind = "sum", dimensions = array<i64: 0, 1>} : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<f32, #dhlo.shape<>>
  return %s, %t : tensor<f32, #dhlo.shape<>>, tensor<f32, #dhlo.shape<>>
}

// -----

// A middle dim: rows before it; with fewer rows than threads, each row's
// reduced dim in blocks (or its columns in chunks) over the threads.
// CHECK-LABEL: fusion plan of @middle_reduce
// CHECK: fusions: 1
// CHECK-NEXT: #0 kInput root dhlo.reduce over [b, s, h], 1 ops, 1 reductions: reduce | versions: split-row/row-blocks split-row/column-chunks parallel serial{{$}}
func.func @middle_reduce(%x: tensor<?x?x?xf32, #dhlo.shape<b, s, h>>) -> tensor<?x?xf32, #dhlo.shape<b, h>> {
  %r = dhlo.reduce %x {kind = "sum", dimensions = array<i64: 1>} : (tensor<?x?x?xf32, #dhlo.shape<b, s, h>>) -> tensor<?x?xf32, #dhlo.shape<b, h>>
  return %r : tensor<?x?xf32, #dhlo.shape<b, h>>
}

// -----

// Sibling row reductions of one input and the per-row values computed from
// them run in one pass over each row: the sum, the max and the mean (a
// kLoop over the rows alone) become one kStitch, as anyshape-stitch-rows
// builds them. The column sum that follows reads every row: not stitched.
// CHECK-LABEL: fusion plan of @row_siblings
// CHECK: fusions: 2
// CHECK-NEXT: #0 kStitch root dhlo.div over [n, m], 6 ops, 2 reductions: reduce reduce dim_size convert broadcast_in_dim div | versions: split-row parallel serial
// CHECK-NEXT: #1 kInput root dhlo.reduce over [n, m], 1 ops, 1 reductions: reduce | versions: row-blocks column-chunks serial
func.func @row_siblings(%x: tensor<?x?xf32, #dhlo.shape<n, m>>) -> (tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<m>>) {
  %sum = dhlo.reduce %x {kind = "sum", dimensions = array<i64: 1>} : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?xf32, #dhlo.shape<n>>
  %max = dhlo.reduce %x {kind = "max", dimensions = array<i64: 1>} : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?xf32, #dhlo.shape<n>>
  %count = dhlo.dim_size %x {dimension = 1 : i64} : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<i64>
  %c = dhlo.convert %count : (tensor<i64>) -> tensor<f32>
  %bc = dhlo.broadcast_in_dim %c {shape = #dhlo.shape<n>, broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<?xf32, #dhlo.shape<n>>
  %mean = dhlo.div %sum, %bc : (tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>>
  %cols = dhlo.reduce %x {kind = "sum", dimensions = array<i64: 0>} : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?xf32, #dhlo.shape<m>>
  return %mean, %max, %cols : tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<m>>
}

// -----

// A gather's table is loaded at rows the indices choose, so its producer
// (the log) is a kernel of its own, finished first; also when the log
// flows in place into the gather's kernel through another path (the abs).
// CHECK-LABEL: fusion plan of @gather_table_also_read_in_place
// CHECK: fusions: 2
// CHECK-NEXT: #0 kLoop root dhlo.log over [n, m], 1 ops: log
// CHECK-NEXT: #1 kLoop root dhlo.add over [n, m], 3 ops: abs gather add
func.func @gather_table_also_read_in_place(%x: tensor<?x?xf32, #dhlo.shape<n, m>>, %idx: tensor<?xi32, #dhlo.shape<n>>) -> tensor<?x?xf32, #dhlo.shape<n, m>> {
  %t = dhlo.log %x : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %u = dhlo.abs %t : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %g = dhlo.gather %t, %idx {axis = 0 : i64} : (tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?xi32, #dhlo.shape<n>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %out = dhlo.add %g, %u : (tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  return %out : tensor<?x?xf32, #dhlo.shape<n, m>>
}

// -----

// A concatenate is copies into parts of its result, so a loop producer
// whose space provably equals the whole result (the reshape to [n] proves
// k = 1: the other operand is empty) is a kernel of its own; pulled in,
// codegen would build the fusion as two kernels (EfficientNet's last
// ceil-mode pooling window before its flatten).
// CHECK-LABEL: fusion plan of @concatenate_with_an_empty_part
// CHECK: fusions: 3
// CHECK-NEXT: #0 kLoop root dhlo.exp over [n, 1], 1 ops: exp
// CHECK-NEXT: #1 kLoop root dhlo.concatenate over [n, k], 1 ops: concatenate
// CHECK-NEXT: #2 kLoop root dhlo.reshape over [n], 1 ops: reshape
func.func @concatenate_with_an_empty_part(%x: tensor<?x1xf32, #dhlo.shape<n, 1>>, %e: tensor<?x?xf32, #dhlo.shape<n, "k - 1">>) -> tensor<?xf32, #dhlo.shape<n>> {
  %y = dhlo.exp %x : (tensor<?x1xf32, #dhlo.shape<n, 1>>) -> tensor<?x1xf32, #dhlo.shape<n, 1>>
  %c = dhlo.concatenate %e, %y {dimension = 1 : i64} : (tensor<?x?xf32, #dhlo.shape<n, "k - 1">>, tensor<?x1xf32, #dhlo.shape<n, 1>>) -> tensor<?x?xf32, #dhlo.shape<n, k>>
  %r = dhlo.reshape %c {shape = #dhlo.shape<n>} : (tensor<?x?xf32, #dhlo.shape<n, k>>) -> tensor<?xf32, #dhlo.shape<n>>
  return %r : tensor<?xf32, #dhlo.shape<n>>
}

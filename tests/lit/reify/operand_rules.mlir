// RUN: %anyshape-opt %s --resolve-ranked-shaped-type-result-dims --canonicalize --cse | FileCheck %s
// Shape reification where no symbol names the dim: the op's wire shape
// rule (ir/graph) over its operands' dims (reshape -1, strided slice,
// interior pad, concatenate, gather, dot_general, elementwise on plain `?`
// dims, an anonymous broadcast target dim).

// CHECK-LABEL: func @reshape_inferred
func.func @reshape_inferred(%x: tensor<?x?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %r = dhlo.reshape %x {shape = #dhlo.shape<-1, 2>} : (tensor<?x?xf32>) -> tensor<?x2xf32>
  // CHECK-DAG: %[[A:.*]] = tensor.dim %arg0, %c0
  // CHECK-DAG: %[[B:.*]] = tensor.dim %arg0, %c1
  // CHECK: %[[AB:.*]] = arith.muli %[[A]], %[[B]]
  // CHECK: %[[Q:.*]] = arith.divui %[[AB]], %c2
  // CHECK: return %[[Q]]
  %d = tensor.dim %r, %c0 : tensor<?x2xf32>
  return %d : index
}

// CHECK-LABEL: func @strided_slice
func.func @strided_slice(%x: tensor<?xf32, #dhlo.shape<n>>) -> index {
  %c0 = arith.constant 0 : index
  %s = dhlo.slice %x {start_indices = #dhlo.shape<1>, limit_indices = #dhlo.shape<n>, strides = array<i64: 3>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32>
  // ceil((n - 1) / 3), the quotient ((n + 1) floordiv 3).
  // CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
  // CHECK: %[[E:.*]] = arith.addi %[[N]], %c1
  // CHECK: %[[C:.*]] = arith.divui %[[E]], %c3
  // CHECK: return %[[C]]
  %d = tensor.dim %s, %c0 : tensor<?xf32>
  return %d : index
}

// CHECK-LABEL: func @interior_pad
func.func @interior_pad(%x: tensor<?xf32>, %v: tensor<f32>) -> index {
  %c0 = arith.constant 0 : index
  %p = dhlo.pad %x, %v {edge_padding_low = array<i64: 2>, edge_padding_high = array<i64: -1>, interior_padding = array<i64: 2>} : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  // d + 2 * max(d - 1, 0) + (2 - 1)
  // CHECK: %[[D:.*]] = tensor.dim %arg0, %c0
  // CHECK: arith.maxsi
  // CHECK: arith.muli
  // CHECK: arith.addi
  %d = tensor.dim %p, %c0 : tensor<?xf32>
  return %d : index
}

// CHECK-LABEL: func @gather_and_dot
func.func @gather_and_dot(%t: tensor<?x?xf32>, %i: tensor<?xi32>, %w: tensor<?x?xf32>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g = dhlo.gather %t, %i {axis = 0 : i64} : (tensor<?x?xf32>, tensor<?xi32>) -> tensor<?x?xf32>
  %m = dhlo.dot_general %g, %w {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  // Rows of the product are the gathered indices; columns are w's.
  // CHECK-DAG: %[[ROWS:.*]] = tensor.dim %arg1, %c0
  // CHECK-DAG: %[[COLS:.*]] = tensor.dim %arg2, %c1
  // CHECK: return %[[ROWS]], %[[COLS]]
  %d0 = tensor.dim %m, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %m, %c1 : tensor<?x?xf32>
  return %d0, %d1 : index, index
}

// CHECK-LABEL: func @elementwise_plain
func.func @elementwise_plain(%a: tensor<?xf32>, %b: tensor<?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %s = dhlo.add %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  // CHECK: %[[D:.*]] = tensor.dim %arg{{[01]}}, %c0
  // CHECK: return %[[D]]
  %d = tensor.dim %s, %c0 : tensor<?xf32>
  return %d : index
}

// A broadcast target dim nobody named copies its operand dim.
// CHECK-LABEL: func @broadcast_anonymous
// CHECK: %[[D:.*]] = tensor.dim %arg0, %c0
// CHECK: return %[[D]]
func.func @broadcast_anonymous(%x: tensor<?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %b = dhlo.broadcast_in_dim %x {shape = #dhlo.shape<?, 4>, broadcast_dimensions = array<i64: 0>} : (tensor<?xf32>) -> tensor<?x4xf32>
  %d = tensor.dim %b, %c0 : tensor<?x4xf32>
  return %d : index
}

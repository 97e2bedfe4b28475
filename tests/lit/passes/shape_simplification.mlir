// RUN: %anyshape-opt %s -split-input-file -dhlo-shape-simplification | FileCheck %s
// The dhlo-shape-simplification pass.
// Every type is rewritten to the analysis'
// canonical dims (the class representative symbol, or a static size where
// proven), the function's result types follow, and broadcasts, reshapes
// and transposes that thereby become no-ops fold away.

// An add makes the importer's fresh "?3" and seq one class: every type
// that said "?3" now says seq (the user's symbol is the representative).
// CHECK-LABEL: func.func @unify
// CHECK-SAME: (%[[Y:.*]]: tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32, #dhlo.shape<seq, 4>>
// CHECK-NEXT: %[[X:.*]] = dhlo.iota {iota_dimension = 0 : i64} : tensor<?x4xf32, #dhlo.shape<seq, 4>>
// CHECK-NEXT: %[[A:.*]] = dhlo.add %[[X]], %[[Y]] : (tensor<?x4xf32, #dhlo.shape<seq, 4>>, tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32, #dhlo.shape<seq, 4>>
// CHECK-NEXT: %[[E:.*]] = dhlo.exp %[[A]] : (tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32, #dhlo.shape<seq, 4>>
// CHECK-NEXT: return %[[E]] : tensor<?x4xf32, #dhlo.shape<seq, 4>>
// CHECK-NOT: ?3
func.func @unify(%y: tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32, #dhlo.shape<"?3", 4>> {
  %x = dhlo.iota {iota_dimension = 0 : i64} : tensor<?x4xf32, #dhlo.shape<"?3", 4>>
  %0 = dhlo.add %x, %y : (tensor<?x4xf32, #dhlo.shape<"?3", 4>>, tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32, #dhlo.shape<"?3", 4>>
  %1 = dhlo.exp %0 : (tensor<?x4xf32, #dhlo.shape<"?3", 4>>) -> tensor<?x4xf32, #dhlo.shape<"?3", 4>>
  return %1 : tensor<?x4xf32, #dhlo.shape<"?3", 4>>
}

// -----

// The reshape's element count proves its unknown dim is seq: the reshape
// is then to the operand's own type and folds.
// CHECK-LABEL: func.func @reshape_to_same_shape
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32, #dhlo.shape<seq, 4>>
// CHECK-NEXT: %[[E:.*]] = dhlo.exp %[[X]] : (tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32, #dhlo.shape<seq, 4>>
// CHECK-NEXT: return %[[E]]
func.func @reshape_to_same_shape(%x: tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32> {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<seq, 4>} : (tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32>
  %1 = dhlo.exp %0 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// The add proves the broadcast's unknown result dim is seq, so the
// broadcast is to the operand's own shape and folds.
// CHECK-LABEL: func.func @broadcast_to_own_shape
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32, #dhlo.shape<seq, 4>>)
// CHECK-NEXT: %[[A:.*]] = dhlo.add %[[X]], %[[X]] : (tensor<?x4xf32, #dhlo.shape<seq, 4>>, tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32, #dhlo.shape<seq, 4>>
// CHECK-NEXT: return %[[A]]
func.func @broadcast_to_own_shape(%x: tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32> {
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<seq, 4>} : (tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32>
  %1 = dhlo.add %0, %x : (tensor<?x4xf32>, tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// An identity transpose whose result type said nothing: the transpose
// equates the dims, the types coincide, the transpose folds.
// CHECK-LABEL: func.func @identity_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32, #dhlo.shape<seq, 4>>
// CHECK-NEXT: %[[T:.*]] = dhlo.tanh %[[X]] : (tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32, #dhlo.shape<seq, 4>>
// CHECK-NEXT: return %[[T]]
func.func @identity_transpose(%x: tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x?xf32> {
  %0 = dhlo.transpose %x {permutation = array<i64: 0, 1>} : (tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x?xf32>
  %1 = dhlo.tanh %0 : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// Product equalities make dims static (24 = 8 * ?) or polynomial
// (768 * batch * seq = 768 * ?).
// CHECK-LABEL: func.func @from_products
// CHECK-SAME: -> (tensor<3x8xf32>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>)
// CHECK-NEXT: dhlo.reshape %{{.*}} {shape = #dhlo.shape<-1, 8>} : (tensor<6x4xf32>) -> tensor<3x8xf32>
// CHECK-NEXT: dhlo.reshape %{{.*}} {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
func.func @from_products(%s: tensor<6x4xf32>, %x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> (tensor<?x8xf32>, tensor<?x768xf32>) {
  %0 = dhlo.reshape %s {shape = #dhlo.shape<-1, 8>} : (tensor<6x4xf32>) -> tensor<?x8xf32>
  %1 = dhlo.reshape %x {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32>
  return %0, %1 : tensor<?x8xf32>, tensor<?x768xf32>
}

// -----

// Facts flow through several ops: the transposed and reduced dims of the
// dot_general's result are named from its operands.
// CHECK-LABEL: func.func @through_ops
// CHECK-SAME: -> tensor<?x?xf32, #dhlo.shape<seq, batch>>
// CHECK-NEXT: dhlo.dot_general {{.*}} -> tensor<?x?x?xf32, #dhlo.shape<batch, seq, seq>>
// CHECK-NEXT: dhlo.reduce {{.*}} -> tensor<?x?xf32, #dhlo.shape<batch, seq>>
// CHECK-NEXT: dhlo.transpose {{.*}} -> tensor<?x?xf32, #dhlo.shape<seq, batch>>
func.func @through_ops(%q: tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>>, %k: tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>>) -> tensor<?x?xf32> {
  %0 = dhlo.dot_general %q, %k {lhs_batch_dimensions = array<i64: 0>, rhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 2>} : (tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>>, tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>>) -> tensor<?x?x?xf32>
  %1 = dhlo.reduce %0 {dimensions = array<i64: 2>, kind = "max"} : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  %2 = dhlo.transpose %1 {permutation = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}

// -----

// Not no-ops: a broadcast between two different symbols (n may be 1 and
// stretch), and a real transpose.
// CHECK-LABEL: func.func @kept
// CHECK-NEXT: dhlo.broadcast_in_dim %{{.*}} {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<m, 4>} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<m, 4>>
// CHECK-NEXT: dhlo.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<4x?xf32, #dhlo.shape<4, n>>
func.func @kept(%x: tensor<?x4xf32, #dhlo.shape<n, 4>>) -> (tensor<?x4xf32, #dhlo.shape<m, 4>>, tensor<?x?xf32>) {
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<m, 4>} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<m, 4>>
  %1 = dhlo.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x?xf32>
  return %0, %1 : tensor<?x4xf32, #dhlo.shape<m, 4>>, tensor<?x?xf32>
}

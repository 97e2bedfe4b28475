// RUN: %anyshape-opt %s -canonicalize | FileCheck %s
// -canonicalize folds and patterns of dhlo ops.
// reshape(reshape) merges, transpose(transpose)
// composes, and identity transposes, same-type converts, identity
// broadcasts and same-type reshapes fold away; ops that move data or change
// a (symbolic) shape stay.

// CHECK-LABEL: func.func @merge_reshapes
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>)
func.func @merge_reshapes(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>> {
  // CHECK-NEXT: %[[R:.*]] = dhlo.reshape %[[X]] {shape = #dhlo.shape<batch, seq, 12, 64>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>
  // CHECK-NEXT: return %[[R]]
  %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %1 = dhlo.reshape %0 {shape = #dhlo.shape<batch, seq, 12, 64>} : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>
  return %1 : tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>
}

// A chain of reshapes back to the operand's own type merges, then folds.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<6x4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<6x4xf32>
func.func @reshape_round_trip(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<24>} : (tensor<6x4xf32>) -> tensor<24xf32>
  %1 = dhlo.reshape %0 {shape = #dhlo.shape<2, 12>} : (tensor<24xf32>) -> tensor<2x12xf32>
  %2 = dhlo.reshape %1 {shape = #dhlo.shape<6, 4>} : (tensor<2x12xf32>) -> tensor<6x4xf32>
  return %2 : tensor<6x4xf32>
}

// An inner reshape with another use stays; the outer one reads the source.
// CHECK-LABEL: func.func @inner_reshape_kept
// CHECK-SAME: (%[[X:.*]]: tensor<6x4xf32>)
// CHECK-NEXT: %[[A:.*]] = dhlo.reshape %[[X]] {shape = #dhlo.shape<24>} : (tensor<6x4xf32>) -> tensor<24xf32>
// CHECK-NEXT: %[[B:.*]] = dhlo.reshape %[[X]] {shape = #dhlo.shape<3, 8>} : (tensor<6x4xf32>) -> tensor<3x8xf32>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @inner_reshape_kept(%x: tensor<6x4xf32>) -> (tensor<24xf32>, tensor<3x8xf32>) {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<24>} : (tensor<6x4xf32>) -> tensor<24xf32>
  %1 = dhlo.reshape %0 {shape = #dhlo.shape<3, 8>} : (tensor<24xf32>) -> tensor<3x8xf32>
  return %0, %1 : tensor<24xf32>, tensor<3x8xf32>
}

// transpose(transpose(x, p), q) = transpose(x, p o q): [0,2,1,3] then
// [0,3,1,2] is [0,3,2,1].
// CHECK-LABEL: func.func @compose_transposes
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>)
// CHECK-NEXT: %[[T:.*]] = dhlo.transpose %[[X]] {permutation = array<i64: 0, 3, 2, 1>} : (tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>) -> tensor<?x64x12x?xf32, #dhlo.shape<batch, 64, 12, seq>>
// CHECK-NEXT: return %[[T]]
func.func @compose_transposes(%x: tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>) -> tensor<?x64x12x?xf32, #dhlo.shape<batch, 64, 12, seq>> {
  %0 = dhlo.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : (tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>) -> tensor<?x12x?x64xf32, #dhlo.shape<batch, 12, seq, 64>>
  %1 = dhlo.transpose %0 {permutation = array<i64: 0, 3, 1, 2>} : (tensor<?x12x?x64xf32, #dhlo.shape<batch, 12, seq, 64>>) -> tensor<?x64x12x?xf32, #dhlo.shape<batch, 64, 12, seq>>
  return %1 : tensor<?x64x12x?xf32, #dhlo.shape<batch, 64, 12, seq>>
}

// A transpose and its inverse compose to the identity, which folds.
// CHECK-LABEL: func.func @inverse_transposes
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>)
// CHECK-NEXT: return %[[X]]
func.func @inverse_transposes(%x: tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>) -> tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>> {
  %0 = dhlo.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : (tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>) -> tensor<?x12x?x64xf32, #dhlo.shape<batch, 12, seq, 64>>
  %1 = dhlo.transpose %0 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<?x12x?x64xf32, #dhlo.shape<batch, 12, seq, 64>>) -> tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>
  return %1 : tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>
}

// Identity transpose, convert to the same type, identity broadcast and a
// reshape to the operand's own type all fold to the operand.
// CHECK-LABEL: func.func @folds
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32, #dhlo.shape<n, 4>>, %[[I:.*]]: tensor<3xi32>)
// CHECK-NEXT: return %[[X]], %[[I]], %[[X]], %[[X]] :
// CHECK-NEXT: }
func.func @folds(%x: tensor<?x4xf32, #dhlo.shape<n, 4>>, %i: tensor<3xi32>) -> (tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<3xi32>, tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<?x4xf32, #dhlo.shape<n, 4>>) {
  %0 = dhlo.transpose %x {permutation = array<i64: 0, 1>} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %1 = dhlo.convert %i : (tensor<3xi32>) -> tensor<3xi32>
  %2 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<n, 4>} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %3 = dhlo.reshape %x {shape = #dhlo.shape<n, 4>} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  return %0, %1, %2, %3 : tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<3xi32>, tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<?x4xf32, #dhlo.shape<n, 4>>
}

// Not no-ops: a transpose of a square [n, n] (same type, moves data), a
// broadcast to another symbol (n may be 1 and stretch to m), a real
// convert, a reshape swapping symbolic dims, a rank-growing broadcast.
// CHECK-LABEL: func.func @kept
// CHECK-NEXT: dhlo.transpose %{{.*}} {permutation = array<i64: 1, 0>}
// CHECK-NEXT: dhlo.broadcast_in_dim %{{.*}} {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<m, 4>}
// CHECK-NEXT: dhlo.convert %{{.*}} : (tensor<3xi32>) -> tensor<3xf32>
// CHECK-NEXT: dhlo.reshape %{{.*}} {shape = #dhlo.shape<b, a>}
// CHECK-NEXT: dhlo.broadcast_in_dim %{{.*}} {broadcast_dimensions = array<i64: 0>, shape = #dhlo.shape<n, 4>}
// CHECK-NEXT: return
func.func @kept(%sq: tensor<?x?xf32, #dhlo.shape<n, n>>, %x: tensor<?x4xf32, #dhlo.shape<n, 4>>, %i: tensor<3xi32>, %ab: tensor<?x?xf32, #dhlo.shape<a, b>>, %s: tensor<?xf32, #dhlo.shape<n>>) -> (tensor<?x?xf32, #dhlo.shape<n, n>>, tensor<?x4xf32, #dhlo.shape<m, 4>>, tensor<3xf32>, tensor<?x?xf32, #dhlo.shape<b, a>>, tensor<?x4xf32, #dhlo.shape<n, 4>>) {
  %0 = dhlo.transpose %sq {permutation = array<i64: 1, 0>} : (tensor<?x?xf32, #dhlo.shape<n, n>>) -> tensor<?x?xf32, #dhlo.shape<n, n>>
  %1 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<m, 4>} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<m, 4>>
  %2 = dhlo.convert %i : (tensor<3xi32>) -> tensor<3xf32>
  %3 = dhlo.reshape %ab {shape = #dhlo.shape<b, a>} : (tensor<?x?xf32, #dhlo.shape<a, b>>) -> tensor<?x?xf32, #dhlo.shape<b, a>>
  %4 = dhlo.broadcast_in_dim %s {broadcast_dimensions = array<i64: 0>, shape = #dhlo.shape<n, 4>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  return %0, %1, %2, %3, %4 : tensor<?x?xf32, #dhlo.shape<n, n>>, tensor<?x4xf32, #dhlo.shape<m, 4>>, tensor<3xf32>, tensor<?x?xf32, #dhlo.shape<b, a>>, tensor<?x4xf32, #dhlo.shape<n, 4>>
}

// dhlo ops are Pure: unused ones are erased (but -canonicalize does not CSE).
// CHECK-LABEL: func.func @dead_code
// CHECK-NEXT: dhlo.exp
// CHECK-NEXT: dhlo.exp
// CHECK-NEXT: dhlo.add
// CHECK-NEXT: return
func.func @dead_code(%x: tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>> {
  %0 = dhlo.exp %x : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %1 = dhlo.exp %x : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %2 = dhlo.add %0, %1 : (tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %3 = dhlo.tanh %x : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  return %2 : tensor<?x4xf32, #dhlo.shape<n, 4>>
}

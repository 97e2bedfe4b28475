// RUN: %anyshape-opt %s -canonicalize | FileCheck %s
// -canonicalize folds and patterns of dhlo ops.
// Reductions over a statically empty dim become their identity; those of
// a broadcast reduce its operand, those of merged dims the unmerged ones; a
// slice within one operand of a
// concatenate slices that operand.
// reshape(reshape) merges (also across an elementwise op between them),
// transpose(transpose)
// composes, and identity transposes, same-type converts, identity
// broadcasts and same-type reshapes fold away; ops that move data or change
// a (symbolic) shape stay; a unit-dim reshape of positions computed from
// an iota moves to the iota's layout.

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

// An elementwise op between a reshape to a unit dim and the reshape back
// runs on the outer shape (ONNX keepdims, then max with a splat); the
// splat is rebuilt there. With another operand not reshaped back, it stays.
// CHECK-LABEL: func.func @reshape_round_trip_through_elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32, #dhlo.shape<batch>>, %[[E:.*]]: tensor<f32>)
// CHECK-NEXT: %[[S:.*]] = dhlo.broadcast_in_dim %[[E]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<batch>} : (tensor<f32>) -> tensor<?xf32, #dhlo.shape<batch>>
// CHECK-NEXT: %[[M:.*]] = dhlo.max %[[X]], %[[S]] : (tensor<?xf32, #dhlo.shape<batch>>, tensor<?xf32, #dhlo.shape<batch>>) -> tensor<?xf32, #dhlo.shape<batch>>
// CHECK-NEXT: return %[[M]]
func.func @reshape_round_trip_through_elementwise(%x: tensor<?xf32, #dhlo.shape<batch>>, %eps: tensor<f32>) -> tensor<?xf32, #dhlo.shape<batch>> {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<batch, 1>} : (tensor<?xf32, #dhlo.shape<batch>>) -> tensor<?x1xf32, #dhlo.shape<batch, 1>>
  %1 = dhlo.broadcast_in_dim %eps {broadcast_dimensions = array<i64>, shape = #dhlo.shape<batch, 1>} : (tensor<f32>) -> tensor<?x1xf32, #dhlo.shape<batch, 1>>
  %2 = dhlo.max %0, %1 : (tensor<?x1xf32, #dhlo.shape<batch, 1>>, tensor<?x1xf32, #dhlo.shape<batch, 1>>) -> tensor<?x1xf32, #dhlo.shape<batch, 1>>
  %3 = dhlo.reshape %2 {shape = #dhlo.shape<batch>} : (tensor<?x1xf32, #dhlo.shape<batch, 1>>) -> tensor<?xf32, #dhlo.shape<batch>>
  return %3 : tensor<?xf32, #dhlo.shape<batch>>
}

// A view that splits a dim and one that then drops a unit dim, around an
// elementwise op (Falcon's alibi: [4b, 1, s] -> [b, 4, 1, s], scaled, ->
// [b, 4, s]), merge into one reshape of the source, the op on the outer
// shape.
// CHECK-LABEL: func.func @reshapes_merge_across_elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<?x1x?xf32, #dhlo.shape<"4*batch", 1, seq>>, %[[E:.*]]: tensor<f32>)
// CHECK-NEXT: %[[R:.*]] = dhlo.reshape %[[X]] {shape = #dhlo.shape<batch, 4, seq>} : (tensor<?x1x?xf32, #dhlo.shape<"4*batch", 1, seq>>) -> tensor<?x4x?xf32, #dhlo.shape<batch, 4, seq>>
// CHECK-NEXT: %[[S:.*]] = dhlo.broadcast_in_dim %[[E]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<batch, 4, seq>}
// CHECK-NEXT: %[[D:.*]] = dhlo.div %[[R]], %[[S]] : (tensor<?x4x?xf32, #dhlo.shape<batch, 4, seq>>, tensor<?x4x?xf32, #dhlo.shape<batch, 4, seq>>) -> tensor<?x4x?xf32, #dhlo.shape<batch, 4, seq>>
// CHECK-NEXT: return %[[D]]
func.func @reshapes_merge_across_elementwise(%x: tensor<?x1x?xf32, #dhlo.shape<"4*batch", 1, seq>>, %e: tensor<f32>) -> tensor<?x4x?xf32, #dhlo.shape<batch, 4, seq>> {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<batch, 4, 1, seq>} : (tensor<?x1x?xf32, #dhlo.shape<"4*batch", 1, seq>>) -> tensor<?x4x1x?xf32, #dhlo.shape<batch, 4, 1, seq>>
  %1 = dhlo.broadcast_in_dim %e {broadcast_dimensions = array<i64>, shape = #dhlo.shape<batch, 4, 1, seq>} : (tensor<f32>) -> tensor<?x4x1x?xf32, #dhlo.shape<batch, 4, 1, seq>>
  %2 = dhlo.div %0, %1 : (tensor<?x4x1x?xf32, #dhlo.shape<batch, 4, 1, seq>>, tensor<?x4x1x?xf32, #dhlo.shape<batch, 4, 1, seq>>) -> tensor<?x4x1x?xf32, #dhlo.shape<batch, 4, 1, seq>>
  %3 = dhlo.reshape %2 {shape = #dhlo.shape<batch, 4, seq>} : (tensor<?x4x1x?xf32, #dhlo.shape<batch, 4, 1, seq>>) -> tensor<?x4x?xf32, #dhlo.shape<batch, 4, seq>>
  return %3 : tensor<?x4x?xf32, #dhlo.shape<batch, 4, seq>>
}

// A broadcast of math on a keepdim row (PyTorch's layer norm:
// rsqrt(var.reshape([b, 1]) + eps) broadcast to [b, 8]) reads the row
// before the reshape, the math and its splat done on [b].
// CHECK-LABEL: func.func @broadcast_through_unit_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32, #dhlo.shape<batch>>, %[[E:.*]]: tensor<f32>)
// CHECK-NEXT: %[[S:.*]] = dhlo.broadcast_in_dim %[[E]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<batch>} : (tensor<f32>) -> tensor<?xf32, #dhlo.shape<batch>>
// CHECK-NEXT: %[[A:.*]] = dhlo.add %[[X]], %[[S]] : (tensor<?xf32, #dhlo.shape<batch>>, tensor<?xf32, #dhlo.shape<batch>>) -> tensor<?xf32, #dhlo.shape<batch>>
// CHECK-NEXT: %[[R:.*]] = dhlo.rsqrt %[[A]]
// CHECK-NEXT: %[[B:.*]] = dhlo.broadcast_in_dim %[[R]] {broadcast_dimensions = array<i64: 0>, shape = #dhlo.shape<batch, 8>}
// CHECK-NEXT: return %[[B]]
func.func @broadcast_through_unit_reshape(%x: tensor<?xf32, #dhlo.shape<batch>>, %eps: tensor<f32>) -> tensor<?x8xf32, #dhlo.shape<batch, 8>> {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<batch, 1>} : (tensor<?xf32, #dhlo.shape<batch>>) -> tensor<?x1xf32, #dhlo.shape<batch, 1>>
  %1 = dhlo.broadcast_in_dim %eps {broadcast_dimensions = array<i64>, shape = #dhlo.shape<batch, 1>} : (tensor<f32>) -> tensor<?x1xf32, #dhlo.shape<batch, 1>>
  %2 = dhlo.add %0, %1 : (tensor<?x1xf32, #dhlo.shape<batch, 1>>, tensor<?x1xf32, #dhlo.shape<batch, 1>>) -> tensor<?x1xf32, #dhlo.shape<batch, 1>>
  %3 = dhlo.rsqrt %2 : (tensor<?x1xf32, #dhlo.shape<batch, 1>>) -> tensor<?x1xf32, #dhlo.shape<batch, 1>>
  %4 = dhlo.broadcast_in_dim %3 {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<batch, 8>} : (tensor<?x1xf32, #dhlo.shape<batch, 1>>) -> tensor<?x8xf32, #dhlo.shape<batch, 8>>
  return %4 : tensor<?x8xf32, #dhlo.shape<batch, 8>>
}

// A broadcast reads its operand without the 1s it stretches: a [1] scale
// over a tensor is a broadcast of a scalar, a [b, 1, s, t] mask over the
// heads one of [b, s, t]. A 1 onto a 1 stays.
// CHECK-LABEL: func.func @broadcast_drops_stretched_unit_dims
// CHECK-SAME: (%[[SCALE:.*]]: tensor<1xf32>, %[[MASK:.*]]: tensor<?x1x?x?xf32, #dhlo.shape<b, 1, s, t>>, %[[ROW:.*]]: tensor<1x6xf32>)
// CHECK-DAG: %[[SCALAR:.*]] = dhlo.reshape %[[SCALE]] {shape = #dhlo.shape<>} : (tensor<1xf32>) -> tensor<f32>
// CHECK-DAG: %[[SCALES:.*]] = dhlo.broadcast_in_dim %[[SCALAR]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<2, 9, 8, 6>}
// CHECK-DAG: %[[PLANE:.*]] = dhlo.reshape %[[MASK]] {shape = #dhlo.shape<b, s, t>}
// CHECK-DAG: %[[MASKS:.*]] = dhlo.broadcast_in_dim %[[PLANE]] {broadcast_dimensions = array<i64: 0, 2, 3>, shape = #dhlo.shape<b, 4, s, t>}
// CHECK-DAG: %[[ROWS:.*]] = dhlo.broadcast_in_dim %[[ROW]] {broadcast_dimensions = array<i64: 0, 2>, shape = #dhlo.shape<1, 3, 6>}
// CHECK: return %[[SCALES]], %[[MASKS]], %[[ROWS]]
func.func @broadcast_drops_stretched_unit_dims(%scale: tensor<1xf32>, %mask: tensor<?x1x?x?xf32, #dhlo.shape<b, 1, s, t>>, %row: tensor<1x6xf32>) -> (tensor<2x9x8x6xf32>, tensor<?x4x?x?xf32, #dhlo.shape<b, 4, s, t>>, tensor<1x3x6xf32>) {
  %0 = dhlo.broadcast_in_dim %scale {broadcast_dimensions = array<i64: 3>, shape = #dhlo.shape<2, 9, 8, 6>} : (tensor<1xf32>) -> tensor<2x9x8x6xf32>
  %1 = dhlo.broadcast_in_dim %mask {broadcast_dimensions = array<i64: 0, 1, 2, 3>, shape = #dhlo.shape<b, 4, s, t>} : (tensor<?x1x?x?xf32, #dhlo.shape<b, 1, s, t>>) -> tensor<?x4x?x?xf32, #dhlo.shape<b, 4, s, t>>
  %2 = dhlo.broadcast_in_dim %row {broadcast_dimensions = array<i64: 0, 2>, shape = #dhlo.shape<1, 3, 6>} : (tensor<1x6xf32>) -> tensor<1x3x6xf32>
  return %0, %1, %2 : tensor<2x9x8x6xf32>, tensor<?x4x?x?xf32, #dhlo.shape<b, 4, s, t>>, tensor<1x3x6xf32>
}

// A round trip through unit dims across a chain (PyTorch's group norm:
// rsqrt(var.reshape([b, 4, 1, 1]) + eps) * weight broadcast there, then
// back to [b, 4]) runs on [b, 4], the per-channel weight broadcast into
// it; the wide product keeps serving its other user.
// CHECK-LABEL: func.func @reshape_round_trip_through_a_chain
// CHECK-SAME: (%[[V:.*]]: tensor<?x4xf32, #dhlo.shape<batch, 4>>, %[[E:.*]]: tensor<f32>, %[[W:.*]]: tensor<4xf32>)
// CHECK: %[[S:.*]] = dhlo.broadcast_in_dim %[[E]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<batch, 4>}
// CHECK: %[[A:.*]] = dhlo.add %[[V]], %[[S]] : (tensor<?x4xf32, #dhlo.shape<batch, 4>>
// CHECK: %[[R:.*]] = dhlo.rsqrt %[[A]] : (tensor<?x4xf32
// CHECK: %[[WB:.*]] = dhlo.broadcast_in_dim %[[W]] {broadcast_dimensions = array<i64: 1>, shape = #dhlo.shape<batch, 4>}
// CHECK: %[[M:.*]] = dhlo.mul %[[R]], %[[WB]] : (tensor<?x4xf32
// CHECK: return %[[M]], %{{.*}} : tensor<?x4xf32, #dhlo.shape<batch, 4>>, tensor<?x4x1x1xf32
func.func @reshape_round_trip_through_a_chain(%v: tensor<?x4xf32, #dhlo.shape<batch, 4>>, %eps: tensor<f32>, %w: tensor<4xf32>) -> (tensor<?x4xf32, #dhlo.shape<batch, 4>>, tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>) {
  %0 = dhlo.reshape %v {shape = #dhlo.shape<batch, 4, 1, 1>} : (tensor<?x4xf32, #dhlo.shape<batch, 4>>) -> tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>
  %1 = dhlo.broadcast_in_dim %eps {broadcast_dimensions = array<i64>, shape = #dhlo.shape<batch, 4, 1, 1>} : (tensor<f32>) -> tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>
  %2 = dhlo.add %0, %1 : (tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>, tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>) -> tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>
  %3 = dhlo.rsqrt %2 : (tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>) -> tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>
  %4 = dhlo.broadcast_in_dim %w {broadcast_dimensions = array<i64: 1>, shape = #dhlo.shape<batch, 4, 1, 1>} : (tensor<4xf32>) -> tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>
  %5 = dhlo.mul %3, %4 : (tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>, tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>) -> tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>
  %6 = dhlo.reshape %5 {shape = #dhlo.shape<batch, 4>} : (tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>) -> tensor<?x4xf32, #dhlo.shape<batch, 4>>
  return %6, %5 : tensor<?x4xf32, #dhlo.shape<batch, 4>>, tensor<?x4x1x1xf32, #dhlo.shape<batch, 4, 1, 1>>
}

// A broadcast that lands on a unit dim cannot move into [b, 4]: it stays.
// CHECK-LABEL: func.func @reshape_round_trip_broadcast_onto_a_unit_dim
// CHECK: dhlo.mul
// CHECK-SAME: tensor<?x4x1xf32
func.func @reshape_round_trip_broadcast_onto_a_unit_dim(%v: tensor<?x4xf32, #dhlo.shape<batch, 4>>, %w: tensor<1xf32>) -> tensor<?x4xf32, #dhlo.shape<batch, 4>> {
  %0 = dhlo.reshape %v {shape = #dhlo.shape<batch, 4, 1>} : (tensor<?x4xf32, #dhlo.shape<batch, 4>>) -> tensor<?x4x1xf32, #dhlo.shape<batch, 4, 1>>
  %1 = dhlo.broadcast_in_dim %w {broadcast_dimensions = array<i64: 2>, shape = #dhlo.shape<batch, 4, 1>} : (tensor<1xf32>) -> tensor<?x4x1xf32, #dhlo.shape<batch, 4, 1>>
  %2 = dhlo.mul %0, %1 : (tensor<?x4x1xf32, #dhlo.shape<batch, 4, 1>>, tensor<?x4x1xf32, #dhlo.shape<batch, 4, 1>>) -> tensor<?x4x1xf32, #dhlo.shape<batch, 4, 1>>
  %3 = dhlo.reshape %2 {shape = #dhlo.shape<batch, 4>} : (tensor<?x4x1xf32, #dhlo.shape<batch, 4, 1>>) -> tensor<?x4xf32, #dhlo.shape<batch, 4>>
  return %3 : tensor<?x4xf32, #dhlo.shape<batch, 4>>
}

// CHECK-LABEL: func.func @reshape_round_trip_with_another_operand
// CHECK: dhlo.max
// CHECK-SAME: tensor<?x1xf32
func.func @reshape_round_trip_with_another_operand(%x: tensor<?xf32, #dhlo.shape<batch>>, %y: tensor<?x1xf32, #dhlo.shape<batch, 1>>) -> tensor<?xf32, #dhlo.shape<batch>> {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<batch, 1>} : (tensor<?xf32, #dhlo.shape<batch>>) -> tensor<?x1xf32, #dhlo.shape<batch, 1>>
  %1 = dhlo.max %0, %y : (tensor<?x1xf32, #dhlo.shape<batch, 1>>, tensor<?x1xf32, #dhlo.shape<batch, 1>>) -> tensor<?x1xf32, #dhlo.shape<batch, 1>>
  %2 = dhlo.reshape %1 {shape = #dhlo.shape<batch>} : (tensor<?x1xf32, #dhlo.shape<batch, 1>>) -> tensor<?xf32, #dhlo.shape<batch>>
  return %2 : tensor<?xf32, #dhlo.shape<batch>>
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

// A concatenate's operand of size 0 along the dim is dropped; with one
// operand left, the concatenate is that operand.
// CHECK-LABEL: func.func @concatenate_without_empty_operands
// CHECK-SAME: (%[[X:.*]]: tensor<?x16xf32, #dhlo.shape<n, 16>>, %[[E:.*]]: tensor<?x0xf32, #dhlo.shape<n, 0>>, %[[Y:.*]]: tensor<?x2xf32, #dhlo.shape<n, 2>>)
// CHECK-NEXT: %[[C:.*]] = dhlo.concatenate %[[X]], %[[Y]] {dimension = 1 : i64}
// CHECK-NEXT: return %[[X]], %[[C]]
func.func @concatenate_without_empty_operands(%x: tensor<?x16xf32, #dhlo.shape<n, 16>>, %e: tensor<?x0xf32, #dhlo.shape<n, 0>>, %y: tensor<?x2xf32, #dhlo.shape<n, 2>>) -> (tensor<?x16xf32, #dhlo.shape<n, 16>>, tensor<?x18xf32, #dhlo.shape<n, 18>>) {
  %0 = dhlo.concatenate %x, %e {dimension = 1 : i64} : (tensor<?x16xf32, #dhlo.shape<n, 16>>, tensor<?x0xf32, #dhlo.shape<n, 0>>) -> tensor<?x16xf32, #dhlo.shape<n, 16>>
  %1 = dhlo.concatenate %x, %e, %y {dimension = 1 : i64} : (tensor<?x16xf32, #dhlo.shape<n, 16>>, tensor<?x0xf32, #dhlo.shape<n, 0>>, tensor<?x2xf32, #dhlo.shape<n, 2>>) -> tensor<?x18xf32, #dhlo.shape<n, 18>>
  return %0, %1 : tensor<?x16xf32, #dhlo.shape<n, 16>>, tensor<?x18xf32, #dhlo.shape<n, 18>>
}

// A concatenate of one operand is that operand.
// CHECK-LABEL: func.func @concatenate_of_one_operand
// CHECK-SAME: (%[[X:.*]]: tensor<?x16xf32, #dhlo.shape<n, 16>>)
// CHECK-NEXT: return %[[X]]
func.func @concatenate_of_one_operand(%x: tensor<?x16xf32, #dhlo.shape<n, 16>>) -> tensor<?x16xf32, #dhlo.shape<n, 16>> {
  %0 = dhlo.concatenate %x {dimension = 0 : i64} : (tensor<?x16xf32, #dhlo.shape<n, 16>>) -> tensor<?x16xf32, #dhlo.shape<n, 16>>
  return %0 : tensor<?x16xf32, #dhlo.shape<n, 16>>
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

// A reduction over a dim of static size 0 is its kind's identity,
// broadcast to the result's (symbolic or static) shape; one over a
// possibly empty symbolic dim stays.
// CHECK-LABEL: func.func @reduce_nothing
// CHECK-DAG: %[[NEG_INF:.*]] = dhlo.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[ONE:.*]] = dhlo.constant dense<1> : tensor<i32>
// CHECK-DAG: dhlo.broadcast_in_dim %[[NEG_INF]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<rows>} : (tensor<f32>) -> tensor<?xf32, #dhlo.shape<rows>>
// CHECK-DAG: dhlo.broadcast_in_dim %[[ONE]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<3>} : (tensor<i32>) -> tensor<3xi32>
// CHECK-DAG: dhlo.reduce %{{.*}} {dimensions = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32, #dhlo.shape<rows, cols>>)
// CHECK-NOT: dhlo.reduce
func.func @reduce_nothing(%x: tensor<?x0xf32, #dhlo.shape<rows, 0>>, %y: tensor<0x3xi32>, %z: tensor<?x?xf32, #dhlo.shape<rows, cols>>) -> (tensor<?xf32, #dhlo.shape<rows>>, tensor<3xi32>, tensor<?xf32, #dhlo.shape<rows>>) {
  %0 = dhlo.reduce %x {dimensions = array<i64: 1>, kind = "max"} : (tensor<?x0xf32, #dhlo.shape<rows, 0>>) -> tensor<?xf32, #dhlo.shape<rows>>
  %1 = dhlo.reduce %y {dimensions = array<i64: 0>, kind = "prod"} : (tensor<0x3xi32>) -> tensor<3xi32>
  %2 = dhlo.reduce %z {dimensions = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32, #dhlo.shape<rows, cols>>) -> tensor<?xf32, #dhlo.shape<rows>>
  return %0, %1, %2 : tensor<?xf32, #dhlo.shape<rows>>, tensor<3xi32>, tensor<?xf32, #dhlo.shape<rows>>
}

// A reduction over dims of static size 1 only is a reshape, whatever its
// kind (softmax over one key, a dim Dynamo specialised to 1); one that
// also reduces a symbolic dim stays.
// CHECK-LABEL: func.func @reduce_of_one
// CHECK-DAG: dhlo.reshape %arg0 {shape = #dhlo.shape<rows, heads>} : (tensor<?x?x1xf32, #dhlo.shape<rows, heads, 1>>) -> tensor<?x?xf32, #dhlo.shape<rows, heads>>
// CHECK-DAG: dhlo.reshape %arg1 {shape = #dhlo.shape<3>} : (tensor<1x3x1xi32>) -> tensor<3xi32>
// CHECK-DAG: dhlo.reduce %arg0 {dimensions = array<i64: 1, 2>, kind = "sum"}
func.func @reduce_of_one(%x: tensor<?x?x1xf32, #dhlo.shape<rows, heads, 1>>, %y: tensor<1x3x1xi32>) -> (tensor<?x?xf32, #dhlo.shape<rows, heads>>, tensor<3xi32>, tensor<?xf32, #dhlo.shape<rows>>) {
  %0 = dhlo.reduce %x {dimensions = array<i64: 2>, kind = "max"} : (tensor<?x?x1xf32, #dhlo.shape<rows, heads, 1>>) -> tensor<?x?xf32, #dhlo.shape<rows, heads>>
  %1 = dhlo.reduce %y {dimensions = array<i64: 0, 2>, kind = "prod"} : (tensor<1x3x1xi32>) -> tensor<3xi32>
  %2 = dhlo.reduce %x {dimensions = array<i64: 1, 2>, kind = "sum"} : (tensor<?x?x1xf32, #dhlo.shape<rows, heads, 1>>) -> tensor<?xf32, #dhlo.shape<rows>>
  return %0, %1, %2 : tensor<?x?xf32, #dhlo.shape<rows, heads>>, tensor<3xi32>, tensor<?xf32, #dhlo.shape<rows>>
}

// reduce(broadcast(x)) reduces x itself, then broadcasts what is kept. A
// max over repeated dims is x's max; a sum is multiplied by the copies:
// static sizes as a constant, symbolic ones read at run time. A stretched
// size-1 dim repeats like an introduced one (the broadcast reads y
// without it). A prod over repeated dims is
// left alone.
// CHECK-LABEL: func.func @reduce_of_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32, #dhlo.shape<n>>, %[[Y:.*]]: tensor<?x1xi32, #dhlo.shape<n, 1>>
// CHECK-DAG: %[[MAX:.*]] = dhlo.reduce %[[X]] {dimensions = array<i64: 0>, kind = "max"} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<f32>
// CHECK-DAG: %[[SUM:.*]] = dhlo.reduce %[[X]] {dimensions = array<i64: 0>, kind = "sum"} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<f32>
// CHECK-DAG: %[[SUM_M:.*]] = dhlo.broadcast_in_dim %[[SUM]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<m>}
// CHECK-DAG: %[[SQUARE:.*]] = dhlo.broadcast_in_dim %[[X]] {broadcast_dimensions = array<i64: 1>, shape = #dhlo.shape<m, n>}
// CHECK-DAG: %[[M:.*]] = dhlo.dim_size %[[SQUARE]] {dimension = 0 : i64}
// CHECK-DAG: %[[M_F32:.*]] = dhlo.convert %[[M]] : (tensor<i64>) -> tensor<f32>
// CHECK-DAG: %[[COPIES:.*]] = dhlo.broadcast_in_dim %[[M_F32]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<n>}
// CHECK-DAG: %[[ROW_SUM:.*]] = dhlo.mul %[[X]], %[[COPIES]]
// CHECK-DAG: %[[Y_ROW:.*]] = dhlo.reshape %[[Y]] {shape = #dhlo.shape<n>} : (tensor<?x1xi32, #dhlo.shape<n, 1>>) -> tensor<?xi32, #dhlo.shape<n>>
// CHECK-DAG: %[[Y_WIDE:.*]] = dhlo.broadcast_in_dim %[[Y_ROW]] {broadcast_dimensions = array<i64: 0>, shape = #dhlo.shape<n, 4>}
// CHECK-DAG: %[[THREE:.*]] = dhlo.constant dense<3> : tensor<i64>
// CHECK-DAG: %[[THREE_I32:.*]] = dhlo.convert %[[THREE]] : (tensor<i64>) -> tensor<i32>
// CHECK-DAG: %[[THREES:.*]] = dhlo.broadcast_in_dim %[[THREE_I32]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<n, 4>}
// CHECK-DAG: %[[Y_OUT:.*]] = dhlo.mul %[[Y_WIDE]], %[[THREES]]
// CHECK-DAG: %[[PROD:.*]] = dhlo.reduce %[[X]] {dimensions = array<i64: 0>, kind = "prod"} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<f32>
// CHECK-DAG: %[[PROD_M:.*]] = dhlo.broadcast_in_dim %[[PROD]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<m>}
// CHECK-DAG: %[[PROD_REPEATED:.*]] = dhlo.reduce %[[SQUARE]] {dimensions = array<i64: 0>, kind = "prod"} : (tensor<?x?xf32, #dhlo.shape<m, n>>)
// CHECK: return %[[MAX]], %[[SUM_M]], %[[ROW_SUM]], %[[Y_OUT]], %[[PROD_M]], %[[PROD_REPEATED]]
func.func @reduce_of_broadcast(%x: tensor<?xf32, #dhlo.shape<n>>, %y: tensor<?x1xi32, #dhlo.shape<n, 1>>, %z: tensor<?xf32, #dhlo.shape<m>>) -> (tensor<f32>, tensor<?xf32, #dhlo.shape<m>>, tensor<?xf32, #dhlo.shape<n>>, tensor<?x4xi32, #dhlo.shape<n, 4>>, tensor<?xf32, #dhlo.shape<m>>, tensor<?xf32, #dhlo.shape<n>>) {
  %cube = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0>, shape = #dhlo.shape<n, n, n>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x?x?xf32, #dhlo.shape<n, n, n>>
  %max = dhlo.reduce %cube {dimensions = array<i64: 0, 1, 2>, kind = "max"} : (tensor<?x?x?xf32, #dhlo.shape<n, n, n>>) -> tensor<f32>
  %square = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>, shape = #dhlo.shape<m, n>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x?xf32, #dhlo.shape<m, n>>
  %sum_m = dhlo.reduce %square {dimensions = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32, #dhlo.shape<m, n>>) -> tensor<?xf32, #dhlo.shape<m>>
  %row_sum = dhlo.reduce %square {dimensions = array<i64: 0>, kind = "sum"} : (tensor<?x?xf32, #dhlo.shape<m, n>>) -> tensor<?xf32, #dhlo.shape<n>>
  %wide = dhlo.broadcast_in_dim %y {broadcast_dimensions = array<i64: 0, 2>, shape = #dhlo.shape<n, 4, 3>} : (tensor<?x1xi32, #dhlo.shape<n, 1>>) -> tensor<?x4x3xi32, #dhlo.shape<n, 4, 3>>
  %y_out = dhlo.reduce %wide {dimensions = array<i64: 2>, kind = "sum"} : (tensor<?x4x3xi32, #dhlo.shape<n, 4, 3>>) -> tensor<?x4xi32, #dhlo.shape<n, 4>>
  %prod = dhlo.reduce %square {dimensions = array<i64: 1>, kind = "prod"} : (tensor<?x?xf32, #dhlo.shape<m, n>>) -> tensor<?xf32, #dhlo.shape<m>>
  %prod_repeated = dhlo.reduce %square {dimensions = array<i64: 0>, kind = "prod"} : (tensor<?x?xf32, #dhlo.shape<m, n>>) -> tensor<?xf32, #dhlo.shape<n>>
  return %max, %sum_m, %row_sum, %y_out, %prod, %prod_repeated : tensor<f32>, tensor<?xf32, #dhlo.shape<m>>, tensor<?xf32, #dhlo.shape<n>>, tensor<?x4xi32, #dhlo.shape<n, 4>>, tensor<?xf32, #dhlo.shape<m>>, tensor<?xf32, #dhlo.shape<n>>
}

// reduce(merge(x)) reduces x's dims, and reduce(f(merge(x), y)) for an
// elementwise f used once computes f on x's shape (y split to it): a
// reduced merged dim reduces every dim it merged, a kept merged dim is
// merged again after the reduction. A reduction of split dims, of an f
// used twice, of a merge something else reads too, or of a reshape that
// is no merge of dims (a symbolic 4*b from b and 4 is no view,
// ReshapeGroups.h) stays.
// CHECK-LABEL: func.func @reduce_of_merged_dims
// CHECK-SAME: (%[[X:.*]]: tensor<3x1x6x6xf32>, %[[W:.*]]: tensor<3x6x6xf32>, %[[K:.*]]: tensor<3x4x6xf32>, %[[S:.*]]: tensor<?x4x?xf32, #dhlo.shape<b, 4, s>>
// CHECK-DAG: %[[ALL:.*]] = dhlo.reduce %[[X]] {dimensions = array<i64: 0, 1, 2, 3>, kind = "sum"} : (tensor<3x1x6x6xf32>) -> tensor<f32>
// CHECK-DAG: %[[W4:.*]] = dhlo.reshape %[[W]] {shape = #dhlo.shape<3, 1, 6, 6>}
// CHECK-DAG: %[[PRODUCT:.*]] = dhlo.mul %[[X]], %[[W4]] : (tensor<3x1x6x6xf32>, tensor<3x1x6x6xf32>) -> tensor<3x1x6x6xf32>
// CHECK-DAG: %[[WEIGHTED:.*]] = dhlo.reduce %[[PRODUCT]] {dimensions = array<i64: 0, 1, 2, 3>, kind = "sum"}
// CHECK-DAG: %[[KEPT:.*]] = dhlo.reduce %[[K]] {dimensions = array<i64: 2>, kind = "max"} : (tensor<3x4x6xf32>) -> tensor<3x4xf32>
// CHECK-DAG: %[[REMERGED:.*]] = dhlo.reshape %[[KEPT]] {shape = #dhlo.shape<12>} : (tensor<3x4xf32>) -> tensor<12xf32>
// CHECK-DAG: %[[ROWS:.*]] = dhlo.reshape %[[S]] {shape = #dhlo.shape<"4*b", s>}
// CHECK-DAG: %[[NO_VIEW:.*]] = dhlo.reduce %[[ROWS]] {dimensions = array<i64: 1>, kind = "max"}
// CHECK-DAG: %[[SPLIT:.*]] = dhlo.reshape %[[W]] {shape = #dhlo.shape<3, 2, 3, 6>}
// CHECK-DAG: %[[OF_SPLIT:.*]] = dhlo.reduce %[[SPLIT]] {dimensions = array<i64: 2>, kind = "sum"}
// CHECK-DAG: %[[SHARED:.*]] = dhlo.reshape %[[X]] {shape = #dhlo.shape<3, 6, 6>}
// CHECK-DAG: %[[TWICE:.*]] = dhlo.neg %[[SHARED]]
// CHECK-DAG: %[[OF_TWICE:.*]] = dhlo.reduce %[[TWICE]] {dimensions = array<i64: 0, 1, 2>, kind = "sum"}
// CHECK-DAG: %[[OF_SHARED:.*]] = dhlo.reduce %[[SHARED]] {dimensions = array<i64: 1, 2>, kind = "max"}
// CHECK: return %[[ALL]], %[[WEIGHTED]], %[[REMERGED]], %[[NO_VIEW]], %[[OF_SPLIT]], %[[OF_TWICE]], %[[TWICE]], %[[OF_SHARED]]
func.func @reduce_of_merged_dims(%x: tensor<3x1x6x6xf32>, %w: tensor<3x6x6xf32>, %k: tensor<3x4x6xf32>, %s: tensor<?x4x?xf32, #dhlo.shape<b, 4, s>>) -> (tensor<f32>, tensor<f32>, tensor<12xf32>, tensor<?xf32, #dhlo.shape<"4*b">>, tensor<3x2x6xf32>, tensor<f32>, tensor<3x6x6xf32>, tensor<3xf32>) {
  %squeezed = dhlo.reshape %x {shape = #dhlo.shape<3, 6, 6>} : (tensor<3x1x6x6xf32>) -> tensor<3x6x6xf32>
  %all = dhlo.reduce %squeezed {dimensions = array<i64: 0, 1, 2>, kind = "sum"} : (tensor<3x6x6xf32>) -> tensor<f32>
  %squeezed_too = dhlo.reshape %x {shape = #dhlo.shape<3, 6, 6>} : (tensor<3x1x6x6xf32>) -> tensor<3x6x6xf32>
  %product = dhlo.mul %squeezed_too, %w : (tensor<3x6x6xf32>, tensor<3x6x6xf32>) -> tensor<3x6x6xf32>
  %weighted = dhlo.reduce %product {dimensions = array<i64: 0, 1, 2>, kind = "sum"} : (tensor<3x6x6xf32>) -> tensor<f32>
  %merged = dhlo.reshape %k {shape = #dhlo.shape<12, 6>} : (tensor<3x4x6xf32>) -> tensor<12x6xf32>
  %remerged = dhlo.reduce %merged {dimensions = array<i64: 1>, kind = "max"} : (tensor<12x6xf32>) -> tensor<12xf32>
  %rows = dhlo.reshape %s {shape = #dhlo.shape<"4*b", s>} : (tensor<?x4x?xf32, #dhlo.shape<b, 4, s>>) -> tensor<?x?xf32, #dhlo.shape<"4*b", s>>
  %no_view = dhlo.reduce %rows {dimensions = array<i64: 1>, kind = "max"} : (tensor<?x?xf32, #dhlo.shape<"4*b", s>>) -> tensor<?xf32, #dhlo.shape<"4*b">>
  %split = dhlo.reshape %w {shape = #dhlo.shape<3, 2, 3, 6>} : (tensor<3x6x6xf32>) -> tensor<3x2x3x6xf32>
  %of_split = dhlo.reduce %split {dimensions = array<i64: 2>, kind = "sum"} : (tensor<3x2x3x6xf32>) -> tensor<3x2x6xf32>
  %shared = dhlo.reshape %x {shape = #dhlo.shape<3, 6, 6>} : (tensor<3x1x6x6xf32>) -> tensor<3x6x6xf32>
  %twice = dhlo.neg %shared : (tensor<3x6x6xf32>) -> tensor<3x6x6xf32>
  %of_twice = dhlo.reduce %twice {dimensions = array<i64: 0, 1, 2>, kind = "sum"} : (tensor<3x6x6xf32>) -> tensor<f32>
  %of_shared = dhlo.reduce %shared {dimensions = array<i64: 1, 2>, kind = "max"} : (tensor<3x6x6xf32>) -> tensor<3xf32>
  return %all, %weighted, %remerged, %no_view, %of_split, %of_twice, %twice, %of_shared : tensor<f32>, tensor<f32>, tensor<12xf32>, tensor<?xf32, #dhlo.shape<"4*b">>, tensor<3x2x6xf32>, tensor<f32>, tensor<3x6x6xf32>, tensor<3xf32>
}

// A slice within one operand of a concatenate slices that operand (and
// folds away when it is all of it); one across two operands, or one whose
// bounds cannot be placed (b vs c), stays.
// CHECK-LABEL: func.func @slice_of_concatenate
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32, #dhlo.shape<a, b>>, %[[Y:.*]]: tensor<?x?xf32, #dhlo.shape<a, b>>, %[[Z:.*]]: tensor<?x?xf32, #dhlo.shape<a, c>>)
// CHECK-DAG: %[[CAT:.*]] = dhlo.concatenate %[[X]], %[[Y]] {dimension = 1 : i64}
// CHECK-DAG: %[[INNER:.*]] = dhlo.slice %[[Y]] {limit_indices = #dhlo.shape<a, "b - 1">, start_indices = #dhlo.shape<1, 1>, strides = array<i64: 1, 2>}
// CHECK-DAG: %[[ACROSS:.*]] = dhlo.slice %[[CAT]] {limit_indices = #dhlo.shape<a, "b + 1">, start_indices = #dhlo.shape<0, "b - 1">
// CHECK-DAG: %[[UNKNOWN:.*]] = dhlo.slice %{{.*}} {limit_indices = #dhlo.shape<a, "2*b">, start_indices = #dhlo.shape<0, b>
// CHECK: return %[[Y]], %[[INNER]], %[[ACROSS]], %[[UNKNOWN]]
func.func @slice_of_concatenate(%x: tensor<?x?xf32, #dhlo.shape<a, b>>, %y: tensor<?x?xf32, #dhlo.shape<a, b>>, %z: tensor<?x?xf32, #dhlo.shape<a, c>>) -> (tensor<?x?xf32, #dhlo.shape<a, b>>, tensor<?x?xf32, #dhlo.shape<"a - 1", ?>>, tensor<?x2xf32, #dhlo.shape<a, 2>>, tensor<?x?xf32, #dhlo.shape<a, b>>) {
  %cat = dhlo.concatenate %x, %y {dimension = 1 : i64} : (tensor<?x?xf32, #dhlo.shape<a, b>>, tensor<?x?xf32, #dhlo.shape<a, b>>) -> tensor<?x?xf32, #dhlo.shape<a, "2*b">>
  %second = dhlo.slice %cat {limit_indices = #dhlo.shape<a, "2*b">, start_indices = #dhlo.shape<0, b>, strides = array<i64>} : (tensor<?x?xf32, #dhlo.shape<a, "2*b">>) -> tensor<?x?xf32, #dhlo.shape<a, b>>
  %inner = dhlo.slice %cat {limit_indices = #dhlo.shape<a, "2*b - 1">, start_indices = #dhlo.shape<1, "b + 1">, strides = array<i64: 1, 2>} : (tensor<?x?xf32, #dhlo.shape<a, "2*b">>) -> tensor<?x?xf32, #dhlo.shape<"a - 1", ?>>
  %across = dhlo.slice %cat {limit_indices = #dhlo.shape<a, "b + 1">, start_indices = #dhlo.shape<0, "b - 1">, strides = array<i64>} : (tensor<?x?xf32, #dhlo.shape<a, "2*b">>) -> tensor<?x2xf32, #dhlo.shape<a, 2>>
  %cat2 = dhlo.concatenate %z, %y {dimension = 1 : i64} : (tensor<?x?xf32, #dhlo.shape<a, c>>, tensor<?x?xf32, #dhlo.shape<a, b>>) -> tensor<?x?xf32, #dhlo.shape<a, "b + c">>
  %unknown = dhlo.slice %cat2 {limit_indices = #dhlo.shape<a, "2*b">, start_indices = #dhlo.shape<0, b>, strides = array<i64>} : (tensor<?x?xf32, #dhlo.shape<a, "b + c">>) -> tensor<?x?xf32, #dhlo.shape<a, b>>
  return %second, %inner, %across, %unknown : tensor<?x?xf32, #dhlo.shape<a, b>>, tensor<?x?xf32, #dhlo.shape<"a - 1", ?>>, tensor<?x2xf32, #dhlo.shape<a, 2>>, tensor<?x?xf32, #dhlo.shape<a, b>>
}

// A unit-dim reshape of elementwise ops over an iota moves to their
// leaves: iotas and splats are generated in the new layout, function
// arguments reshaped (positions = iota + past, as a causal mask reads
// them). An iota along a removed unit dim, or another leaf, keeps it.
// CHECK-LABEL: func.func @reshape_of_positions
// CHECK-SAME: (%[[P:.*]]: tensor<i64>, %[[X:.*]]: tensor<?xi64, #dhlo.shape<p>>)
// CHECK-DAG: %[[I:.*]] = dhlo.iota {iota_dimension = 3 : i64} : tensor<1x1x1x?xi64, #dhlo.shape<1, 1, 1, p>>
// CHECK-DAG: %[[S:.*]] = dhlo.broadcast_in_dim %[[P]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<1, 1, 1, p>}
// CHECK: %[[A:.*]] = dhlo.add %[[I]], %[[S]]
// CHECK: %[[R:.*]] = dhlo.reshape %[[X]] {shape = #dhlo.shape<1, 1, 1, p>}
// CHECK: %[[B:.*]] = dhlo.sub %[[A]], %[[R]]
// CHECK-NEXT: return %[[B]]
func.func @reshape_of_positions(%past: tensor<i64>, %x: tensor<?xi64, #dhlo.shape<p>>) -> tensor<1x1x1x?xi64, #dhlo.shape<1, 1, 1, p>> {
  %0 = dhlo.iota {iota_dimension = 0 : i64} : tensor<?xi64, #dhlo.shape<p>>
  %1 = dhlo.broadcast_in_dim %past {broadcast_dimensions = array<i64>, shape = #dhlo.shape<p>} : (tensor<i64>) -> tensor<?xi64, #dhlo.shape<p>>
  %2 = dhlo.add %0, %1 : (tensor<?xi64, #dhlo.shape<p>>, tensor<?xi64, #dhlo.shape<p>>) -> tensor<?xi64, #dhlo.shape<p>>
  %3 = dhlo.sub %2, %x : (tensor<?xi64, #dhlo.shape<p>>, tensor<?xi64, #dhlo.shape<p>>) -> tensor<?xi64, #dhlo.shape<p>>
  %4 = dhlo.reshape %3 {shape = #dhlo.shape<1, 1, 1, p>} : (tensor<?xi64, #dhlo.shape<p>>) -> tensor<1x1x1x?xi64, #dhlo.shape<1, 1, 1, p>>
  return %4 : tensor<1x1x1x?xi64, #dhlo.shape<1, 1, 1, p>>
}

// CHECK-LABEL: func.func @reshape_of_positions_kept
// CHECK-COUNT-2: dhlo.reshape
// CHECK-NOT: dhlo.reshape
func.func @reshape_of_positions_kept(%x: tensor<?x?xi64, #dhlo.shape<n, p>>) -> (tensor<?xi64, #dhlo.shape<p>>, tensor<1x?xi64, #dhlo.shape<1, p>>) {
  %0 = dhlo.iota {iota_dimension = 0 : i64} : tensor<1x?xi64, #dhlo.shape<1, p>>
  %1 = dhlo.reshape %0 {shape = #dhlo.shape<p>} : (tensor<1x?xi64, #dhlo.shape<1, p>>) -> tensor<?xi64, #dhlo.shape<p>>
  %2 = dhlo.iota {iota_dimension = 0 : i64} : tensor<?xi64, #dhlo.shape<p>>
  %3 = dhlo.reduce %x {dimensions = array<i64: 0>, kind = "sum"} : (tensor<?x?xi64, #dhlo.shape<n, p>>) -> tensor<?xi64, #dhlo.shape<p>>
  %4 = dhlo.add %2, %3 : (tensor<?xi64, #dhlo.shape<p>>, tensor<?xi64, #dhlo.shape<p>>) -> tensor<?xi64, #dhlo.shape<p>>
  %5 = dhlo.reshape %4 {shape = #dhlo.shape<1, p>} : (tensor<?xi64, #dhlo.shape<p>>) -> tensor<1x?xi64, #dhlo.shape<1, p>>
  return %1, %5 : tensor<?xi64, #dhlo.shape<p>>, tensor<1x?xi64, #dhlo.shape<1, p>>
}

// A unit-dim reshape of math on broadcasts moves into the broadcasts
// (ALiBi's slopes times a computed [1, 1] factor, [1, h, 1] ->
// [1, h, 1, 1] at a key length of 1): an operand dim on a removed unit dim, itself 1, maps
// to the next unit dim of the new layout.
// CHECK-LABEL: func.func @reshape_of_broadcasts
// CHECK-SAME: (%[[S:.*]]: tensor<4x1xf32>, %[[F:.*]]: tensor<1x1xf32>)
// CHECK-DAG: %[[E:.*]] = dhlo.exp %[[F]]
// CHECK-DAG: %[[BS:.*]] = dhlo.broadcast_in_dim %[[S]] {broadcast_dimensions = array<i64: 1, 2>, shape = #dhlo.shape<1, 4, 1, 1>}
// CHECK-DAG: %[[BF:.*]] = dhlo.broadcast_in_dim %[[E]] {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<1, 4, 1, 1>}
// CHECK: %[[M:.*]] = dhlo.mul %[[BS]], %[[BF]] : (tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT: return %[[M]]
func.func @reshape_of_broadcasts(%slopes: tensor<4x1xf32>, %factor: tensor<1x1xf32>) -> tensor<1x4x1x1xf32> {
  %0 = dhlo.broadcast_in_dim %slopes {broadcast_dimensions = array<i64: 1, 2>, shape = #dhlo.shape<1, 4, 1>} : (tensor<4x1xf32>) -> tensor<1x4x1xf32>
  %e = dhlo.exp %factor : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %1 = dhlo.broadcast_in_dim %e {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<1, 4, 1>} : (tensor<1x1xf32>) -> tensor<1x4x1xf32>
  %2 = dhlo.mul %0, %1 : (tensor<1x4x1xf32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %3 = dhlo.reshape %2 {shape = #dhlo.shape<1, 4, 1, 1>} : (tensor<1x4x1xf32>) -> tensor<1x4x1x1xf32>
  return %3 : tensor<1x4x1x1xf32>
}

// A broadcast that only puts back the unit dims reshapes took out undoes
// them, through math on the narrow value (a softmax over one key, where
// its max is a reshape, and ONNX 23's guard for an all -inf row). One
// that stretches a dim stays.
// CHECK-LABEL: func.func @broadcast_undoes_unit_reshapes
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x1xf32, #dhlo.shape<b, 4, 1>>, %[[Z:.*]]: tensor<f32>)
// CHECK: %[[S:.*]] = dhlo.broadcast_in_dim %[[Z]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<b, 4, 1>}
// CHECK: %[[C:.*]] = dhlo.compare %[[X]], %[[S]] {direction = "EQ"} : (tensor<?x4x1xf32, #dhlo.shape<b, 4, 1>>
// CHECK: %[[G:.*]] = dhlo.select %[[C]], %{{.*}}, %[[X]] : (tensor<?x4x1xi1, #dhlo.shape<b, 4, 1>>
// CHECK: %[[D:.*]] = dhlo.sub %[[X]], %[[G]]
// CHECK: %[[W:.*]] = dhlo.broadcast_in_dim %{{.*}} {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<b, 4, 3>}
// CHECK: return %[[D]], %[[W]]
func.func @broadcast_undoes_unit_reshapes(%x: tensor<?x4x1xf32, #dhlo.shape<b, 4, 1>>, %zero: tensor<f32>) -> (tensor<?x4x1xf32, #dhlo.shape<b, 4, 1>>, tensor<?x4x3xf32, #dhlo.shape<b, 4, 3>>) {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<b, 4>} : (tensor<?x4x1xf32, #dhlo.shape<b, 4, 1>>) -> tensor<?x4xf32, #dhlo.shape<b, 4>>
  %1 = dhlo.broadcast_in_dim %zero {broadcast_dimensions = array<i64>, shape = #dhlo.shape<b, 4>} : (tensor<f32>) -> tensor<?x4xf32, #dhlo.shape<b, 4>>
  %2 = dhlo.compare %0, %1 {direction = "EQ"} : (tensor<?x4xf32, #dhlo.shape<b, 4>>, tensor<?x4xf32, #dhlo.shape<b, 4>>) -> tensor<?x4xi1, #dhlo.shape<b, 4>>
  %3 = dhlo.select %2, %1, %0 : (tensor<?x4xi1, #dhlo.shape<b, 4>>, tensor<?x4xf32, #dhlo.shape<b, 4>>, tensor<?x4xf32, #dhlo.shape<b, 4>>) -> tensor<?x4xf32, #dhlo.shape<b, 4>>
  %4 = dhlo.broadcast_in_dim %3 {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<b, 4, 1>} : (tensor<?x4xf32, #dhlo.shape<b, 4>>) -> tensor<?x4x1xf32, #dhlo.shape<b, 4, 1>>
  %5 = dhlo.sub %x, %4 : (tensor<?x4x1xf32, #dhlo.shape<b, 4, 1>>, tensor<?x4x1xf32, #dhlo.shape<b, 4, 1>>) -> tensor<?x4x1xf32, #dhlo.shape<b, 4, 1>>
  %6 = dhlo.broadcast_in_dim %0 {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<b, 4, 3>} : (tensor<?x4xf32, #dhlo.shape<b, 4>>) -> tensor<?x4x3xf32, #dhlo.shape<b, 4, 3>>
  return %5, %6 : tensor<?x4x1xf32, #dhlo.shape<b, 4, 1>>, tensor<?x4x3xf32, #dhlo.shape<b, 4, 3>>
}

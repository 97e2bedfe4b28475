// RUN: %anyshape-opt %s -split-input-file -pass-pipeline='builtin.module(dhlo-simplify)' | FileCheck %s
// The dhlo-simplify pipeline end to end.
// Shape propagation names the dims
// of IR typed with plain ?, simplification canonicalises them, canonicalize
// merges and folds reshapes and transposes and drops dead ops, CSE merges
// duplicates.

// CHECK-LABEL: func.func @bias_add_flatten_unflatten
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, %[[BIAS:.*]]: tensor<768xf32>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
// The two identical broadcasts are one after CSE.
// CHECK-NEXT: %[[B:.*]] = dhlo.broadcast_in_dim %[[BIAS]] {broadcast_dimensions = array<i64: 2>, shape = #dhlo.shape<batch, seq, 768>} : (tensor<768xf32>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
// CHECK-NEXT: %[[A:.*]] = dhlo.add %[[X]], %[[B]] : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
// CHECK-NEXT: %[[C:.*]] = dhlo.add %[[A]], %[[B]] : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
// The flatten / unflatten pair merges into a reshape to the same type,
// which folds; so does the identity transpose. The dead tanh is gone.
// CHECK-NEXT: %[[E:.*]] = dhlo.exp %[[C]] : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
// CHECK-NEXT: return %[[E]] : tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
// CHECK-NEXT: }
func.func @bias_add_flatten_unflatten(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, %bias: tensor<768xf32>) -> tensor<?x?x?xf32> {
  %b1 = dhlo.broadcast_in_dim %bias {broadcast_dimensions = array<i64: 2>, shape = #dhlo.shape<batch, seq, 768>} : (tensor<768xf32>) -> tensor<?x?x?xf32>
  %b2 = dhlo.broadcast_in_dim %bias {broadcast_dimensions = array<i64: 2>, shape = #dhlo.shape<batch, seq, 768>} : (tensor<768xf32>) -> tensor<?x?x?xf32>
  %a = dhlo.add %x, %b1 : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %c = dhlo.add %a, %b2 : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %r = dhlo.reshape %c {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  %r2 = dhlo.reshape %r {shape = #dhlo.shape<batch, seq, 768>} : (tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %t = dhlo.transpose %r2 {permutation = array<i64: 0, 1, 2>} : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %e = dhlo.exp %t : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %u = dhlo.tanh %x : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
  return %e : tensor<?x?x?xf32>
}

// -----

// A head split followed by a chain of transposes: the first two cancel, the
// third remains, every type is named.
// CHECK-LABEL: func.func @heads
// CHECK-SAME: -> tensor<?x12x64x?xf32, #dhlo.shape<batch, 12, 64, seq>>
// CHECK-NEXT: %[[R:.*]] = dhlo.reshape %{{.*}} {shape = #dhlo.shape<batch, seq, 12, 64>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>
// CHECK-NEXT: %[[T:.*]] = dhlo.transpose %[[R]] {permutation = array<i64: 0, 2, 3, 1>} : (tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>) -> tensor<?x12x64x?xf32, #dhlo.shape<batch, 12, 64, seq>>
// CHECK-NEXT: return %[[T]]
func.func @heads(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x?x?xf32> {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<batch, seq, 12, 64>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x?x?xf32>
  %1 = dhlo.transpose %0 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %2 = dhlo.transpose %1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %3 = dhlo.transpose %2 {permutation = array<i64: 0, 2, 3, 1>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %3 : tensor<?x?x?x?xf32>
}

// -----

// A fresh "?3" tied to seq by an add is renamed seq everywhere; the
// broadcast of the iota to its own (now equal) shape folds away.
// CHECK-LABEL: func.func @fresh_symbol
// CHECK-SAME: (%[[Y:.*]]: tensor<?xf32, #dhlo.shape<seq>>) -> tensor<?xf32, #dhlo.shape<seq>>
// CHECK-NEXT: %[[I:.*]] = dhlo.iota {iota_dimension = 0 : i64} : tensor<?xf32, #dhlo.shape<seq>>
// CHECK-NEXT: %[[A:.*]] = dhlo.add %[[I]], %[[Y]] : (tensor<?xf32, #dhlo.shape<seq>>, tensor<?xf32, #dhlo.shape<seq>>) -> tensor<?xf32, #dhlo.shape<seq>>
// CHECK-NEXT: return %[[A]]
func.func @fresh_symbol(%y: tensor<?xf32, #dhlo.shape<seq>>) -> tensor<?xf32> {
  %i = dhlo.iota {iota_dimension = 0 : i64} : tensor<?xf32, #dhlo.shape<"?3">>
  %b = dhlo.broadcast_in_dim %i {broadcast_dimensions = array<i64: 0>, shape = #dhlo.shape<?>} : (tensor<?xf32, #dhlo.shape<"?3">>) -> tensor<?xf32>
  %0 = dhlo.add %b, %y : (tensor<?xf32>, tensor<?xf32, #dhlo.shape<seq>>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Static shapes: a reshape chain collapses and its -1 is computed.
// CHECK-LABEL: func.func @static
// CHECK-SAME: (%[[X:.*]]: tensor<6x4xi32>) -> tensor<3x8xi32>
// CHECK-NEXT: %[[R:.*]] = dhlo.reshape %[[X]] {shape = #dhlo.shape<-1, 8>} : (tensor<6x4xi32>) -> tensor<3x8xi32>
// CHECK-NEXT: return %[[R]]
func.func @static(%x: tensor<6x4xi32>) -> tensor<?x?xi32> {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<24>} : (tensor<6x4xi32>) -> tensor<?xi32>
  %1 = dhlo.reshape %0 {shape = #dhlo.shape<-1, 8>} : (tensor<?xi32>) -> tensor<?x?xi32>
  return %1 : tensor<?x?xi32>
}

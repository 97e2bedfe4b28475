// RUN: %anyshape-opt %s -split-input-file -pass-pipeline='builtin.module(dhlo-shape-propagation, dhlo-shape-simplification, canonicalize)' | FileCheck %s
// Regressions of the shape passes and folds: signatures follow retyped
// arguments; equal types with unknown dims never fold a reshape or a
// broadcast; values with non-dhlo users and called functions keep their
// types; contradictions leave types alone.

// An argument merged with a named class is retyped; the signature follows.
// CHECK-LABEL: func @retyped_argument
// CHECK-SAME: (%{{.*}}: tensor<?xf32, #dhlo.shape<n>>, %{{.*}}: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>>
// CHECK: dhlo.add
func.func @retyped_argument(%a: tensor<?xf32>, %b: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32> {
  %0 = dhlo.add %a, %b : (tensor<?xf32>, tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Nothing known: no encoding is invented.
// CHECK-LABEL: func @unknown_stays_plain
// CHECK-SAME: (%{{.*}}: tensor<?xf32>) -> tensor<?xf32>
func.func @unknown_stays_plain(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = dhlo.exp %a : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// [k, m] from a 2x3 at run time is 3x2: not the operand, though the
// (unknown) types are equal.
// CHECK-LABEL: func @reshape_unknown_dims
// CHECK: dhlo.reshape
func.func @reshape_unknown_dims(%x: tensor<?x?xf32>, %y: tensor<?x?xf32, #dhlo.shape<k, m>>) -> tensor<?x?xf32> {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<k, m>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A dim that may be 1 stretches to m: not a no-op.
// CHECK-LABEL: func @broadcast_unknown_dim
// CHECK: dhlo.broadcast_in_dim
func.func @broadcast_unknown_dim(%x: tensor<?xf32>, %y: tensor<?xf32, #dhlo.shape<m>>) -> tensor<?xf32> {
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0>, shape = #dhlo.shape<m>} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A value used by arith keeps its exact type; a called function keeps its
// signature.
// CHECK-LABEL: func @callee
// CHECK-SAME: (%{{.*}}: tensor<?xf32>) -> tensor<?xf32>
func.func @callee(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = dhlo.exp %a : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
// CHECK-LABEL: func @caller
// CHECK: call @callee(%{{.*}}) : (tensor<?xf32>) -> tensor<?xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<?xf32>
func.func @caller(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = func.call @callee(%a) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = dhlo.neg %0 : (tensor<?xf32>) -> tensor<?xf32>
  %2 = arith.addf %1, %1 : tensor<?xf32>
  return %2 : tensor<?xf32>
}

// -----

// A broadcast that stretches a static 1 of a value with a fresh size
// ("?0", which validation could not write) leaves the value as it is: no
// reshape can name "?0". Dropping the 1 built one anyway, and its type
// inference aborted the compile (PVT's position table, reshaped by a -1
// that does not divide).
// CHECK-LABEL: func.func @stretch_beside_a_fresh_size
// CHECK-NOT: dhlo.reshape
// CHECK: dhlo.broadcast_in_dim %arg0 {broadcast_dimensions = array<i64: 0, 1, 2>
func.func @stretch_beside_a_fresh_size(%x: tensor<1x?x?xf32, #dhlo.shape<1, n, "?0">>) -> tensor<?x?x16xf32, #dhlo.shape<b, n, 16>> {
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0, 1, 2>, shape = #dhlo.shape<b, n, 16>} : (tensor<1x?x?xf32, #dhlo.shape<1, n, "?0">>) -> tensor<?x?x16xf32, #dhlo.shape<b, n, 16>>
  return %0 : tensor<?x?x16xf32, #dhlo.shape<b, n, 16>>
}

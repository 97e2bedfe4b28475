// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of broadcast_in_dim.
// Covers bias broadcasts, size-1 stretching,
// unsorted and anonymous (?) target dims, scalars to polynomial shapes.

// CHECK-LABEL: func.func @bias
// CHECK-SAME: (%[[B:.*]]: tensor<768xf32>)
func.func @bias(%bias: tensor<768xf32>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>> {
  // CHECK-NEXT: %[[R:.*]] = dhlo.broadcast_in_dim %[[B]] {broadcast_dimensions = array<i64: 2>, shape = #dhlo.shape<batch, seq, 768>} : (tensor<768xf32>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
  %0 = dhlo.broadcast_in_dim %bias {broadcast_dimensions = array<i64: 2>, shape = #dhlo.shape<batch, seq, 768>} : (tensor<768xf32>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
  // CHECK-NEXT: return %[[R]]
  return %0 : tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
}

// The attention mask: the static 1 stretches to 12.
// CHECK-LABEL: func.func @stretch
func.func @stretch(%m: tensor<?x1x?xf32, #dhlo.shape<batch, 1, seq>>) -> tensor<?x12x?x?xf32, #dhlo.shape<batch, 12, seq, seq>> {
  // CHECK-NEXT: dhlo.broadcast_in_dim %{{.*}} {broadcast_dimensions = array<i64: 0, 1, 3>, shape = #dhlo.shape<batch, 12, seq, seq>} : (tensor<?x1x?xf32, #dhlo.shape<batch, 1, seq>>) -> tensor<?x12x?x?xf32, #dhlo.shape<batch, 12, seq, seq>>
  %0 = dhlo.broadcast_in_dim %m {broadcast_dimensions = array<i64: 0, 1, 3>, shape = #dhlo.shape<batch, 12, seq, seq>} : (tensor<?x1x?xf32, #dhlo.shape<batch, 1, seq>>) -> tensor<?x12x?x?xf32, #dhlo.shape<batch, 12, seq, seq>>
  return %0 : tensor<?x12x?x?xf32, #dhlo.shape<batch, 12, seq, seq>>
}

// Unsorted broadcast_dimensions; `?` target dims take the mapped operand dim.
// CHECK-LABEL: func.func @anonymous_targets
func.func @anonymous_targets(%x: tensor<?x?xf32, #dhlo.shape<n, k>>) -> tensor<?x3x?xf32, #dhlo.shape<k, 3, n>> {
  // CHECK-NEXT: dhlo.broadcast_in_dim %{{.*}} {broadcast_dimensions = array<i64: 2, 0>, shape = #dhlo.shape<?, 3, ?>} : (tensor<?x?xf32, #dhlo.shape<n, k>>) -> tensor<?x3x?xf32, #dhlo.shape<k, 3, n>>
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 2, 0>, shape = #dhlo.shape<?, 3, ?>} : (tensor<?x?xf32, #dhlo.shape<n, k>>) -> tensor<?x3x?xf32, #dhlo.shape<k, 3, n>>
  return %0 : tensor<?x3x?xf32, #dhlo.shape<k, 3, n>>
}

// A scalar broadcast to a polynomial dim, with other dtypes.
// CHECK-LABEL: func.func @scalars
func.func @scalars(%s: tensor<bf16>, %i: tensor<i64>, %p: tensor<i1>) -> (tensor<?x5xbf16, #dhlo.shape<"2*n + 1", 5>>, tensor<2x3xi64>, tensor<?xi1, #dhlo.shape<"batch*seq">>) {
  // CHECK-NEXT: dhlo.broadcast_in_dim %{{.*}} {broadcast_dimensions = array<i64>, shape = #dhlo.shape<"2*n + 1", 5>} : (tensor<bf16>) -> tensor<?x5xbf16, #dhlo.shape<"2*n + 1", 5>>
  %0 = dhlo.broadcast_in_dim %s {broadcast_dimensions = array<i64>, shape = #dhlo.shape<"2*n + 1", 5>} : (tensor<bf16>) -> tensor<?x5xbf16, #dhlo.shape<"2*n + 1", 5>>
  // CHECK-NEXT: dhlo.broadcast_in_dim %{{.*}} {broadcast_dimensions = array<i64>, shape = #dhlo.shape<2, 3>} : (tensor<i64>) -> tensor<2x3xi64>
  %1 = dhlo.broadcast_in_dim %i {broadcast_dimensions = array<i64>, shape = #dhlo.shape<2, 3>} : (tensor<i64>) -> tensor<2x3xi64>
  // CHECK-NEXT: dhlo.broadcast_in_dim %{{.*}} {broadcast_dimensions = array<i64>, shape = #dhlo.shape<"batch*seq">} : (tensor<i1>) -> tensor<?xi1, #dhlo.shape<"batch*seq">>
  %2 = dhlo.broadcast_in_dim %p {broadcast_dimensions = array<i64>, shape = #dhlo.shape<"batch*seq">} : (tensor<i1>) -> tensor<?xi1, #dhlo.shape<"batch*seq">>
  return %0, %1, %2 : tensor<?x5xbf16, #dhlo.shape<"2*n + 1", 5>>, tensor<2x3xi64>, tensor<?xi1, #dhlo.shape<"batch*seq">>
}

// A symbolic operand dim against a different target symbol is allowed (the
// operand dim may be 1 at run time); the result takes the target.
// CHECK-LABEL: func.func @symbolic_operand_dim
func.func @symbolic_operand_dim(%x: tensor<?x?xf32, #dhlo.shape<n, k>>) -> tensor<?x6xf32, #dhlo.shape<m, 6>> {
  // CHECK-NEXT: dhlo.broadcast_in_dim %{{.*}} {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<m, 6>} : (tensor<?x?xf32, #dhlo.shape<n, k>>) -> tensor<?x6xf32, #dhlo.shape<m, 6>>
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<m, 6>} : (tensor<?x?xf32, #dhlo.shape<n, k>>) -> tensor<?x6xf32, #dhlo.shape<m, 6>>
  return %0 : tensor<?x6xf32, #dhlo.shape<m, 6>>
}

// The identity broadcast round-trips unchanged (it only folds under
// -canonicalize).
// CHECK-LABEL: func.func @identity
func.func @identity(%x: tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>> {
  // CHECK-NEXT: dhlo.broadcast_in_dim %{{.*}} {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<n, 4>} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<n, 4>} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xf32, #dhlo.shape<n, 4>>
}

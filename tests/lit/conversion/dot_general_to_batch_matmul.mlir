// RUN: %anyshape-opt %s -split-input-file --dhlo-convert-to-linalg | FileCheck %s
// f32 dot_general becomes one linalg batch matmul over [batch, M, K] and
// [batch, K, N]. An operand already laid out the other way round is not
// copied into that order: B as [batch, N, K] (attention's Q x K^T, both
// operands contracting their last dim) gives batch_matmul_transpose_b,
// A as [batch, K, M] batch_matmul_transpose_a; any other order is a
// linalg.transpose first.

// CHECK-LABEL: func @projection
// CHECK-NOT: linalg.transpose
// CHECK: linalg.batch_matmul ins
func.func @projection(%x: tensor<?x768xf32, #dhlo.shape<seq, 768>>, %w: tensor<768x64xf32>) -> tensor<?x64xf32, #dhlo.shape<seq, 64>> {
  %0 = dhlo.dot_general %x, %w {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x768xf32, #dhlo.shape<seq, 768>>, tensor<768x64xf32>) -> tensor<?x64xf32, #dhlo.shape<seq, 64>>
  return %0 : tensor<?x64xf32, #dhlo.shape<seq, 64>>
}

// -----

// CHECK-LABEL: func @attention_scores
// CHECK-NOT: linalg.transpose
// CHECK: linalg.batch_matmul_transpose_b ins
// CHECK-NOT: linalg.transpose
func.func @attention_scores(%q: tensor<?x12x?x64xf32, #dhlo.shape<batch, 12, seq, 64>>, %k: tensor<?x12x?x64xf32, #dhlo.shape<batch, 12, seq, 64>>) -> tensor<?x12x?x?xf32, #dhlo.shape<batch, 12, seq, seq>> {
  %0 = dhlo.dot_general %q, %k {lhs_batch_dimensions = array<i64: 0, 1>, rhs_batch_dimensions = array<i64: 0, 1>, lhs_contracting_dimensions = array<i64: 3>, rhs_contracting_dimensions = array<i64: 3>} : (tensor<?x12x?x64xf32, #dhlo.shape<batch, 12, seq, 64>>, tensor<?x12x?x64xf32, #dhlo.shape<batch, 12, seq, 64>>) -> tensor<?x12x?x?xf32, #dhlo.shape<batch, 12, seq, seq>>
  return %0 : tensor<?x12x?x?xf32, #dhlo.shape<batch, 12, seq, seq>>
}

// -----

// CHECK-LABEL: func @lhs_contracts_first
// CHECK-NOT: linalg.transpose
// CHECK: linalg.batch_matmul_transpose_a ins
func.func @lhs_contracts_first(%a: tensor<?x5x3xf32, #dhlo.shape<b, 5, 3>>, %c: tensor<?x5x7xf32, #dhlo.shape<b, 5, 7>>) -> tensor<?x3x7xf32, #dhlo.shape<b, 3, 7>> {
  %0 = dhlo.dot_general %a, %c {lhs_batch_dimensions = array<i64: 0>, rhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<?x5x3xf32, #dhlo.shape<b, 5, 3>>, tensor<?x5x7xf32, #dhlo.shape<b, 5, 7>>) -> tensor<?x3x7xf32, #dhlo.shape<b, 3, 7>>
  return %0 : tensor<?x3x7xf32, #dhlo.shape<b, 3, 7>>
}

// -----

// Both operands the other way round: B is read transposed, A copied.
// CHECK-LABEL: func @both_reversed
// CHECK: linalg.transpose
// CHECK-NOT: linalg.transpose
// CHECK: linalg.batch_matmul_transpose_b ins
func.func @both_reversed(%a: tensor<5x3xf32>, %c: tensor<7x5xf32>) -> tensor<3x7xf32> {
  %0 = dhlo.dot_general %a, %c {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<5x3xf32>, tensor<7x5xf32>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}

// -----

// The batch dim in the middle: neither order holds without a transpose.
// CHECK-LABEL: func @batch_in_the_middle
// CHECK: linalg.transpose
// CHECK: linalg.batch_matmul ins
func.func @batch_in_the_middle(%a: tensor<3x?x5xf32, #dhlo.shape<3, b, 5>>, %c: tensor<?x5x7xf32, #dhlo.shape<b, 5, 7>>) -> tensor<?x3x7xf32, #dhlo.shape<b, 3, 7>> {
  %0 = dhlo.dot_general %a, %c {lhs_batch_dimensions = array<i64: 1>, rhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<3x?x5xf32, #dhlo.shape<3, b, 5>>, tensor<?x5x7xf32, #dhlo.shape<b, 5, 7>>) -> tensor<?x3x7xf32, #dhlo.shape<b, 3, 7>>
  return %0 : tensor<?x3x7xf32, #dhlo.shape<b, 3, 7>>
}

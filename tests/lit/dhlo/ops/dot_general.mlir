// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of dot_general.
// Covers a projection (contracting only), attention
// (batch + contracting), a full contraction to a scalar, integer dtypes.

// CHECK-LABEL: func.func @projection
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, %[[W:.*]]: tensor<768x3072xf32>)
func.func @projection(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, %w: tensor<768x3072xf32>) -> tensor<?x?x3072xf32, #dhlo.shape<batch, seq, 3072>> {
  // CHECK-NEXT: %[[D:.*]] = dhlo.dot_general %[[X]], %[[W]] {lhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 2>, rhs_batch_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, tensor<768x3072xf32>) -> tensor<?x?x3072xf32, #dhlo.shape<batch, seq, 3072>>
  %0 = dhlo.dot_general %x, %w {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, tensor<768x3072xf32>) -> tensor<?x?x3072xf32, #dhlo.shape<batch, seq, 3072>>
  // CHECK-NEXT: return %[[D]]
  return %0 : tensor<?x?x3072xf32, #dhlo.shape<batch, seq, 3072>>
}

// Q K^T: batch dims first, then lhs free, then rhs free.
// CHECK-LABEL: func.func @attention_scores
func.func @attention_scores(%q: tensor<?x12x?x64xbf16, #dhlo.shape<batch, 12, seq, 64>>, %k: tensor<?x12x?x64xbf16, #dhlo.shape<batch, 12, seq, 64>>) -> tensor<?x12x?x?xbf16, #dhlo.shape<batch, 12, seq, seq>> {
  // CHECK-NEXT: dhlo.dot_general %{{.*}}, %{{.*}} {lhs_batch_dimensions = array<i64: 0, 1>, lhs_contracting_dimensions = array<i64: 3>, rhs_batch_dimensions = array<i64: 0, 1>, rhs_contracting_dimensions = array<i64: 3>} : (tensor<?x12x?x64xbf16, #dhlo.shape<batch, 12, seq, 64>>, tensor<?x12x?x64xbf16, #dhlo.shape<batch, 12, seq, 64>>) -> tensor<?x12x?x?xbf16, #dhlo.shape<batch, 12, seq, seq>>
  %0 = dhlo.dot_general %q, %k {lhs_batch_dimensions = array<i64: 0, 1>, rhs_batch_dimensions = array<i64: 0, 1>, lhs_contracting_dimensions = array<i64: 3>, rhs_contracting_dimensions = array<i64: 3>} : (tensor<?x12x?x64xbf16, #dhlo.shape<batch, 12, seq, 64>>, tensor<?x12x?x64xbf16, #dhlo.shape<batch, 12, seq, 64>>) -> tensor<?x12x?x?xbf16, #dhlo.shape<batch, 12, seq, seq>>
  return %0 : tensor<?x12x?x?xbf16, #dhlo.shape<batch, 12, seq, seq>>
}

// Contracting every dim gives a scalar; an outer product contracts none.
// CHECK-LABEL: func.func @full_and_outer
func.func @full_and_outer(%i: tensor<?x4xi64, #dhlo.shape<m, 4>>, %a: tensor<?xi32, #dhlo.shape<n>>, %b: tensor<3xi32>) -> (tensor<i64>, tensor<?x3xi32, #dhlo.shape<n, 3>>) {
  // CHECK-NEXT: dhlo.dot_general %{{.*}}, %{{.*}} {lhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 0, 1>, rhs_batch_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0, 1>} : (tensor<?x4xi64, #dhlo.shape<m, 4>>, tensor<?x4xi64, #dhlo.shape<m, 4>>) -> tensor<i64>
  %0 = dhlo.dot_general %i, %i {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 0, 1>, rhs_contracting_dimensions = array<i64: 0, 1>} : (tensor<?x4xi64, #dhlo.shape<m, 4>>, tensor<?x4xi64, #dhlo.shape<m, 4>>) -> tensor<i64>
  // CHECK-NEXT: dhlo.dot_general %{{.*}}, %{{.*}} {lhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, rhs_contracting_dimensions = array<i64>} : (tensor<?xi32, #dhlo.shape<n>>, tensor<3xi32>) -> tensor<?x3xi32, #dhlo.shape<n, 3>>
  %1 = dhlo.dot_general %a, %b {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64>, rhs_contracting_dimensions = array<i64>} : (tensor<?xi32, #dhlo.shape<n>>, tensor<3xi32>) -> tensor<?x3xi32, #dhlo.shape<n, 3>>
  return %0, %1 : tensor<i64>, tensor<?x3xi32, #dhlo.shape<n, 3>>
}

// A batch dim that is static on one side makes the result dim static.
// CHECK-LABEL: func.func @static_batch_wins
func.func @static_batch_wins(%a: tensor<?x2x3xf16, #dhlo.shape<b, 2, 3>>, %c: tensor<8x3x5xf16>) -> tensor<8x2x5xf16> {
  // CHECK-NEXT: dhlo.dot_general %{{.*}}, %{{.*}} {lhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_batch_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<?x2x3xf16, #dhlo.shape<b, 2, 3>>, tensor<8x3x5xf16>) -> tensor<8x2x5xf16>
  %0 = dhlo.dot_general %a, %c {lhs_batch_dimensions = array<i64: 0>, rhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<?x2x3xf16, #dhlo.shape<b, 2, 3>>, tensor<8x3x5xf16>) -> tensor<8x2x5xf16>
  return %0 : tensor<8x2x5xf16>
}

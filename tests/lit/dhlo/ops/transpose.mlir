// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of transpose: head permutation, 2-d swap, identity, rank 0 and 1.

// CHECK-LABEL: func.func @heads
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>)
func.func @heads(%q: tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>) -> tensor<?x12x?x64xf32, #dhlo.shape<batch, 12, seq, 64>> {
  // CHECK-NEXT: %[[T:.*]] = dhlo.transpose %[[Q]] {permutation = array<i64: 0, 2, 1, 3>} : (tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>) -> tensor<?x12x?x64xf32, #dhlo.shape<batch, 12, seq, 64>>
  %0 = dhlo.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : (tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>) -> tensor<?x12x?x64xf32, #dhlo.shape<batch, 12, seq, 64>>
  // CHECK-NEXT: return %[[T]]
  return %0 : tensor<?x12x?x64xf32, #dhlo.shape<batch, 12, seq, 64>>
}

// CHECK-LABEL: func.func @swap
func.func @swap(%x: tensor<?x3xi64, #dhlo.shape<"n + 1", 3>>) -> tensor<3x?xi64, #dhlo.shape<3, "n + 1">> {
  // CHECK-NEXT: dhlo.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<?x3xi64, #dhlo.shape<"n + 1", 3>>) -> tensor<3x?xi64, #dhlo.shape<3, "n + 1">>
  %0 = dhlo.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x3xi64, #dhlo.shape<"n + 1", 3>>) -> tensor<3x?xi64, #dhlo.shape<3, "n + 1">>
  return %0 : tensor<3x?xi64, #dhlo.shape<3, "n + 1">>
}

// A 3-cycle on a static tensor, and the trivial permutations.
// CHECK-LABEL: func.func @cycle_and_trivial
func.func @cycle_and_trivial(%x: tensor<2x3x4xf16>, %s: tensor<i1>, %v: tensor<?xbf16, #dhlo.shape<n>>) -> (tensor<3x4x2xf16>, tensor<i1>, tensor<?xbf16, #dhlo.shape<n>>) {
  // CHECK-NEXT: dhlo.transpose %{{.*}} {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf16>) -> tensor<3x4x2xf16>
  %0 = dhlo.transpose %x {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf16>) -> tensor<3x4x2xf16>
  // CHECK-NEXT: dhlo.transpose %{{.*}} {permutation = array<i64>} : (tensor<i1>) -> tensor<i1>
  %1 = dhlo.transpose %s {permutation = array<i64>} : (tensor<i1>) -> tensor<i1>
  // CHECK-NEXT: dhlo.transpose %{{.*}} {permutation = array<i64: 0>} : (tensor<?xbf16, #dhlo.shape<n>>) -> tensor<?xbf16, #dhlo.shape<n>>
  %2 = dhlo.transpose %v {permutation = array<i64: 0>} : (tensor<?xbf16, #dhlo.shape<n>>) -> tensor<?xbf16, #dhlo.shape<n>>
  return %0, %1, %2 : tensor<3x4x2xf16>, tensor<i1>, tensor<?xbf16, #dhlo.shape<n>>
}

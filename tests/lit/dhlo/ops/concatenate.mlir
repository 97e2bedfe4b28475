// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of concatenate.
// Covers symbolic axis sums, one operand, many operands,
// static and unknown dims.

// The KV-cache append: seq + 1 along dimension 1.
// CHECK-LABEL: func.func @append
// CHECK-SAME: (%[[A:.*]]: tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>>, %[[B:.*]]: tensor<?x1x64xf32, #dhlo.shape<batch, 1, 64>>)
func.func @append(%a: tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>>, %b: tensor<?x1x64xf32, #dhlo.shape<batch, 1, 64>>) -> tensor<?x?x64xf32, #dhlo.shape<batch, "seq + 1", 64>> {
  // CHECK-NEXT: %[[C:.*]] = dhlo.concatenate %[[A]], %[[B]] {dimension = 1 : i64} : (tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>>, tensor<?x1x64xf32, #dhlo.shape<batch, 1, 64>>) -> tensor<?x?x64xf32, #dhlo.shape<batch, "seq + 1", 64>>
  %0 = dhlo.concatenate %a, %b {dimension = 1 : i64} : (tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>>, tensor<?x1x64xf32, #dhlo.shape<batch, 1, 64>>) -> tensor<?x?x64xf32, #dhlo.shape<batch, "seq + 1", 64>>
  // CHECK-NEXT: return %[[C]]
  return %0 : tensor<?x?x64xf32, #dhlo.shape<batch, "seq + 1", 64>>
}

// One operand, and three operands with a repeated symbol (2*n + m).
// CHECK-LABEL: func.func @counts
func.func @counts(%x: tensor<?xi64, #dhlo.shape<n>>, %y: tensor<?xi64, #dhlo.shape<m>>) -> (tensor<?xi64, #dhlo.shape<n>>, tensor<?xi64, #dhlo.shape<"2*n + m">>) {
  // CHECK-NEXT: dhlo.concatenate %{{.*}} {dimension = 0 : i64} : (tensor<?xi64, #dhlo.shape<n>>) -> tensor<?xi64, #dhlo.shape<n>>
  %0 = dhlo.concatenate %x {dimension = 0 : i64} : (tensor<?xi64, #dhlo.shape<n>>) -> tensor<?xi64, #dhlo.shape<n>>
  // CHECK-NEXT: dhlo.concatenate %{{.*}}, %{{.*}}, %{{.*}} {dimension = 0 : i64} : (tensor<?xi64, #dhlo.shape<n>>, tensor<?xi64, #dhlo.shape<m>>, tensor<?xi64, #dhlo.shape<n>>) -> tensor<?xi64, #dhlo.shape<"2*n + m">>
  %1 = dhlo.concatenate %x, %y, %x {dimension = 0 : i64} : (tensor<?xi64, #dhlo.shape<n>>, tensor<?xi64, #dhlo.shape<m>>, tensor<?xi64, #dhlo.shape<n>>) -> tensor<?xi64, #dhlo.shape<"2*n + m">>
  return %0, %1 : tensor<?xi64, #dhlo.shape<n>>, tensor<?xi64, #dhlo.shape<"2*n + m">>
}

// Static operands sum statically; an unknown non-axis dim unifies with a
// static one.
// CHECK-LABEL: func.func @static_and_unknown
func.func @static_and_unknown(%a: tensor<2x3xf16>, %b: tensor<4x3xf16>, %c: tensor<?x?xi1>, %d: tensor<?x3xi1>) -> (tensor<6x3xf16>, tensor<?x3xi1>) {
  // CHECK-NEXT: dhlo.concatenate %{{.*}}, %{{.*}} {dimension = 0 : i64} : (tensor<2x3xf16>, tensor<4x3xf16>) -> tensor<6x3xf16>
  %0 = dhlo.concatenate %a, %b {dimension = 0 : i64} : (tensor<2x3xf16>, tensor<4x3xf16>) -> tensor<6x3xf16>
  // CHECK-NEXT: dhlo.concatenate %{{.*}}, %{{.*}} {dimension = 0 : i64} : (tensor<?x?xi1>, tensor<?x3xi1>) -> tensor<?x3xi1>
  %1 = dhlo.concatenate %c, %d {dimension = 0 : i64} : (tensor<?x?xi1>, tensor<?x3xi1>) -> tensor<?x3xi1>
  return %0, %1 : tensor<6x3xf16>, tensor<?x3xi1>
}

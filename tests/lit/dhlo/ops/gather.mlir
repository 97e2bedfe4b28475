// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of gather: embedding lookup, an inner axis, scalar indices.

// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[T:.*]]: tensor<30522x768xf32>, %[[I:.*]]: tensor<?x?xi32, #dhlo.shape<batch, seq>>)
func.func @embedding(%table: tensor<30522x768xf32>, %ids: tensor<?x?xi32, #dhlo.shape<batch, seq>>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>> {
  // CHECK-NEXT: %[[G:.*]] = dhlo.gather %[[T]], %[[I]] {axis = 0 : i64} : (tensor<30522x768xf32>, tensor<?x?xi32, #dhlo.shape<batch, seq>>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
  %0 = dhlo.gather %table, %ids {axis = 0 : i64} : (tensor<30522x768xf32>, tensor<?x?xi32, #dhlo.shape<batch, seq>>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
  // CHECK-NEXT: return %[[G]]
  return %0 : tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
}

// operand[:axis] ++ indices ++ operand[axis+1:], with i64 indices.
// CHECK-LABEL: func.func @inner_axis
func.func @inner_axis(%x: tensor<?x5x?xf16, #dhlo.shape<a, 5, b>>, %i: tensor<2x?xi64, #dhlo.shape<2, k>>) -> tensor<?x2x?x?xf16, #dhlo.shape<a, 2, k, b>> {
  // CHECK-NEXT: dhlo.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<?x5x?xf16, #dhlo.shape<a, 5, b>>, tensor<2x?xi64, #dhlo.shape<2, k>>) -> tensor<?x2x?x?xf16, #dhlo.shape<a, 2, k, b>>
  %0 = dhlo.gather %x, %i {axis = 1 : i64} : (tensor<?x5x?xf16, #dhlo.shape<a, 5, b>>, tensor<2x?xi64, #dhlo.shape<2, k>>) -> tensor<?x2x?x?xf16, #dhlo.shape<a, 2, k, b>>
  return %0 : tensor<?x2x?x?xf16, #dhlo.shape<a, 2, k, b>>
}

// Scalar indices remove the axis; bool and integer operands are fine.
// CHECK-LABEL: func.func @scalar_index
func.func @scalar_index(%x: tensor<4x?xi1, #dhlo.shape<4, n>>, %i: tensor<i32>) -> tensor<?xi1, #dhlo.shape<n>> {
  // CHECK-NEXT: dhlo.gather %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<4x?xi1, #dhlo.shape<4, n>>, tensor<i32>) -> tensor<?xi1, #dhlo.shape<n>>
  %0 = dhlo.gather %x, %i {axis = 0 : i64} : (tensor<4x?xi1, #dhlo.shape<4, n>>, tensor<i32>) -> tensor<?xi1, #dhlo.shape<n>>
  return %0 : tensor<?xi1, #dhlo.shape<n>>
}

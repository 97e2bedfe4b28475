// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of reduce.
// Covers every kind, one / all / no dimensions, unsorted
// dimensions, float and integer dtypes.

// CHECK-LABEL: func.func @kinds
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>)
func.func @kinds(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> (tensor<?x?xf32, #dhlo.shape<batch, seq>>, tensor<?x?xf32, #dhlo.shape<batch, seq>>, tensor<?x768xf32, #dhlo.shape<batch, 768>>, tensor<?xf32, #dhlo.shape<seq>>) {
  // CHECK-NEXT: dhlo.reduce %[[X]] {dimensions = array<i64: 2>, kind = "sum"} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?xf32, #dhlo.shape<batch, seq>>
  %0 = dhlo.reduce %x {dimensions = array<i64: 2>, kind = "sum"} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?xf32, #dhlo.shape<batch, seq>>
  // CHECK-NEXT: dhlo.reduce %[[X]] {dimensions = array<i64: 2>, kind = "max"} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?xf32, #dhlo.shape<batch, seq>>
  %1 = dhlo.reduce %x {dimensions = array<i64: 2>, kind = "max"} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?xf32, #dhlo.shape<batch, seq>>
  // CHECK-NEXT: dhlo.reduce %[[X]] {dimensions = array<i64: 1>, kind = "min"} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<batch, 768>>
  %2 = dhlo.reduce %x {dimensions = array<i64: 1>, kind = "min"} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<batch, 768>>
  // Unsorted dimensions keep the remaining dims in order.
  // CHECK-NEXT: dhlo.reduce %[[X]] {dimensions = array<i64: 2, 0>, kind = "prod"} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?xf32, #dhlo.shape<seq>>
  %3 = dhlo.reduce %x {dimensions = array<i64: 2, 0>, kind = "prod"} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?xf32, #dhlo.shape<seq>>
  return %0, %1, %2, %3 : tensor<?x?xf32, #dhlo.shape<batch, seq>>, tensor<?x?xf32, #dhlo.shape<batch, seq>>, tensor<?x768xf32, #dhlo.shape<batch, 768>>, tensor<?xf32, #dhlo.shape<seq>>
}

// Reducing every dim gives a scalar; reducing none copies the shape.
// CHECK-LABEL: func.func @all_and_none
func.func @all_and_none(%x: tensor<?x4xi32, #dhlo.shape<n, 4>>, %h: tensor<2x3xf16>, %l: tensor<?xi64, #dhlo.shape<n>>) -> (tensor<i32>, tensor<2x3xf16>, tensor<i64>) {
  // CHECK-NEXT: dhlo.reduce %{{.*}} {dimensions = array<i64: 0, 1>, kind = "sum"} : (tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<i32>
  %0 = dhlo.reduce %x {dimensions = array<i64: 0, 1>, kind = "sum"} : (tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<i32>
  // CHECK-NEXT: dhlo.reduce %{{.*}} {dimensions = array<i64>, kind = "max"} : (tensor<2x3xf16>) -> tensor<2x3xf16>
  %1 = dhlo.reduce %h {dimensions = array<i64>, kind = "max"} : (tensor<2x3xf16>) -> tensor<2x3xf16>
  // CHECK-NEXT: dhlo.reduce %{{.*}} {dimensions = array<i64: 0>, kind = "prod"} : (tensor<?xi64, #dhlo.shape<n>>) -> tensor<i64>
  %2 = dhlo.reduce %l {dimensions = array<i64: 0>, kind = "prod"} : (tensor<?xi64, #dhlo.shape<n>>) -> tensor<i64>
  return %0, %1, %2 : tensor<i32>, tensor<2x3xf16>, tensor<i64>
}

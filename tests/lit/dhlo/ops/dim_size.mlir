// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of dim_size.
// The result is an i64 scalar for a symbolic, static or unknown
// dim of a tensor of any dtype.

// CHECK-LABEL: func.func @dims
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, %[[P:.*]]: tensor<?xi1>)
func.func @dims(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, %p: tensor<?xi1>) -> (tensor<i64>, tensor<i64>, tensor<i64>) {
  // CHECK-NEXT: %[[A:.*]] = dhlo.dim_size %[[X]] {dimension = 1 : i64} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<i64>
  %0 = dhlo.dim_size %x {dimension = 1 : i64} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<i64>
  // CHECK-NEXT: %[[B:.*]] = dhlo.dim_size %[[X]] {dimension = 2 : i64} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<i64>
  %1 = dhlo.dim_size %x {dimension = 2 : i64} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<i64>
  // CHECK-NEXT: %[[C:.*]] = dhlo.dim_size %[[P]] {dimension = 0 : i64} : (tensor<?xi1>) -> tensor<i64>
  %2 = dhlo.dim_size %p {dimension = 0 : i64} : (tensor<?xi1>) -> tensor<i64>
  // CHECK-NEXT: return %[[A]], %[[B]], %[[C]]
  return %0, %1, %2 : tensor<i64>, tensor<i64>, tensor<i64>
}

// The size as a float, as a mean divides by it.
// CHECK-LABEL: func.func @as_float
func.func @as_float(%x: tensor<?x?xbf16, #dhlo.shape<rows, cols>>) -> tensor<bf16> {
  // CHECK-NEXT: %[[N:.*]] = dhlo.dim_size %{{.*}} {dimension = 1 : i64} : (tensor<?x?xbf16, #dhlo.shape<rows, cols>>) -> tensor<i64>
  %0 = dhlo.dim_size %x {dimension = 1 : i64} : (tensor<?x?xbf16, #dhlo.shape<rows, cols>>) -> tensor<i64>
  // CHECK-NEXT: dhlo.convert %[[N]] : (tensor<i64>) -> tensor<bf16>
  %1 = dhlo.convert %0 : (tensor<i64>) -> tensor<bf16>
  return %1 : tensor<bf16>
}

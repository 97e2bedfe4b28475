// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of the source ops, constant and iota, over every dtype.

// CHECK-LABEL: func.func @constants()
// CHECK-SAME: -> (tensor<f32>, tensor<2x3xi32>, tensor<4xf16>, tensor<2xbf16>, tensor<3xi1>, tensor<i64>, tensor<0xf32>)
func.func @constants() -> (tensor<f32>, tensor<2x3xi32>, tensor<4xf16>, tensor<2xbf16>, tensor<3xi1>, tensor<i64>, tensor<0xf32>) {
  // CHECK-NEXT: %[[C0:.*]] = dhlo.constant dense<1.000000e+00> : tensor<f32>
  %0 = dhlo.constant dense<1.0> : tensor<f32>
  // CHECK-NEXT: %[[C1:.*]] = dhlo.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %1 = dhlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  // CHECK-NEXT: %[[C2:.*]] = dhlo.constant dense<5.000000e-01> : tensor<4xf16>
  %2 = dhlo.constant dense<0.5> : tensor<4xf16>
  // CHECK-NEXT: %[[C3:.*]] = dhlo.constant dense<[1.000000e+00, -2.000000e+00]> : tensor<2xbf16>
  %3 = dhlo.constant dense<[1.0, -2.0]> : tensor<2xbf16>
  // CHECK-NEXT: %[[C4:.*]] = dhlo.constant dense<[true, false, true]> : tensor<3xi1>
  %4 = dhlo.constant dense<[true, false, true]> : tensor<3xi1>
  // CHECK-NEXT: %[[C5:.*]] = dhlo.constant dense<7> : tensor<i64>
  %5 = dhlo.constant dense<7> : tensor<i64>
  // CHECK-NEXT: %[[C6:.*]] = dhlo.constant dense<> : tensor<0xf32>
  %6 = dhlo.constant dense<> : tensor<0xf32>
  // CHECK-NEXT: return %[[C0]], %[[C1]], %[[C2]], %[[C3]], %[[C4]], %[[C5]], %[[C6]] :
  return %0, %1, %2, %3, %4, %5, %6 : tensor<f32>, tensor<2x3xi32>, tensor<4xf16>, tensor<2xbf16>, tensor<3xi1>, tensor<i64>, tensor<0xf32>
}

// The iota's result type is its specification: static, symbolic, polynomial
// and unknown dims all survive the round trip.
// CHECK-LABEL: func.func @iotas()
func.func @iotas() -> (tensor<4xi32>, tensor<?x8xi64, #dhlo.shape<seq, 8>>, tensor<?x?xf32, #dhlo.shape<batch, "seq + 1">>, tensor<?xf16, #dhlo.shape<?>>, tensor<2x?xbf16, #dhlo.shape<2, "batch*seq">>) {
  // CHECK-NEXT: dhlo.iota {iota_dimension = 0 : i64} : tensor<4xi32>
  %0 = dhlo.iota {iota_dimension = 0 : i64} : tensor<4xi32>
  // CHECK-NEXT: dhlo.iota {iota_dimension = 1 : i64} : tensor<?x8xi64, #dhlo.shape<seq, 8>>
  %1 = dhlo.iota {iota_dimension = 1 : i64} : tensor<?x8xi64, #dhlo.shape<seq, 8>>
  // CHECK-NEXT: dhlo.iota {iota_dimension = 1 : i64} : tensor<?x?xf32, #dhlo.shape<batch, "seq + 1">>
  %2 = dhlo.iota {iota_dimension = 1 : i64} : tensor<?x?xf32, #dhlo.shape<batch, "seq + 1">>
  // CHECK-NEXT: dhlo.iota {iota_dimension = 0 : i64} : tensor<?xf16, #dhlo.shape<?>>
  %3 = dhlo.iota {iota_dimension = 0 : i64} : tensor<?xf16, #dhlo.shape<?>>
  // CHECK-NEXT: dhlo.iota {iota_dimension = 1 : i64} : tensor<2x?xbf16, #dhlo.shape<2, "batch*seq">>
  %4 = dhlo.iota {iota_dimension = 1 : i64} : tensor<2x?xbf16, #dhlo.shape<2, "batch*seq">>
  // CHECK-NEXT: return
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<?x8xi64, #dhlo.shape<seq, 8>>, tensor<?x?xf32, #dhlo.shape<batch, "seq + 1">>, tensor<?xf16, #dhlo.shape<?>>, tensor<2x?xbf16, #dhlo.shape<2, "batch*seq">>
}

// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of reshape.
// Covers static targets, -1 targets (inferred as a
// polynomial quotient, a static size, or unknown), symbolic targets.

// CHECK-LABEL: func.func @flatten
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>)
func.func @flatten(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) {
  // CHECK-NEXT: %[[A:.*]] = dhlo.reshape %[[X]] {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  // CHECK-NEXT: %[[B:.*]] = dhlo.reshape %[[X]] {shape = #dhlo.shape<"batch*seq", 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %1 = dhlo.reshape %x {shape = #dhlo.shape<"batch*seq", 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  // CHECK-NEXT: return %[[A]], %[[B]]
  return %0, %1 : tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
}

// Splitting heads, and a -1 in the middle.
// CHECK-LABEL: func.func @split
func.func @split(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> (tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>, tensor<?x?x2xf32, #dhlo.shape<batch, "384*seq", 2>>) {
  // CHECK-NEXT: dhlo.reshape %{{.*}} {shape = #dhlo.shape<batch, seq, 12, 64>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>
  %0 = dhlo.reshape %x {shape = #dhlo.shape<batch, seq, 12, 64>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>
  // CHECK-NEXT: dhlo.reshape %{{.*}} {shape = #dhlo.shape<batch, -1, 2>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x2xf32, #dhlo.shape<batch, "384*seq", 2>>
  %1 = dhlo.reshape %x {shape = #dhlo.shape<batch, -1, 2>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x2xf32, #dhlo.shape<batch, "384*seq", 2>>
  return %0, %1 : tensor<?x?x12x64xf32, #dhlo.shape<batch, seq, 12, 64>>, tensor<?x?x2xf32, #dhlo.shape<batch, "384*seq", 2>>
}

// Static reshapes, with and without -1, over integer and half dtypes.
// CHECK-LABEL: func.func @static
func.func @static(%s: tensor<6x4xi32>, %h: tensor<24xf16>) -> (tensor<3x8xi32>, tensor<2x3x4xf16>, tensor<i32>) {
  // CHECK-NEXT: dhlo.reshape %{{.*}} {shape = #dhlo.shape<-1, 8>} : (tensor<6x4xi32>) -> tensor<3x8xi32>
  %0 = dhlo.reshape %s {shape = #dhlo.shape<-1, 8>} : (tensor<6x4xi32>) -> tensor<3x8xi32>
  // CHECK-NEXT: dhlo.reshape %{{.*}} {shape = #dhlo.shape<2, 3, 4>} : (tensor<24xf16>) -> tensor<2x3x4xf16>
  %1 = dhlo.reshape %h {shape = #dhlo.shape<2, 3, 4>} : (tensor<24xf16>) -> tensor<2x3x4xf16>
  %one = dhlo.constant dense<5> : tensor<1x1xi32>
  // Rank 0 target: the empty #dhlo.shape.
  // CHECK: dhlo.reshape %{{.*}} {shape = #dhlo.shape<>} : (tensor<1x1xi32>) -> tensor<i32>
  %2 = dhlo.reshape %one {shape = #dhlo.shape<>} : (tensor<1x1xi32>) -> tensor<i32>
  return %0, %1, %2 : tensor<3x8xi32>, tensor<2x3x4xf16>, tensor<i32>
}

// A -1 that no polynomial expresses (n may be odd) stays unknown.
// CHECK-LABEL: func.func @not_divisible
func.func @not_divisible(%n: tensor<?xbf16, #dhlo.shape<n>>) -> tensor<?x2xbf16, #dhlo.shape<?, 2>> {
  // CHECK-NEXT: dhlo.reshape %{{.*}} {shape = #dhlo.shape<-1, 2>} : (tensor<?xbf16, #dhlo.shape<n>>) -> tensor<?x2xbf16, #dhlo.shape<?, 2>>
  %0 = dhlo.reshape %n {shape = #dhlo.shape<-1, 2>} : (tensor<?xbf16, #dhlo.shape<n>>) -> tensor<?x2xbf16, #dhlo.shape<?, 2>>
  return %0 : tensor<?x2xbf16, #dhlo.shape<?, 2>>
}

// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of slice with static and symbolic bounds.
// Covers bounds like "seq - 1", strides
// (empty = all 1), and the result dims they give.

// Symbolic bounds, unit strides: the extent is the polynomial limit - start.
// The printer sorts attributes: limit_indices, start_indices, strides.
// CHECK-LABEL: func.func @drop_first
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>)
func.func @drop_first(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x768xf32, #dhlo.shape<batch, "seq - 1", 768>> {
  // CHECK-NEXT: %[[S:.*]] = dhlo.slice %[[X]] {limit_indices = #dhlo.shape<batch, seq, 768>, start_indices = #dhlo.shape<0, 1, 0>, strides = array<i64: 1, 1, 1>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x768xf32, #dhlo.shape<batch, "seq - 1", 768>>
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<0, 1, 0>, limit_indices = #dhlo.shape<batch, seq, 768>, strides = array<i64: 1, 1, 1>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x768xf32, #dhlo.shape<batch, "seq - 1", 768>>
  // CHECK-NEXT: return %[[S]]
  return %0 : tensor<?x?x768xf32, #dhlo.shape<batch, "seq - 1", 768>>
}

// The last token: a symbolic start whose extent is the constant 1; empty
// strides mean all 1.
// CHECK-LABEL: func.func @last_token
func.func @last_token(%x: tensor<?x?x768xbf16, #dhlo.shape<batch, seq, 768>>) -> tensor<?x1x768xbf16, #dhlo.shape<batch, 1, 768>> {
  // CHECK-NEXT: dhlo.slice %{{.*}} {limit_indices = #dhlo.shape<batch, seq, 768>, start_indices = #dhlo.shape<0, "seq - 1", 0>, strides = array<i64>} : (tensor<?x?x768xbf16, #dhlo.shape<batch, seq, 768>>) -> tensor<?x1x768xbf16, #dhlo.shape<batch, 1, 768>>
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<0, "seq - 1", 0>, limit_indices = #dhlo.shape<batch, seq, 768>, strides = array<i64>} : (tensor<?x?x768xbf16, #dhlo.shape<batch, seq, 768>>) -> tensor<?x1x768xbf16, #dhlo.shape<batch, 1, 768>>
  return %0 : tensor<?x1x768xbf16, #dhlo.shape<batch, 1, 768>>
}

// Static bounds with a stride: ceil((5 - 0) / 2) = 3.
// CHECK-LABEL: func.func @strided_static
func.func @strided_static(%s: tensor<4x5xi32>) -> tensor<2x3xi32> {
  // CHECK-NEXT: dhlo.slice %{{.*}} {limit_indices = #dhlo.shape<3, 5>, start_indices = #dhlo.shape<1, 0>, strides = array<i64: 1, 2>} : (tensor<4x5xi32>) -> tensor<2x3xi32>
  %0 = dhlo.slice %s {start_indices = #dhlo.shape<1, 0>, limit_indices = #dhlo.shape<3, 5>, strides = array<i64: 1, 2>} : (tensor<4x5xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// A stride over a symbolic extent: no polynomial, the dim is unknown.
// CHECK-LABEL: func.func @strided_symbolic
func.func @strided_symbolic(%x: tensor<?x?xf16, #dhlo.shape<batch, seq>>) -> tensor<?x?xf16, #dhlo.shape<batch, ?>> {
  // CHECK-NEXT: dhlo.slice %{{.*}} {limit_indices = #dhlo.shape<batch, seq>, start_indices = #dhlo.shape<0, 1>, strides = array<i64: 1, 2>} : (tensor<?x?xf16, #dhlo.shape<batch, seq>>) -> tensor<?x?xf16, #dhlo.shape<batch, ?>>
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<0, 1>, limit_indices = #dhlo.shape<batch, seq>, strides = array<i64: 1, 2>} : (tensor<?x?xf16, #dhlo.shape<batch, seq>>) -> tensor<?x?xf16, #dhlo.shape<batch, ?>>
  return %0 : tensor<?x?xf16, #dhlo.shape<batch, ?>>
}

// Rank 0: empty bounds.
// CHECK-LABEL: func.func @scalar
func.func @scalar(%x: tensor<i1>) -> tensor<i1> {
  // CHECK-NEXT: dhlo.slice %{{.*}} {limit_indices = #dhlo.shape<>, start_indices = #dhlo.shape<>, strides = array<i64>} : (tensor<i1>) -> tensor<i1>
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<>, limit_indices = #dhlo.shape<>, strides = array<i64>} : (tensor<i1>) -> tensor<i1>
  return %0 : tensor<i1>
}

// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of pad.
// Covers negative (cropping) edges, interior padding on static
// and symbolic dims, empty interior_padding.

// d + lo + hi + interior*(d - 1): 4 + 1 + 0 + 3 = 8 and 5 - 1 + 2 = 6.
// The printer sorts attributes: edge_padding_high, edge_padding_low,
// interior_padding.
// CHECK-LABEL: func.func @static
// CHECK-SAME: (%[[X:.*]]: tensor<4x5xf32>, %[[P:.*]]: tensor<f32>)
func.func @static(%x: tensor<4x5xf32>, %p: tensor<f32>) -> tensor<8x6xf32> {
  // CHECK-NEXT: %[[R:.*]] = dhlo.pad %[[X]], %[[P]] {edge_padding_high = array<i64: 0, 2>, edge_padding_low = array<i64: 1, -1>, interior_padding = array<i64: 1, 0>} : (tensor<4x5xf32>, tensor<f32>) -> tensor<8x6xf32>
  %0 = dhlo.pad %x, %p {edge_padding_low = array<i64: 1, -1>, edge_padding_high = array<i64: 0, 2>, interior_padding = array<i64: 1, 0>} : (tensor<4x5xf32>, tensor<f32>) -> tensor<8x6xf32>
  // CHECK-NEXT: return %[[R]]
  return %0 : tensor<8x6xf32>
}

// Symbolic: edges give a polynomial (seq + 1); interior padding of a
// symbolic dim gives an unknown dim.
// CHECK-LABEL: func.func @symbolic
func.func @symbolic(%x: tensor<?x?x768xbf16, #dhlo.shape<batch, seq, 768>>, %p: tensor<bf16>) -> (tensor<?x?x768xbf16, #dhlo.shape<batch, "seq + 1", 768>>, tensor<?x?x768xbf16, #dhlo.shape<?, seq, 768>>) {
  // CHECK-NEXT: dhlo.pad %{{.*}}, %{{.*}} {edge_padding_high = array<i64: 0, 2, 0>, edge_padding_low = array<i64: 0, -1, 0>, interior_padding = array<i64>} : (tensor<?x?x768xbf16, #dhlo.shape<batch, seq, 768>>, tensor<bf16>) -> tensor<?x?x768xbf16, #dhlo.shape<batch, "seq + 1", 768>>
  %0 = dhlo.pad %x, %p {edge_padding_low = array<i64: 0, -1, 0>, edge_padding_high = array<i64: 0, 2, 0>, interior_padding = array<i64>} : (tensor<?x?x768xbf16, #dhlo.shape<batch, seq, 768>>, tensor<bf16>) -> tensor<?x?x768xbf16, #dhlo.shape<batch, "seq + 1", 768>>
  // CHECK-NEXT: dhlo.pad %{{.*}}, %{{.*}} {edge_padding_high = array<i64: 0, 0, 0>, edge_padding_low = array<i64: 0, 0, 0>, interior_padding = array<i64: 2, 0, 0>} : (tensor<?x?x768xbf16, #dhlo.shape<batch, seq, 768>>, tensor<bf16>) -> tensor<?x?x768xbf16, #dhlo.shape<?, seq, 768>>
  %1 = dhlo.pad %x, %p {edge_padding_low = array<i64: 0, 0, 0>, edge_padding_high = array<i64: 0, 0, 0>, interior_padding = array<i64: 2, 0, 0>} : (tensor<?x?x768xbf16, #dhlo.shape<batch, seq, 768>>, tensor<bf16>) -> tensor<?x?x768xbf16, #dhlo.shape<?, seq, 768>>
  return %0, %1 : tensor<?x?x768xbf16, #dhlo.shape<batch, "seq + 1", 768>>, tensor<?x?x768xbf16, #dhlo.shape<?, seq, 768>>
}

// Integer padding, cropping a static dim down to 0.
// CHECK-LABEL: func.func @crop_to_empty
func.func @crop_to_empty(%x: tensor<3xi32>, %p: tensor<i32>) -> tensor<0xi32> {
  // CHECK-NEXT: dhlo.pad %{{.*}}, %{{.*}} {edge_padding_high = array<i64: -1>, edge_padding_low = array<i64: -2>, interior_padding = array<i64: 0>} : (tensor<3xi32>, tensor<i32>) -> tensor<0xi32>
  %0 = dhlo.pad %x, %p {edge_padding_low = array<i64: -2>, edge_padding_high = array<i64: -1>, interior_padding = array<i64: 0>} : (tensor<3xi32>, tensor<i32>) -> tensor<0xi32>
  return %0 : tensor<0xi32>
}

// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics -dhlo-expand-convolutions | FileCheck %s
// dhlo-expand-convolutions: a convolution as its target without a library
// runs it. The input padded once; one strided slice per tap whose limit
// gives exactly the output's extent (the result's own dims); the taps
// stacked channel-major into patches [N, groups, C / groups * taps, out];
// one dot_general per group; transposed and reshaped into the result.
// Sizes named only by fresh symbols cannot be written as slice limits:
// an error, not a crash.

// CHECK-LABEL: func.func @strided_1d
// CHECK: %[[P:.*]] = dhlo.pad %arg0, %{{.*}} {edge_padding_high = array<i64: 0, 0, 1>, edge_padding_low = array<i64: 0, 0, 1>
// CHECK: dhlo.slice %[[P]] {limit_indices = #dhlo.shape<n, 2, "2*((t + 1) floordiv 2) - 1">, start_indices = #dhlo.shape<0, 0, 0>, strides = array<i64: 1, 1, 2>}
// CHECK: dhlo.slice %[[P]] {limit_indices = #dhlo.shape<n, 2, "2*((t + 1) floordiv 2)">, start_indices = #dhlo.shape<0, 0, 1>
// CHECK: dhlo.slice %[[P]] {limit_indices = #dhlo.shape<n, 2, "2*((t + 1) floordiv 2) + 1">, start_indices = #dhlo.shape<0, 0, 2>
// CHECK: %[[C:.*]] = dhlo.concatenate {{.*}} {dimension = 2 : i64}
// CHECK: %[[PATCHES:.*]] = dhlo.reshape %[[C]] {shape = #dhlo.shape<n, 1, 6, "((t + 1) floordiv 2)">}
// CHECK: %[[K:.*]] = dhlo.reshape %arg1 {shape = #dhlo.shape<1, 4, 6>}
// CHECK: %[[Y:.*]] = dhlo.dot_general %[[K]], %[[PATCHES]] {lhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_batch_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 2>}
// CHECK: %[[T:.*]] = dhlo.transpose %[[Y]] {permutation = array<i64: 2, 0, 1, 3>}
// CHECK: %[[R:.*]] = dhlo.reshape %[[T]] {shape = #dhlo.shape<n, 4, "((t + 1) floordiv 2)">}
// CHECK-NOT: dhlo.convolution
// CHECK: return %[[R]]
func.func @strided_1d(%x: tensor<?x2x?xf32, #dhlo.shape<n, 2, t>>, %w: tensor<4x2x3xf32>) -> tensor<?x4x?xf32, #dhlo.shape<n, 4, "((t - 1) floordiv 2) + 1">> {
  %0 = dhlo.convolution %x, %w {dilations = array<i64: 1>, groups = 1 : i64, padding_high = array<i64: 1>, padding_low = array<i64: 1>, strides = array<i64: 2>} : (tensor<?x2x?xf32, #dhlo.shape<n, 2, t>>, tensor<4x2x3xf32>) -> tensor<?x4x?xf32, #dhlo.shape<n, 4, "((t - 1) floordiv 2) + 1">>
  return %0 : tensor<?x4x?xf32, #dhlo.shape<n, 4, "((t - 1) floordiv 2) + 1">>
}

// -----

// Groups: the weights [O, C / groups, K] as [groups, O / groups, ...], the
// patches split the same way; no padding, no pad.
// CHECK-LABEL: func.func @grouped
// CHECK-NOT: dhlo.pad
// CHECK: dhlo.reshape %{{.*}} {shape = #dhlo.shape<n, 2, 4, "l - 1">}
// CHECK: dhlo.reshape %arg1 {shape = #dhlo.shape<2, 3, 4>}
func.func @grouped(%x: tensor<?x4x?xf32, #dhlo.shape<n, 4, l>>, %w: tensor<6x2x2xf32>) -> tensor<?x6x?xf32, #dhlo.shape<n, 6, "l - 1">> {
  %0 = dhlo.convolution %x, %w {dilations = array<i64: 1>, groups = 2 : i64, padding_high = array<i64: 0>, padding_low = array<i64: 0>, strides = array<i64: 1>} : (tensor<?x4x?xf32, #dhlo.shape<n, 4, l>>, tensor<6x2x2xf32>) -> tensor<?x6x?xf32, #dhlo.shape<n, 6, "l - 1">>
  return %0 : tensor<?x6x?xf32, #dhlo.shape<n, 6, "l - 1">>
}

// -----

func.func @fresh_size(%x: tensor<?x2x?xf32, #dhlo.shape<n, 2, "?0">>, %w: tensor<4x2x3xf32>) -> tensor<?x4x?xf32, #dhlo.shape<n, 4, "?0 - 2">> {
  // expected-error @+1 {{a convolution to expand needs its batch and output sizes as expressions of the graph's symbols}}
  %0 = dhlo.convolution %x, %w {dilations = array<i64: 1>, groups = 1 : i64, padding_high = array<i64: 0>, padding_low = array<i64: 0>, strides = array<i64: 1>} : (tensor<?x2x?xf32, #dhlo.shape<n, 2, "?0">>, tensor<4x2x3xf32>) -> tensor<?x4x?xf32, #dhlo.shape<n, 4, "?0 - 2">>
  return %0 : tensor<?x4x?xf32, #dhlo.shape<n, 4, "?0 - 2">>
}

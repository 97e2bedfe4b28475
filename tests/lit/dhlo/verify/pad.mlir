// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of pad.
// Covers negative interior padding, padding that makes a
// static dim negative, a padding value that is not a scalar of the operand's
// dtype, padding lists of the wrong length, a result contradicting the
// padded shape, and a missing attribute.

func.func @negative_interior(%x: tensor<4x5xf32>, %p: tensor<f32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.pad' pad(f32[4, 5], f32[]): interior padding -1 must be >= 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.pad %x, %p {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64: 0, -1>} : (tensor<4x5xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @negative_result_dim(%x: tensor<4x5xf32>, %p: tensor<f32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.pad' pad(f32[4, 5], f32[]): padding makes dim 1 negative (-2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.pad %x, %p {edge_padding_low = array<i64: 0, -4>, edge_padding_high = array<i64: 0, -3>, interior_padding = array<i64>} : (tensor<4x5xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// An empty dim gets no interior padding: 0 - 1 is negative.
func.func @negative_from_empty_dim(%x: tensor<0x5xf32>, %p: tensor<f32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.pad' pad(f32[0, 5], f32[]): padding makes dim 0 negative (-1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.pad %x, %p {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: -1, 0>, interior_padding = array<i64: 3, 0>} : (tensor<0x5xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @padding_value_not_scalar(%x: tensor<4x5xf32>, %p: tensor<1xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.pad' pad(f32[4, 5], f32[1]): pad value must be a f32 scalar, got f32[1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.pad %x, %p {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64>} : (tensor<4x5xf32>, tensor<1xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @padding_value_dtype(%x: tensor<4x5xf32>, %p: tensor<f16>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.pad' pad(f32[4, 5], f16[]): pad value must be a f32 scalar, got f16[]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.pad %x, %p {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64>} : (tensor<4x5xf32>, tensor<f16>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @wrong_number_of_edges(%x: tensor<4x5xf32>, %p: tensor<f32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.pad' pad(f32[4, 5], f32[]): pad needs one low and one high padding per dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.pad %x, %p {edge_padding_low = array<i64: 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64>} : (tensor<4x5xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @wrong_number_of_interior(%x: tensor<4x5xf32>, %p: tensor<f32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.pad' pad(f32[4, 5], f32[]): interior_padding must be empty or one per dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.pad %x, %p {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64: 1>} : (tensor<4x5xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @result_contradicts_padding(%x: tensor<4x5xf32>, %p: tensor<f32>) -> tensor<4x6xf32> {
  // expected-error @+2 {{'dhlo.pad' op inferred type(s) 'tensor<4x5xf32>' are incompatible with return type(s) of operation 'tensor<4x6xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.pad %x, %p {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64>} : (tensor<4x5xf32>, tensor<f32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @missing_interior(%x: tensor<4x5xf32>, %p: tensor<f32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'dhlo.pad' op requires attribute 'interior_padding'}}
  %0 = dhlo.pad %x, %p {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0, 0>} : (tensor<4x5xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

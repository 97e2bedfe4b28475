// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of concatenate.
// Covers a dimension out of range (including a
// scalar operand), rank and dtype mismatches, differing non-axis static
// dims, no operands, a result contradicting the sum, a missing dimension.

func.func @dimension_out_of_range(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.concatenate' concatenate(f32[4]): concatenate dimension 1 is out of range for f32[4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.concatenate %a {dimension = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @negative_dimension(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf32> {
  // expected-error @+2 {{'dhlo.concatenate' concatenate(f32[2, 4], f32[3, 4]): concatenate dimension -1 is out of range for f32[2, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.concatenate %a, %b {dimension = -1 : i64} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// Scalars cannot be concatenated.
func.func @scalar(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{'dhlo.concatenate' concatenate(f32[]): concatenate dimension 0 is out of range for f32[]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.concatenate %a {dimension = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @rank_mismatch(%a: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-error @+2 {{'dhlo.concatenate' concatenate(f32[4, 4], f32[4]): concatenate operand 1 is f32[4], operand 0 is f32[4, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.concatenate %a, %b {dimension = 0 : i64} : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @dtype_mismatch(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<8xf32> {
  // expected-error @+2 {{'dhlo.concatenate' concatenate(f32[4], i32[4]): concatenate operand 1 is i32[4], operand 0 is f32[4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.concatenate %a, %b {dimension = 0 : i64} : (tensor<4xf32>, tensor<4xi32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// The third operand is checked against the first too.
func.func @third_operand_dtype(%a: tensor<?xbf16, #dhlo.shape<n>>, %b: tensor<?xf16, #dhlo.shape<n>>) -> tensor<?xbf16> {
  // expected-error @+2 {{concatenate operand 2 is f16[n], operand 0 is bf16[n]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.concatenate %a, %a, %b {dimension = 0 : i64} : (tensor<?xbf16, #dhlo.shape<n>>, tensor<?xbf16, #dhlo.shape<n>>, tensor<?xf16, #dhlo.shape<n>>) -> tensor<?xbf16>
  return %0 : tensor<?xbf16>
}

// -----

func.func @non_axis_dims_differ(%a: tensor<2x4xf32>, %b: tensor<3x5xf32>) -> tensor<5x4xf32> {
  // expected-error @+2 {{'dhlo.concatenate' concatenate(f32[2, 4], f32[3, 5]): concatenate operand 1 differs at dim 1: dims 4 and 5 differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.concatenate %a, %b {dimension = 0 : i64} : (tensor<2x4xf32>, tensor<3x5xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

func.func @no_operands() -> tensor<5x4xf32> {
  // expected-error @+2 {{'dhlo.concatenate' concatenate takes at least 1 operand(s), got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.concatenate {dimension = 0 : i64} : () -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

func.func @result_contradicts_sum(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+2 {{'dhlo.concatenate' op inferred type(s) 'tensor<5x4xf32>' are incompatible with return type(s) of operation 'tensor<6x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.concatenate %a, %b {dimension = 0 : i64} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

func.func @missing_dimension(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf32> {
  // expected-error @+1 {{'dhlo.concatenate' op requires attribute 'dimension'}}
  %0 = dhlo.concatenate %a, %b : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

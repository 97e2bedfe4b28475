// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of dim_size.
// Covers a dimension out of range (including any
// dimension of a scalar and a negative one), a result that is not an i64
// scalar, a missing or mistyped dimension attribute.

func.func @dimension_out_of_range(%x: tensor<4x5xf32>) -> tensor<i64> {
  // expected-error @+2 {{'dhlo.dim_size' dim_size(f32[4, 5]): dim_size dimension 2 is out of range for f32[4, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dim_size %x {dimension = 2 : i64} : (tensor<4x5xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @negative_dimension(%x: tensor<?x?xi1, #dhlo.shape<batch, seq>>) -> tensor<i64> {
  // expected-error @+2 {{'dhlo.dim_size' dim_size(bool[batch, seq]): dim_size dimension -1 is out of range for bool[batch, seq]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dim_size %x {dimension = -1 : i64} : (tensor<?x?xi1, #dhlo.shape<batch, seq>>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @scalar_has_no_dims(%x: tensor<f32>) -> tensor<i64> {
  // expected-error @+2 {{'dhlo.dim_size' dim_size(f32[]): dim_size dimension 0 is out of range for f32[]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dim_size %x {dimension = 0 : i64} : (tensor<f32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @result_not_i64(%x: tensor<4x5xf32>) -> tensor<i32> {
  // expected-error @+2 {{'dhlo.dim_size' op inferred type(s) 'tensor<i64>' are incompatible with return type(s) of operation 'tensor<i32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dim_size %x {dimension = 0 : i64} : (tensor<4x5xf32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @result_not_scalar(%x: tensor<4x5xf32>) -> tensor<1xi64> {
  // expected-error @+2 {{'dhlo.dim_size' op inferred type(s) 'tensor<i64>' are incompatible with return type(s) of operation 'tensor<1xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dim_size %x {dimension = 0 : i64} : (tensor<4x5xf32>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}

// -----

func.func @missing_dimension(%x: tensor<4x5xf32>) -> tensor<i64> {
  // expected-error @+1 {{'dhlo.dim_size' op requires attribute 'dimension'}}
  %0 = dhlo.dim_size %x : (tensor<4x5xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @dimension_not_i64(%x: tensor<4x5xf32>) -> tensor<i64> {
  // expected-error @+1 {{'dhlo.dim_size' op attribute 'dimension' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = dhlo.dim_size %x {dimension = 0 : i32} : (tensor<4x5xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of reduce.
// Covers an unknown or wrongly-cased kind, a dimension
// out of range or repeated, a bool operand, a result that keeps the wrong
// dims, missing attributes.

func.func @bad_kind(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.reduce' kind 'mean' is not one of sum, max, min, prod}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reduce %x {dimensions = array<i64: 1>, kind = "mean"} : (tensor<4x5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @uppercase_kind(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.reduce' kind 'SUM' is not one of sum, max, min, prod}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reduce %x {dimensions = array<i64: 1>, kind = "SUM"} : (tensor<4x5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dimension_out_of_range(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.reduce' reduce(f32[4, 5]): reduce dimension 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reduce %x {dimensions = array<i64: 2>, kind = "sum"} : (tensor<4x5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @negative_dimension(%x: tensor<?x5xf32, #dhlo.shape<n, 5>>) -> tensor<?xf32, #dhlo.shape<n>> {
  // expected-error @+2 {{'dhlo.reduce' reduce(f32[n, 5]): reduce dimension -1 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reduce %x {dimensions = array<i64: -1>, kind = "max"} : (tensor<?x5xf32, #dhlo.shape<n, 5>>) -> tensor<?xf32, #dhlo.shape<n>>
  return %0 : tensor<?xf32, #dhlo.shape<n>>
}

// -----

func.func @duplicate_dimension(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.reduce' reduce(f32[4, 5]): reduce dimension 1 appears twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reduce %x {dimensions = array<i64: 1, 1>, kind = "sum"} : (tensor<4x5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bool_operand(%x: tensor<4x5xi1>) -> tensor<4xi1> {
  // expected-error @+2 {{'dhlo.reduce' reduce(bool[4, 5]): reduce needs a numeric operand, got bool[4, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reduce %x {dimensions = array<i64: 1>, kind = "max"} : (tensor<4x5xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @result_keeps_wrong_dim(%x: tensor<4x5xf32>) -> tensor<5xf32> {
  // expected-error @+2 {{'dhlo.reduce' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reduce %x {dimensions = array<i64: 1>, kind = "sum"} : (tensor<4x5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @missing_kind(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dhlo.reduce' op requires attribute 'kind'}}
  %0 = dhlo.reduce %x {dimensions = array<i64: 1>} : (tensor<4x5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @missing_dimensions(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dhlo.reduce' op requires attribute 'dimensions'}}
  %0 = dhlo.reduce %x {kind = "sum"} : (tensor<4x5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of compare and select.
// Covers compare (bad or missing direction, dtype/shape
// mismatch, non-bool result) and select (non-bool predicate, predicate rank,
// branch mismatch, dim mismatch).

func.func @bad_direction(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+2 {{'dhlo.compare' direction 'LTE' is not one of EQ, NE, LT, LE, GT, GE}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.compare %a, %a {direction = "LTE"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Directions are case-sensitive.
func.func @lowercase_direction(%a: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+2 {{direction 'eq' is not one of EQ, NE, LT, LE, GT, GE}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.compare %a, %a {direction = "eq"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Missing and mistyped required attributes are caught by ODS first.
func.func @missing_direction(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'dhlo.compare' op requires attribute 'direction'}}
  %0 = dhlo.compare %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @direction_not_a_string(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'dhlo.compare' op attribute 'direction' failed to satisfy constraint: string attribute}}
  %0 = dhlo.compare %a, %a {direction = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_result_not_bool(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.compare' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.compare %a, %a {direction = "LT"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @compare_dtypes_differ(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+2 {{'dhlo.compare' compare(f32[4], i32[4]): operand dtypes differ: f32[4] vs i32[4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.compare %a, %b {direction = "EQ"} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_dims_differ(%a: tensor<?x4xf32, #dhlo.shape<n, 4>>, %b: tensor<?x5xf32, #dhlo.shape<n, 5>>) -> tensor<?x4xi1, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{'dhlo.compare' compare(f32[n, 4], f32[n, 5]): operand shapes differ at dim 1: f32[n, 4] vs f32[n, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.compare %a, %b {direction = "GE"} : (tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<?x5xf32, #dhlo.shape<n, 5>>) -> tensor<?x4xi1, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xi1, #dhlo.shape<n, 4>>
}

// -----

func.func @non_bool_predicate(%p: tensor<4xi32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.select' select(i32[4], f32[4], f32[4]): select predicate must be bool, got i32[4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.select %p, %a, %a : (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @float_scalar_predicate(%p: tensor<f32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{select predicate must be bool, got f32[]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.select %p, %a, %a : (tensor<f32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @branch_dtypes_differ(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.select' select(bool[4], f32[4], f16[4]): select branches differ: f32[4] vs f16[4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.select %p, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @branch_ranks_differ(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4x1xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.select' select(bool[4], f32[4], f32[4, 1]): select branches differ: f32[4] vs f32[4, 1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.select %p, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4x1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @predicate_rank(%p: tensor<?xi1, #dhlo.shape<seq>>, %a: tensor<?x?xf32, #dhlo.shape<batch, seq>>) -> tensor<?x?xf32, #dhlo.shape<batch, seq>> {
  // expected-error @+2 {{'dhlo.select' select(bool[seq], f32[batch, seq], f32[batch, seq]): select predicate bool[seq] must be a scalar or match f32[batch, seq]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.select %p, %a, %a : (tensor<?xi1, #dhlo.shape<seq>>, tensor<?x?xf32, #dhlo.shape<batch, seq>>, tensor<?x?xf32, #dhlo.shape<batch, seq>>) -> tensor<?x?xf32, #dhlo.shape<batch, seq>>
  return %0 : tensor<?x?xf32, #dhlo.shape<batch, seq>>
}

// -----

func.func @branch_dims_differ(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<5xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.select' select(bool[4], f32[4], f32[5]): select operand shapes differ at dim 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.select %p, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @predicate_dims_differ(%p: tensor<3xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.select' select(bool[3], f32[4], f32[4]): select operand shapes differ at dim 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.select %p, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_two_operands(%p: tensor<4xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dhlo.select' op expected 3 operands, but found 2}}
  %0 = dhlo.select %p, %a : (tensor<4xi1>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of the binary ops' dtype and rank rules.
// Beyond binary.mlir: rank
// mismatch (no implicit broadcasting), arithmetic and max/min on bool,
// and/or on floats, a result dtype differing from the operands'.

func.func @ranks_differ(%a: tensor<4xf32>, %b: tensor<4x1xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.add' add(f32[4], f32[4, 1]): operand ranks differ: f32[4] vs f32[4, 1] (broadcast explicitly with broadcast_in_dim)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.add %a, %b : (tensor<4xf32>, tensor<4x1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A scalar does not broadcast either.
func.func @scalar_and_vector(%a: tensor<f32>, %b: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>> {
  // expected-error @+2 {{'dhlo.mul' mul(f32[], f32[n]): operand ranks differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.mul %a, %b : (tensor<f32>, tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>>
  return %0 : tensor<?xf32, #dhlo.shape<n>>
}

// -----

func.func @add_on_bool(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+2 {{'dhlo.add' add(bool[4], bool[4]): add needs numeric operands, got bool[4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.add %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @sub_on_bool(%a: tensor<i1>) -> tensor<i1> {
  // expected-error @+2 {{sub needs numeric operands, got bool[]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.sub %a, %a : (tensor<i1>, tensor<i1>) -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

func.func @div_on_bool(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+2 {{div needs numeric operands, got bool[2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.div %a, %a : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @pow_on_bool(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+2 {{pow needs numeric operands, got bool[2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.pow %a, %a : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @max_on_bool(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+2 {{'dhlo.max' max(bool[4], bool[4]): max needs numeric operands, got bool[4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.max %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @min_on_bool(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+2 {{min needs numeric operands, got bool[4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.min %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @and_on_float(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.and' and(f32[4], f32[4]): and needs bool or integer operands, got f32[4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.and %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @or_on_bf16(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-error @+2 {{'dhlo.or' or(bf16[4], bf16[4]): or needs bool or integer operands, got bf16[4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.or %a, %a : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

func.func @result_dtype_differs(%a: tensor<4xi32>) -> tensor<4xi64> {
  // expected-error @+2 {{'dhlo.add' op inferred type(s) 'tensor<4xi32>' are incompatible with return type(s) of operation 'tensor<4xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.add %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @unsupported_dtype(%a: tensor<4xi16>) -> tensor<4xi16> {
  // expected-error @+2 {{'dhlo.add' operand has unsupported type 'tensor<4xi16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.add %a, %a : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

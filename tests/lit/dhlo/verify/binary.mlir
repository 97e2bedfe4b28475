// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of binary elementwise ops: the wire format's shape rules
// give the precise message; MLIR's InferTypeOpInterface verifier adds its
// generic one on the same op.

func.func @dtype_mismatch(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+2 {{operand dtypes differ: f32[4] vs i32[4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.add %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @static_dims_differ(%a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{operand shapes differ at dim 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.mul %a, %b : (tensor<3xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @result_contradicts(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<5xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.sub %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

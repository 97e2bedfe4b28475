// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of gather.
// Covers non-integer (float, bool) indices, axis out of
// range (including a scalar operand), a non-empty gather from an empty
// axis, a result contradicting the gathered shape, a missing axis.

func.func @float_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+2 {{'dhlo.gather' gather(f32[10, 4], f32[3]): gather indices must be i32 or i64, got f32[3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.gather %t, %i {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @bool_indices(%t: tensor<10x4xf32>, %i: tensor<?xi1, #dhlo.shape<n>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{'dhlo.gather' gather(f32[10, 4], bool[n]): gather indices must be i32 or i64, got bool[n]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.gather %t, %i {axis = 0 : i64} : (tensor<10x4xf32>, tensor<?xi1, #dhlo.shape<n>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xf32, #dhlo.shape<n, 4>>
}

// -----

func.func @axis_out_of_range(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  // expected-error @+2 {{'dhlo.gather' gather(f32[10, 4], i32[3]): gather axis 2 is out of range for f32[10, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.gather %t, %i {axis = 2 : i64} : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @negative_axis(%t: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  // expected-error @+2 {{gather axis -1 is out of range for f32[10, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.gather %t, %i {axis = -1 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @scalar_operand(%t: tensor<f32>, %i: tensor<3xi32>) -> tensor<3xf32> {
  // expected-error @+2 {{'dhlo.gather' gather(f32[], i32[3]): gather axis 0 is out of range for f32[]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.gather %t, %i {axis = 0 : i64} : (tensor<f32>, tensor<3xi32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @empty_axis(%t: tensor<0x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  // expected-error @+2 {{'dhlo.gather' gather(f32[0, 4], i32[3]): gather from an empty axis 0 of f32[0, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.gather %t, %i {axis = 0 : i64} : (tensor<0x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @result_contradicts(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<4x4xf32> {
  // expected-error @+2 {{'dhlo.gather' op inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.gather %t, %i {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @missing_axis(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'dhlo.gather' op requires attribute 'axis'}}
  %0 = dhlo.gather %t, %i : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of slice.
// Covers start > limit, limit > dim, negative start,
// stride < 1, the wrong number of bounds or strides, unknown (?) bounds, a
// provably negative symbolic extent, a result contradicting the bounds, and
// the missing strides attribute.

func.func @start_exceeds_limit(%x: tensor<4x5xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.slice' slice(f32[4, 5]): slice start 5 exceeds limit 4 at dim 1 of f32[4, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<0, 5>, limit_indices = #dhlo.shape<4, 4>, strides = array<i64>} : (tensor<4x5xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Static bounds are checked on a symbolic dim too.
func.func @start_exceeds_limit_symbolic_dim(%x: tensor<?x5xf32, #dhlo.shape<n, 5>>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.slice' slice(f32[n, 5]): slice start 3 exceeds limit 2 at dim 0 of f32[n, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<3, 0>, limit_indices = #dhlo.shape<2, 5>, strides = array<i64>} : (tensor<?x5xf32, #dhlo.shape<n, 5>>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @limit_exceeds_dim(%x: tensor<4x5xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.slice' slice(f32[4, 5]): slice limit 6 exceeds the dim at dim 1 of f32[4, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<0, 0>, limit_indices = #dhlo.shape<4, 6>, strides = array<i64>} : (tensor<4x5xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @negative_start(%x: tensor<?x5xf32, #dhlo.shape<n, 5>>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.slice' slice(f32[n, 5]): slice start -1 is negative at dim 0 of f32[n, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<"n - n - 1", 0>, limit_indices = #dhlo.shape<n, 5>, strides = array<i64>} : (tensor<?x5xf32, #dhlo.shape<n, 5>>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @zero_stride(%x: tensor<4x5xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.slice' slice(f32[4, 5]): slice stride 0 at dim 1 must be >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<0, 0>, limit_indices = #dhlo.shape<4, 5>, strides = array<i64: 1, 0>} : (tensor<4x5xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @negative_stride(%x: tensor<4x5xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{slice stride -2 at dim 1 must be >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<0, 0>, limit_indices = #dhlo.shape<4, 5>, strides = array<i64: 1, -2>} : (tensor<4x5xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @too_few_starts(%x: tensor<4x5xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.slice' slice(f32[4, 5]): slice needs one start and one limit per dim of f32[4, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<0>, limit_indices = #dhlo.shape<4, 5>, strides = array<i64>} : (tensor<4x5xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @too_many_limits(%x: tensor<4x5xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{slice needs one start and one limit per dim of f32[4, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<0, 0>, limit_indices = #dhlo.shape<4, 5, 1>, strides = array<i64>} : (tensor<4x5xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @wrong_number_of_strides(%x: tensor<4x5xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.slice' slice(f32[4, 5]): slice strides must be empty or one per dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<0, 0>, limit_indices = #dhlo.shape<4, 5>, strides = array<i64: 1>} : (tensor<4x5xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @unknown_bound(%x: tensor<4x5xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.slice' 'start_indices' entries cannot be unknown (?)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<0, ?>, limit_indices = #dhlo.shape<4, 5>, strides = array<i64>} : (tensor<4x5xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Symbolic bounds whose difference is a negative constant.
func.func @negative_symbolic_extent(%x: tensor<?x5xf32, #dhlo.shape<n, 5>>) -> tensor<?x5xf32> {
  // expected-error @+2 {{slice start n + 1 exceeds limit n at dim 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<"n + 1", 0>, limit_indices = #dhlo.shape<n, 5>, strides = array<i64>} : (tensor<?x5xf32, #dhlo.shape<n, 5>>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

func.func @result_contradicts_bounds(%x: tensor<4x5xf32>) -> tensor<4x4xf32> {
  // expected-error @+2 {{'dhlo.slice' op inferred type(s) 'tensor<4x5xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<0, 0>, limit_indices = #dhlo.shape<4, 5>, strides = array<i64>} : (tensor<4x5xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @missing_strides(%x: tensor<4x5xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'dhlo.slice' op requires attribute 'strides'}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<0, 0>, limit_indices = #dhlo.shape<4, 5>} : (tensor<4x5xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// The same with a stride: the extent must not be rounded toward zero.
func.func @negative_symbolic_extent_strided(%x: tensor<?x5xf32, #dhlo.shape<n, 5>>) -> tensor<?x5xf32> {
  // expected-error @+2 {{slice start n + 3 exceeds limit n at dim 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<"n + 3", 0>, limit_indices = #dhlo.shape<n, 5>, strides = array<i64: 2, 1>} : (tensor<?x5xf32, #dhlo.shape<n, 5>>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

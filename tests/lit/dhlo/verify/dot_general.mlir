// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of dot_general.
// Covers contracting or batch dims that differ,
// mismatched list lengths, dtype mismatch, bool operands, dimensions out of
// range or used twice, a result in the wrong order, a missing attribute.

func.func @contracting_dims_differ(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{'dhlo.dot_general' dot_general(f32[2, 3], f32[4, 5]): dot_general contracting dims differ: dims 3 and 4 differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dot_general %a, %b {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @contracting_768_vs_512(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, %w: tensor<512x64xf32>) -> tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>> {
  // expected-error @+2 {{'dhlo.dot_general' dot_general(f32[batch, seq, 768], f32[512, 64]): dot_general contracting dims differ: dims 768 and 512 differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dot_general %x, %w {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, tensor<512x64xf32>) -> tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>>
  return %0 : tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>>
}

// -----

func.func @batch_dims_differ(%a: tensor<2x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x3x6xf32> {
  // expected-error @+2 {{'dhlo.dot_general' dot_general(f32[2, 3, 4], f32[5, 4, 6]): dot_general batch dims differ: dims 2 and 5 differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dot_general %a, %b {lhs_batch_dimensions = array<i64: 0>, rhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<2x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

// -----

func.func @contracting_lists_differ(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{'dhlo.dot_general' dot_general(f32[2, 3], f32[3, 5]): dot_general lhs and rhs list different numbers of batch or contracting dimensions}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dot_general %a, %b {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @batch_lists_differ(%a: tensor<2x3x4xf32>, %b: tensor<2x4x6xf32>) -> tensor<2x3x6xf32> {
  // expected-error @+2 {{dot_general lhs and rhs list different numbers of batch or contracting dimensions}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dot_general %a, %b {lhs_batch_dimensions = array<i64: 0>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<2x3x4xf32>, tensor<2x4x6xf32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

// -----

func.func @dtype_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x5xf16>) -> tensor<2x5xf32> {
  // expected-error @+2 {{'dhlo.dot_general' dot_general(f32[2, 3], f16[3, 5]): dot_general needs numeric operands of one dtype, got f32[2, 3] and f16[3, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dot_general %a, %b {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x5xf16>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @bool_operands(%a: tensor<2x3xi1>, %b: tensor<3x5xi1>) -> tensor<2x5xi1> {
  // expected-error @+2 {{'dhlo.dot_general' dot_general(bool[2, 3], bool[3, 5]): dot_general needs numeric operands of one dtype, got bool[2, 3] and bool[3, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dot_general %a, %b {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xi1>, tensor<3x5xi1>) -> tensor<2x5xi1>
  return %0 : tensor<2x5xi1>
}

// -----

func.func @lhs_dimension_out_of_range(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{'dhlo.dot_general' dot_general(f32[2, 3], f32[3, 5]): dot_general lhs dimension 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dot_general %a, %b {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @rhs_dimension_negative(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{'dhlo.dot_general' dot_general(f32[2, 3], f32[3, 5]): dot_general rhs dimension -1 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dot_general %a, %b {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: -1>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// A dim may not be both a batch and a contracting dim.
func.func @batch_and_contracting(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{'dhlo.dot_general' dot_general(f32[3, 3], f32[3, 3]): dot_general lhs dimension 0 appears twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dot_general %a, %b {lhs_batch_dimensions = array<i64: 0>, rhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Batch dims, then lhs free dims, then rhs free dims: [2, 5], not [5, 2].
func.func @result_order(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<5x2xf32> {
  // expected-error @+2 {{'dhlo.dot_general' op inferred type(s) 'tensor<2x5xf32>' are incompatible with return type(s) of operation 'tensor<5x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.dot_general %a, %b {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

func.func @missing_rhs_contracting(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'dhlo.dot_general' op requires attribute 'rhs_contracting_dimensions'}}
  %0 = dhlo.dot_general %a, %b {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

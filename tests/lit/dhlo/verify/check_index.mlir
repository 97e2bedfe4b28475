// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of dhlo.check_index: integer indices of 32 or 64 bits,
// an axis of the operand, ranked operands.

func.func @float_indices(%i: tensor<4xf32>, %t: tensor<?x8xf32>) {
  // expected-error @+1 {{indices must be i32 or i64, got 'f32'}}
  dhlo.check_index %i, %t {axis = 0 : i64, allow_negative = true, node = 1 : i64} : tensor<4xf32>, tensor<?x8xf32>
  return
}

// -----

func.func @axis_out_of_range(%i: tensor<4xi64>, %t: tensor<?x8xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  dhlo.check_index %i, %t {axis = 2 : i64, allow_negative = false, node = 1 : i64} : tensor<4xi64>, tensor<?x8xf32>
  return
}

// -----

func.func @unranked(%i: tensor<*xi32>, %t: tensor<?x8xf32>) {
  // expected-error @+1 {{takes ranked tensors or buffers}}
  dhlo.check_index %i, %t {axis = 0 : i64, allow_negative = false, node = 1 : i64} : tensor<*xi32>, tensor<?x8xf32>
  return
}

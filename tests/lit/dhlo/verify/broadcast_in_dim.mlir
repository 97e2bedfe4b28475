// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of broadcast_in_dim.
// Covers broadcast_dimensions of the wrong
// length, out of range or repeated; an operand dim neither 1 nor the target;
// an anonymous target dim nothing maps to; bad shape entries; missing or
// mistyped attributes; a result contradicting the shape.

func.func @wrong_number_of_dimensions(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{'dhlo.broadcast_in_dim' broadcast_in_dim(f32[4]): broadcast_dimensions has 2 entries for an operand of rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0, 1>, shape = #dhlo.shape<2, 4>} : (tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @too_few_dimensions(%x: tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{broadcast_dimensions has 1 entries for an operand of rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>, shape = #dhlo.shape<n, 4>} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xf32, #dhlo.shape<n, 4>>
}

// -----

func.func @dimension_out_of_range(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{'dhlo.broadcast_in_dim' broadcast_in_dim(f32[4]): broadcast_dimensions entry 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 2>, shape = #dhlo.shape<2, 4>} : (tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @negative_dimension(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{broadcast_dimensions entry -1 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: -1>, shape = #dhlo.shape<2, 4>} : (tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @duplicate_dimension(%x: tensor<4x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{'dhlo.broadcast_in_dim' broadcast_in_dim(f32[4, 4]): broadcast_dimensions entry 1 appears twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1, 1>, shape = #dhlo.shape<2, 4>} : (tensor<4x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @neither_one_nor_target(%x: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{'dhlo.broadcast_in_dim' broadcast_in_dim(f32[3]): operand dim 0 (3) is neither 1 nor result dim 1 (4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>, shape = #dhlo.shape<2, 4>} : (tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A symbolic operand against a static target is fine, but two static sizes
// are checked even when the mapping is permuted.
func.func @neither_one_nor_target_permuted(%x: tensor<?x5xi32, #dhlo.shape<n, 5>>) -> tensor<3x?xi32, #dhlo.shape<3, n>> {
  // expected-error @+2 {{operand dim 1 (5) is neither 1 nor result dim 0 (3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1, 0>, shape = #dhlo.shape<3, n>} : (tensor<?x5xi32, #dhlo.shape<n, 5>>) -> tensor<3x?xi32, #dhlo.shape<3, n>>
  return %0 : tensor<3x?xi32, #dhlo.shape<3, n>>
}

// -----

func.func @anonymous_unmapped(%x: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-error @+2 {{'dhlo.broadcast_in_dim' broadcast_in_dim(f32[4]): result dim 0 is anonymous but no operand dim maps to it}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>, shape = #dhlo.shape<?, 4>} : (tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// -1 belongs to reshape targets only.
func.func @inferred_target(%x: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-error @+2 {{'dhlo.broadcast_in_dim' broadcast_in_dim(f32[4]): negative size -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>, shape = #dhlo.shape<-1, 4>} : (tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @negative_expression_target(%x: tensor<?xf32, #dhlo.shape<n>>) -> tensor<2x?xf32> {
  // expected-error @+2 {{broadcast_in_dim(f32[n]): dim expression -1 is negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>, shape = #dhlo.shape<2, "n - n - 1">} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

func.func @result_contradicts_shape(%x: tensor<4xf32>) -> tensor<3x4xf32> {
  // expected-error @+2 {{'dhlo.broadcast_in_dim' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<3x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>, shape = #dhlo.shape<2, 4>} : (tensor<4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @missing_shape(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'dhlo.broadcast_in_dim' op requires attribute 'shape'}}
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @missing_broadcast_dimensions(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'dhlo.broadcast_in_dim' op requires attribute 'broadcast_dimensions'}}
  %0 = dhlo.broadcast_in_dim %x {shape = #dhlo.shape<2, 4>} : (tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @shape_not_a_dhlo_shape(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'dhlo.broadcast_in_dim' op attribute 'shape' failed to satisfy constraint: symbolic dims}}
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>, shape = [2, 4]} : (tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

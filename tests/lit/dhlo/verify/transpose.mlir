// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of transpose.
// Covers a permutation with a repeated entry, an
// entry out of range, the wrong length, a result that is not the permuted
// operand, and the missing permutation.

func.func @repeated_entry(%x: tensor<6x4xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.transpose' transpose(f32[6, 4]): permutation entry 0 appears twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.transpose %x {permutation = array<i64: 0, 0>} : (tensor<6x4xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @entry_out_of_range(%x: tensor<6x4xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.transpose' transpose(f32[6, 4]): permutation entry 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.transpose %x {permutation = array<i64: 0, 2>} : (tensor<6x4xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @negative_entry(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+2 {{permutation entry -1 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.transpose %x {permutation = array<i64: -1, 0>} : (tensor<6x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

func.func @too_long(%x: tensor<6x4xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.transpose' transpose(f32[6, 4]): permutation has 3 entries for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<6x4xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @too_short(%x: tensor<?x?x4xf32, #dhlo.shape<batch, seq, 4>>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.transpose' transpose(f32[batch, seq, 4]): permutation has 2 entries for rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x?x4xf32, #dhlo.shape<batch, seq, 4>>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @result_not_permuted(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+2 {{'dhlo.transpose' op inferred type(s) 'tensor<4x6xf32>' are incompatible with return type(s) of operation 'tensor<6x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.transpose %x {permutation = array<i64: 1, 0>} : (tensor<6x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

func.func @missing_permutation(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{'dhlo.transpose' op requires attribute 'permutation'}}
  %0 = dhlo.transpose %x : (tensor<6x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

func.func @permutation_not_an_array(%x: tensor<6x4xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'dhlo.transpose' op attribute 'permutation' failed to satisfy constraint: i64 dense array attribute}}
  %0 = dhlo.transpose %x {permutation = [1, 0]} : (tensor<6x4xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

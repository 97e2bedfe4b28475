// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of reshape.
// Covers two -1 dims, a static element count change, a
// -1 next to a (possibly symbolic) 0, an indivisible static split, ? and
// negative target entries, a result contradicting the target, and the
// missing shape attribute.

func.func @two_inferred_dims(%x: tensor<6x4xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'dhlo.reshape' reshape(f32[6, 4]): reshape has more than one -1 dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, -1>} : (tensor<6x4xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @element_count_changes(%x: tensor<6x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{'dhlo.reshape' reshape(f32[6, 4]): reshape changes the element count from 24 to 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reshape %x {shape = #dhlo.shape<2, 4>} : (tensor<6x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A rank-0 target holds exactly one element.
func.func @element_count_to_scalar(%x: tensor<2xi64>) -> tensor<i64> {
  // expected-error @+2 {{reshape changes the element count from 2 to 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reshape %x {shape = #dhlo.shape<>} : (tensor<2xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @inferred_next_to_zero(%x: tensor<6x4xf32>) -> tensor<?x0xf32> {
  // expected-error @+2 {{'dhlo.reshape' reshape(f32[6, 4]): reshape cannot infer a -1 dim next to a 0 dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, 0>} : (tensor<6x4xf32>) -> tensor<?x0xf32>
  return %0 : tensor<?x0xf32>
}

// -----

// "n - n" is the constant 0 too.
func.func @inferred_next_to_symbolic_zero(%x: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x0xf32> {
  // expected-error @+2 {{'dhlo.reshape' reshape(f32[n]): reshape cannot infer a -1 dim next to a 0 dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, "n - n">} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x0xf32>
  return %0 : tensor<?x0xf32>
}

// -----

func.func @indivisible(%x: tensor<10xf32>) -> tensor<?x3xf32> {
  // expected-error @+2 {{'dhlo.reshape' reshape(f32[10]): reshape cannot split 10 elements into 3 times an integer}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, 3>} : (tensor<10xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @anonymous_target_dim(%x: tensor<10xf32>) -> tensor<?x5xf32> {
  // expected-error @+2 {{'dhlo.reshape' reshape(f32[10]): reshape dim 0: an anonymous dynamic dim is not allowed here}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reshape %x {shape = #dhlo.shape<?, 5>} : (tensor<10xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// Sizes below -1 are rejected by #dhlo.shape itself, at parse time.
func.func @negative_target_dim(%x: tensor<10xf32>) -> tensor<?x5xf32> {
  // expected-error @+1 {{#dhlo.shape dim 0 is negative (-2)}}
  %0 = dhlo.reshape %x {shape = #dhlo.shape<-2, 5>} : (tensor<10xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

func.func @result_contradicts_inferred(%x: tensor<10xf32>) -> tensor<5x5xf32> {
  // expected-error @+2 {{'dhlo.reshape' op inferred type(s) 'tensor<2x5xf32>' are incompatible with return type(s) of operation 'tensor<5x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, 5>} : (tensor<10xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

func.func @result_rank_differs(%x: tensor<?x?xf32, #dhlo.shape<batch, seq>>) -> tensor<?xf32> {
  // expected-error @+2 {{'dhlo.reshape' op inferred type(s) 'tensor<?x?xf32, #dhlo.shape<batch, seq>>' are incompatible with return type(s) of operation 'tensor<?xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reshape %x {shape = #dhlo.shape<batch, seq>} : (tensor<?x?xf32, #dhlo.shape<batch, seq>>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @missing_shape(%x: tensor<10xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'dhlo.reshape' op requires attribute 'shape'}}
  %0 = dhlo.reshape %x : (tensor<10xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Errors of #dhlo.shape, as an attribute and as a tensor encoding.
// Covers the attribute (negative sizes,
// unparseable quoted expressions, bad entries) and as a tensor encoding
// (rank mismatch, static entries contradicting the tensor, symbolic entries
// on static dims, -1).

// expected-error @+1 {{#dhlo.shape has 1 dims for a tensor of rank 2}}
func.func @rank_mismatch(%x: tensor<?x?xf32, #dhlo.shape<n>>) {
  return
}

// -----

// expected-error @+1 {{#dhlo.shape has 1 dims for a tensor of rank 0}}
func.func @rank_mismatch_scalar(%x: tensor<f32, #dhlo.shape<1>>) {
  return
}

// -----

// expected-error @+1 {{#dhlo.shape dim 0 disagrees with the tensor's size 4}}
func.func @static_entry_contradicts(%x: tensor<4xf32, #dhlo.shape<5>>) {
  return
}

// -----

// expected-error @+1 {{#dhlo.shape dim 1 disagrees with the tensor's size 768}}
func.func @static_entry_contradicts_dim_1(%x: tensor<?x768xf32, #dhlo.shape<n, 512>>) {
  return
}

// -----

// A static dim must be written as its size, not as a symbol or ?.
// expected-error @+1 {{#dhlo.shape dim 0 disagrees with the tensor's size 4}}
func.func @symbol_on_static_dim(%x: tensor<4xf32, #dhlo.shape<n>>) {
  return
}

// -----

// expected-error @+1 {{#dhlo.shape dim 1 disagrees with the tensor's size 8}}
func.func @expression_on_static_dim(%x: tensor<?x8xf32, #dhlo.shape<n, "n + 1">>) {
  return
}

// -----

// expected-error @+1 {{#dhlo.shape dim 0 disagrees with the tensor's size 4}}
func.func @unknown_on_static_dim(%x: tensor<4xf32, #dhlo.shape<?>>) {
  return
}

// -----

// And a dynamic dim cannot be given a static size (nor an expression that
// is one).
// expected-error @+1 {{#dhlo.shape dim 0 disagrees with the tensor's size ?}}
func.func @static_entry_on_dynamic_dim(%x: tensor<?xf32, #dhlo.shape<4>>) {
  return
}

// -----

// expected-error @+1 {{#dhlo.shape dim 0 disagrees with the tensor's size ?}}
func.func @constant_expression_on_dynamic_dim(%x: tensor<?xf32, #dhlo.shape<"n - n">>) {
  return
}

// -----

// expected-error @+1 {{#dhlo.shape dim 0 is -1, which only a reshape target may use}}
func.func @inferred_in_encoding(%x: tensor<?xf32, #dhlo.shape<-1>>) {
  return
}

// -----

// expected-error @+1 {{#dhlo.shape dim 0 'n +* m' is not a polynomial over symbols}}
func.func @unparseable_expression(%x: tensor<?xf32, #dhlo.shape<"n +* m">>) {
  return
}

// -----

// expected-error @+1 {{#dhlo.shape dim 0 '3x' is not a polynomial over symbols}}
func.func @symbol_starting_with_digit(%x: tensor<?xf32, #dhlo.shape<"3x">>) {
  return
}

// -----

// A bare '?' inside quotes is not a fresh symbol (it needs a suffix).
// expected-error @+1 {{#dhlo.shape dim 0 '?' is not a polynomial over symbols}}
func.func @bare_question_mark_quoted(%x: tensor<?xf32, #dhlo.shape<"?">>) {
  return
}

// -----

// expected-error @+1 {{#dhlo.shape dim 0 '' is not a polynomial over symbols}}
func.func @empty_expression(%x: tensor<?xf32, #dhlo.shape<"">>) {
  return
}

// -----

// MLIR keywords may contain '.', symbols may not.
// expected-error @+1 {{#dhlo.shape dim 0 'a.b' is not a polynomial over symbols}}
func.func @dotted_keyword(%x: tensor<?xf32, #dhlo.shape<a.b>>) {
  return
}

// -----

// expected-error @+1 {{#dhlo.shape dim 0 '99999999999999999999' is not a polynomial over symbols}}
func.func @overflowing_expression(%x: tensor<?xf32, #dhlo.shape<"99999999999999999999">>) {
  return
}

// -----

// expected-error @+1 {{#dhlo.shape dim 0 is negative (-2)}}
func.func @negative_size(%x: tensor<?xf32, #dhlo.shape<-2>>) {
  return
}

// -----

// Sizes below -1 are rejected outside tensor types too.
// expected-error @+1 {{#dhlo.shape dim 1 is negative (-5)}}
func.func @negative_size_attribute() attributes {s = #dhlo.shape<1, -5>} {
  return
}

// -----

// expected-error @+1 {{#dhlo.shape dim 0 'n*' is not a polynomial over symbols}}
func.func @unparseable_attribute() attributes {s = #dhlo.shape<"n*">} {
  return
}

// -----

// expected-error @+1 {{expected a size, a symbol, a quoted expression or ?}}
func.func @bad_entry(%x: tensor<?xf32, #dhlo.shape<[1]>>) {
  return
}

// -----

// Fresh "?N" symbols may appear in types but not in op attributes, which the
// wire format reads as user symbols.
func.func @fresh_symbol_in_reshape_target(%x: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32> {
  // expected-error @+2 {{'dhlo.reshape' 'shape': bad factor '?3' in dim expression '?3'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.reshape %x {shape = #dhlo.shape<"?3">} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

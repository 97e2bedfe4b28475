// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// ODS operand/result count and type errors of dhlo ops.
// Covers wrong operand or result counts,
// unranked or non-tensor operands, and an op dhlo does not have.

func.func @three_operands(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dhlo.add' op expected 2 operands, but found 3}}
  %0 = dhlo.add %a, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unary_two_operands(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dhlo.neg' op requires a single operand}}
  %0 = dhlo.neg %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pad_without_value(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dhlo.pad' op expected 2 operands, but found 1}}
  %0 = dhlo.pad %a {edge_padding_low = array<i64: 0>, edge_padding_high = array<i64: 0>, interior_padding = array<i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @two_results(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'dhlo.exp' op requires one result}}
  %0:2 = dhlo.exp %a : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @unranked_operand(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'dhlo.exp' op operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = dhlo.exp %a : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @memref_operand(%a: memref<4xf32>) -> tensor<i64> {
  // expected-error @+1 {{'dhlo.dim_size' op operand #0 must be ranked tensor of any type values, but got 'memref<4xf32>'}}
  %0 = dhlo.dim_size %a {dimension = 0 : i64} : (memref<4xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @unranked_result(%a: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'dhlo.tanh' op result #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = dhlo.tanh %a : (tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// dhlo has no parameter op: inputs are function arguments.
func.func @unknown_op() -> tensor<4xf32> {
  // expected-error @+1 {{custom op 'dhlo.parameter' is unknown}}
  %0 = dhlo.parameter : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// RUN: %anyshape-opt %s -split-input-file -dhlo-test-print-shape-analysis -o /dev/null --mlir-disable-threading | FileCheck %s
// The shape constraint analysis, via dhlo-test-print-shape-analysis.
// Printed: each value's dims in canonical form, the equivalence classes (by
// representative, with static values), the atoms defined as polynomials,
// the reshape product equalities and the contradictions.

// Elementwise ops merge the classes of their operands' and result's dims;
// a static 4 makes a whole class static; a symbol names its class. (The
// mul's rule infers its result dim as 4, so #7 is bound to 4 alone.)
// CHECK-LABEL: shape analysis of @elementwise
// CHECK-NEXT: values:
// CHECK-NEXT:   arg0: [batch, 4]
// CHECK-NEXT:   arg1: [batch, 4]
// CHECK-NEXT:   arg2: [batch, 4]
// CHECK-NEXT:   dhlo.add: [batch, 4]
// CHECK-NEXT:   dhlo.mul: [batch, 4]
// CHECK-NEXT: classes:
// CHECK-NEXT:   #1 = {#1, #2, #5} = 4
// CHECK-NEXT:   #7 = {#7} = 4
// CHECK-NEXT:   batch = {#0, #3, #4, #6, batch}
// CHECK-NEXT: definitions:
// CHECK-NEXT: products:
// CHECK-NEXT: contradictions: 0
func.func @elementwise(%a: tensor<?x?xf32>, %b: tensor<?x?xf32, #dhlo.shape<batch, ?>>, %c: tensor<?x4xf32>) -> tensor<?x?xf32> {
  %0 = dhlo.add %a, %b : (tensor<?x?xf32>, tensor<?x?xf32, #dhlo.shape<batch, ?>>) -> tensor<?x?xf32>
  %1 = dhlo.mul %0, %c : (tensor<?x?xf32>, tensor<?x4xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// Same-named symbols are one atom without any op relating them.
// CHECK-LABEL: shape analysis of @same_name
// CHECK-NEXT: values:
// CHECK-NEXT:   arg0: [n, 4]
// CHECK-NEXT:   arg1: [n]
// CHECK-NEXT: classes:
// CHECK-NEXT: definitions:
func.func @same_name(%a: tensor<?x4xf32, #dhlo.shape<n, 4>>, %b: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>> {
  return %b : tensor<?xf32, #dhlo.shape<n>>
}

// -----

// dot_general: batch dims with batch dims, contracting with contracting
// (a static 4 on the rhs makes the lhs's contracting dim 4), free dims
// with the result's.
// CHECK-LABEL: shape analysis of @dot_general
// CHECK-NEXT: values:
// CHECK-NEXT:   arg0: {{\[}}[[B:#[0-9]+]], [[M:#[0-9]+]], [[K:#[0-9]+]]]
// CHECK-NEXT:   arg1: {{\[}}[[B]], 4, [[K]]]
// CHECK-NEXT:   dhlo.dot_general: {{\[}}[[B]], [[M]], 4]
// CHECK-NEXT:   dhlo.constant: [4, 8]
// CHECK-NEXT:   dhlo.dot_general: {{\[}}[[B]], [[M]], 8]
// CHECK:      contradictions: 0
func.func @dot_general(%q: tensor<?x?x?xf32>, %k: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %s = dhlo.dot_general %q, %k {lhs_batch_dimensions = array<i64: 0>, rhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 2>} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %w = dhlo.constant dense<1.0> : tensor<4x8xf32>
  %p = dhlo.dot_general %s, %w {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x?x?xf32>, tensor<4x8xf32>) -> tensor<?x?x?xf32>
  return %p : tensor<?x?x?xf32>
}

// -----

// transpose permutes the classes; gather and reduce carry them through
// (named ops are labelled by their NameLoc).
// CHECK-LABEL: shape analysis of @transpose_gather_reduce
// CHECK-NEXT: values:
// CHECK-NEXT:   arg0: {{\[}}[[V:#[0-9]+]], [[H:#[0-9]+]]]
// CHECK-NEXT:   arg1: [batch, seq]
// CHECK-NEXT:   dhlo.gather 'embed': [batch, seq, [[H]]]
// CHECK-NEXT:   dhlo.transpose 'swap': {{\[}}[[H]], seq, batch]
// CHECK-NEXT:   dhlo.reduce 'pool': {{\[}}[[H]], batch]
// CHECK-NEXT: classes:
// CHECK-NOT:  [[V]] =
// CHECK:      batch = {{{.*}}batch}
// CHECK-NEXT:   seq = {{{.*}}seq}
// CHECK-NEXT: definitions:
func.func @transpose_gather_reduce(%table: tensor<?x?xf32>, %ids: tensor<?x?xi32, #dhlo.shape<batch, seq>>) -> tensor<?x?xf32> {
  %0 = dhlo.gather %table, %ids {axis = 0 : i64} : (tensor<?x?xf32>, tensor<?x?xi32, #dhlo.shape<batch, seq>>) -> tensor<?x?x?xf32> loc("embed")
  %1 = dhlo.transpose %0 {permutation = array<i64: 2, 1, 0>} : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32> loc("swap")
  %2 = dhlo.reduce %1 {dimensions = array<i64: 1>, kind = "max"} : (tensor<?x?x?xf32>) -> tensor<?x?xf32> loc("pool")
  return %2 : tensor<?x?xf32>
}

// -----

// concatenate: non-axis dims are equal, the axis dim is the sum (an
// unknown result dim is defined as m + 2*n).
// CHECK-LABEL: shape analysis of @concatenate
// CHECK-NEXT: values:
// CHECK-NEXT:   arg0: [n, k]
// CHECK-NEXT:   arg1: [m, k]
// CHECK-NEXT:   dhlo.concatenate: [m + 2*n, k]
// CHECK-NEXT: classes:
// CHECK-NEXT:   k = {#1, k}
// CHECK-NEXT: definitions:
// CHECK-NEXT:   #0 = m + 2*n
// CHECK-NEXT: products:
// CHECK-NEXT: contradictions: 0
func.func @concatenate(%a: tensor<?x?xf32, #dhlo.shape<n, k>>, %b: tensor<?x?xf32, #dhlo.shape<m, k>>) -> tensor<?x?xf32> {
  %0 = dhlo.concatenate %a, %b, %a {dimension = 0 : i64} : (tensor<?x?xf32, #dhlo.shape<n, k>>, tensor<?x?xf32, #dhlo.shape<m, k>>, tensor<?x?xf32, #dhlo.shape<n, k>>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Linear facts solve to static values: n + m = 10 and 2*n = 8.
// CHECK-LABEL: shape analysis of @linear
// CHECK-NEXT: values:
// CHECK-NEXT:   arg0: [4]
// CHECK-NEXT:   arg1: [6]
// CHECK-NEXT:   dhlo.concatenate: [10]
// CHECK-NEXT:   dhlo.concatenate: [8]
// CHECK:      contradictions: 0
func.func @linear(%a: tensor<?xf32, #dhlo.shape<n>>, %b: tensor<?xf32, #dhlo.shape<m>>) -> (tensor<10xf32>, tensor<8xf32>) {
  %0 = dhlo.concatenate %a, %b {dimension = 0 : i64} : (tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<m>>) -> tensor<10xf32>
  %1 = dhlo.concatenate %a, %a {dimension = 0 : i64} : (tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>) -> tensor<8xf32>
  return %0, %1 : tensor<10xf32>, tensor<8xf32>
}

// -----

// reshape [batch, seq, 768] -> [-1, 768]: the rule divides the element
// count exactly, which defines the unknown result dim as batch*seq (an
// importer's fresh "?3" likewise); nothing is left to a product.
// CHECK-LABEL: shape analysis of @flatten
// CHECK-NEXT: values:
// CHECK-NEXT:   arg0: [batch, seq, 768]
// CHECK-NEXT:   dhlo.reshape: [batch*seq, 768]
// CHECK-NEXT:   dhlo.reshape 'named': [batch*seq, 768]
// CHECK-NEXT:   dhlo.exp: [batch*seq, 768]
// CHECK-NEXT: classes:
// CHECK-NEXT: definitions:
// CHECK-NEXT:   #0 = batch*seq
// CHECK-NEXT:   ?3 = batch*seq
// CHECK-NEXT: products:
// CHECK-NEXT: contradictions: 0
func.func @flatten(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> (tensor<?x768xf32>, tensor<?x768xf32, #dhlo.shape<"?3", 768>>) {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32>
  %1 = dhlo.reshape %x {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<"?3", 768>> loc("named")
  %2 = dhlo.exp %1 : (tensor<?x768xf32, #dhlo.shape<"?3", 768>>) -> tensor<?x768xf32, #dhlo.shape<"?3", 768>>
  return %0, %2 : tensor<?x768xf32>, tensor<?x768xf32, #dhlo.shape<"?3", 768>>
}

// -----

// Un-flattening with [batch, -1, 768]: the rule cannot divide an unknown
// count, so the quotient is its own atom (#r1.0) with a product fact; the
// -1 makes batch provably non-zero, so batch cancels from
// 768*batch*seq == 768*batch*#r1.0 and the unknown dim is seq.
// CHECK-LABEL: shape analysis of @unflatten
// CHECK-NEXT: values:
// CHECK-NEXT:   arg0: [batch, seq, 768]
// CHECK-NEXT:   dhlo.reshape: [batch*seq, 768]
// CHECK-NEXT:   dhlo.reshape: [batch, seq, 768]
// CHECK-NEXT: classes:
// CHECK-NEXT:   seq = {#1, #r1.0, seq}
// CHECK-NEXT: definitions:
// CHECK-NEXT:   #0 = batch*seq
// CHECK-NEXT: products:
// CHECK-NEXT:   768*batch*seq == 768*batch*seq
// CHECK-NEXT: contradictions: 0
func.func @unflatten(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x768xf32, #dhlo.shape<batch, ?, 768>> {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32>
  %1 = dhlo.reshape %0 {shape = #dhlo.shape<batch, -1, 768>} : (tensor<?x768xf32>) -> tensor<?x?x768xf32, #dhlo.shape<batch, ?, 768>>
  return %1 : tensor<?x?x768xf32, #dhlo.shape<batch, ?, 768>>
}

// -----

// Without a -1 nothing says a is non-zero: a*b == a*c does not prove c = b
// (with a = 0 both sides are 0 whatever c is). The unknown result dim is
// the attribute's c (the rule's result dim), not b.
// CHECK-LABEL: shape analysis of @no_cancellation
// CHECK-NEXT: values:
// CHECK-NEXT:   arg0: [a, b]
// CHECK-NEXT:   dhlo.reshape: [a, c]
// CHECK-NEXT: classes:
// CHECK-NEXT:   c = {#0, c}
// CHECK-NEXT: definitions:
// CHECK-NEXT: products:
// CHECK-NEXT:   a*b == a*c
// CHECK-NEXT: contradictions: 0
func.func @no_cancellation(%x: tensor<?x?xf32, #dhlo.shape<a, b>>) -> tensor<?x?xf32, #dhlo.shape<a, ?>> {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<a, c>} : (tensor<?x?xf32, #dhlo.shape<a, b>>) -> tensor<?x?xf32, #dhlo.shape<a, ?>>
  return %0 : tensor<?x?xf32, #dhlo.shape<a, ?>>
}

// -----

// A static reshape: the rule divides 24 by 8, so ? = 3.
// CHECK-LABEL: shape analysis of @static_reshape
// CHECK-NEXT: values:
// CHECK-NEXT:   arg0: [6, 4]
// CHECK-NEXT:   dhlo.reshape: [3, 8]
// CHECK-NEXT: classes:
// CHECK-NEXT:   #0 = {#0} = 3
// CHECK-NEXT: definitions:
// CHECK-NEXT: products:
// CHECK-NEXT: contradictions: 0
func.func @static_reshape(%x: tensor<6x4xf32>) -> tensor<?x8xf32> {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, 8>} : (tensor<6x4xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// broadcast_in_dim: an operand dim known not to be 1 (5) equals its result
// dim; a symbolic one may be 1 and stretch, so n and m stay apart.
// CHECK-LABEL: shape analysis of @broadcast
// CHECK-NEXT: values:
// CHECK-NEXT:   arg0: [n]
// CHECK-NEXT:   arg1: [5]
// CHECK-NEXT:   dhlo.broadcast_in_dim: [k, m]
// CHECK-NEXT:   dhlo.broadcast_in_dim: [k, 5]
// CHECK-NEXT: classes:
// CHECK-NEXT:   #0 = {#0} = 5
// CHECK-NEXT: definitions:
func.func @broadcast(%x: tensor<?xf32, #dhlo.shape<n>>, %y: tensor<5xf32>) -> (tensor<?x?xf32, #dhlo.shape<k, m>>, tensor<?x?xf32, #dhlo.shape<k, ?>>) {
  %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 1>, shape = #dhlo.shape<k, m>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x?xf32, #dhlo.shape<k, m>>
  %1 = dhlo.broadcast_in_dim %y {broadcast_dimensions = array<i64: 1>, shape = #dhlo.shape<k, 5>} : (tensor<5xf32>) -> tensor<?x?xf32, #dhlo.shape<k, ?>>
  return %0, %1 : tensor<?x?xf32, #dhlo.shape<k, m>>, tensor<?x?xf32, #dhlo.shape<k, ?>>
}

// -----

// A class that is 3 by one add and 4 by another: reported, and the class
// keeps the first value.
// CHECK-LABEL: shape analysis of @contradiction
// CHECK-NEXT: values:
// CHECK-NEXT:   arg0: [3]
// CHECK:      classes:
// CHECK-NEXT:   n = {n} = 3
// CHECK:      contradictions: 1
// CHECK-NEXT:   n == 4 cannot hold: it reduces to 3 == 4
func.func @contradiction(%a: tensor<?xf32, #dhlo.shape<n>>, %b: tensor<3xf32>, %c: tensor<4xf32>) -> tensor<?xf32, #dhlo.shape<n>> {
  %0 = dhlo.add %a, %b : (tensor<?xf32, #dhlo.shape<n>>, tensor<3xf32>) -> tensor<?xf32, #dhlo.shape<n>>
  %1 = dhlo.add %0, %c : (tensor<?xf32, #dhlo.shape<n>>, tensor<4xf32>) -> tensor<?xf32, #dhlo.shape<n>>
  return %1 : tensor<?xf32, #dhlo.shape<n>>
}

// -----

// Every op's facts come from its wire shape rule, so ops the analysis has
// no case for are known too: a slice's result dim is its rule's
// "limit - start" even where the result type says nothing.
// CHECK-LABEL: shape analysis of @slice
// CHECK-NEXT: values:
// CHECK-NEXT:   arg0: [n, 8]
// CHECK-NEXT:   dhlo.slice: [n - 1, 4]
// CHECK-NEXT: classes:
// CHECK-NEXT:   #1 = {#1} = 4
// CHECK-NEXT: definitions:
// CHECK-NEXT:   #0 = n - 1
func.func @slice(%x: tensor<?x8xf32, #dhlo.shape<n, 8>>) -> tensor<?x?xf32> {
  %0 = dhlo.slice %x {start_indices = #dhlo.shape<1, 0>, limit_indices = #dhlo.shape<n, 8>, strides = array<i64: 1, 2>} : (tensor<?x8xf32, #dhlo.shape<n, 8>>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

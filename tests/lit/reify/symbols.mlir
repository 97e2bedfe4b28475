// RUN: %anyshape-opt %s --resolve-ranked-shaped-type-result-dims --canonicalize --cse | FileCheck %s
// Shape reification through #dhlo.shape symbols: a result dim named by
// symbols is computed directly from the function argument dims that bind
// them, however deep the value is.

// CHECK-LABEL: func @from_symbols
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
func.func @from_symbols(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = dhlo.exp %x : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
  %r = dhlo.reshape %e {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %t = dhlo.transpose %r {permutation = array<i64: 1, 0>} : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<768x?xf32, #dhlo.shape<768, "batch*seq">>
  // CHECK-DAG: %[[B:.*]] = tensor.dim %[[X]], %c0
  // CHECK-DAG: %[[S:.*]] = tensor.dim %[[X]], %c1
  // CHECK: %[[BS:.*]] = arith.muli %[[B]], %[[S]] : index
  %d0 = tensor.dim %r, %c0 : tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %d1 = tensor.dim %t, %c1 : tensor<768x?xf32, #dhlo.shape<768, "batch*seq">>
  // CHECK: return %[[BS]], %[[BS]] : index, index
  return %d0, %d1 : index, index
}

// CHECK-LABEL: func @expression_with_constant
func.func @expression_with_constant(%x: tensor<?xf32, #dhlo.shape<n>>, %y: tensor<1xf32>) -> index {
  %c0 = arith.constant 0 : index
  %cat = dhlo.concatenate %x, %y {dimension = 0 : i64} : (tensor<?xf32, #dhlo.shape<n>>, tensor<1xf32>) -> tensor<?xf32, #dhlo.shape<"n + 1">>
  // CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
  // CHECK: %[[N1:.*]] = arith.addi %[[N]], %c1
  // CHECK: return %[[N1]]
  %d = tensor.dim %cat, %c0 : tensor<?xf32, #dhlo.shape<"n + 1">>
  return %d : index
}

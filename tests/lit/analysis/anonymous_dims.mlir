// RUN: %anyshape-opt %s --dhlo-test-print-shape-analysis -o /dev/null | FileCheck %s
// Without symbol names the analysis rediscovers the classes from the ops:
// an attention-like block whose inputs have only anonymous dims.

// CHECK-LABEL: shape analysis of @attention_like
func.func @attention_like(%q: tensor<?x?x64xf32>, %k: tensor<?x?x64xf32>, %bias: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // Batch dims of q and k are equal (batch dims), so are the 64s
  // (contracting); the scores are [b, sq, sk].
  %s = dhlo.dot_general %q, %k {lhs_batch_dimensions = array<i64: 0>, rhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 2>} : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x?xf32>
  %r = dhlo.reduce %s {kind = "max", dimensions = array<i64: 0>} : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  // The add makes bias [sq, sk].
  %y = dhlo.add %r, %bias : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
// CHECK: values:
// CHECK-NEXT: arg0: {{\[}}[[B:#[0-9]+]], [[SQ:#[0-9]+]], 64]
// CHECK-NEXT: arg1: {{\[}}[[B]], [[SK:#[0-9]+]], 64]
// CHECK-NEXT: arg2: {{\[}}[[SQ]], [[SK]]]
// CHECK-NEXT: dhlo.dot_general: {{\[}}[[B]], [[SQ]], [[SK]]]
// CHECK-NEXT: dhlo.reduce: {{\[}}[[SQ]], [[SK]]]
// CHECK-NEXT: dhlo.add: {{\[}}[[SQ]], [[SK]]]
// CHECK: contradictions: 0

// RUN: %anyshape import %examples/bert_encoder_layer.pbtxt | %anyshape-opt --dhlo-test-print-shape-analysis -o /dev/null > %t
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=NOUNKNOWN < %t
// The shape analysis on the BERT encoder layer (batch and seq symbolic):
// every seq dim is in one class and every batch dim in another, the hidden
// (768), head (12 x 64) and FFN (3072) dims are static, and every reshape's
// element count is equal by its rule alone: no product fact is left. No dim
// is left unknown, and nothing contradicts.

// CHECK-LABEL: shape analysis of @main
// CHECK: values:
// CHECK-NEXT: arg0: [batch, seq, 768]
// CHECK-NEXT: arg1: [batch, seq]
// The attention heads: split, transposed, scored, merged.
// CHECK-DAG: dhlo.reshape: [batch, seq, 12, 64]
// CHECK-DAG: dhlo.transpose: [batch, 12, seq, 64]
// CHECK-DAG: dhlo.dot_general: [batch, 12, seq, seq]
// CHECK-DAG: dhlo.reshape: [batch, 1, 1, seq]
// CHECK-DAG: dhlo.transpose: [batch, seq, 12, 64]
// CHECK-DAG: dhlo.reshape: [batch, seq, 768]
// CHECK-DAG: dhlo.dot_general: [batch, seq, 3072]
// CHECK-DAG: dhlo.reduce: [batch, 12, seq]
// No unknown atom ("#N") or fresh symbol ("?N") appears anywhere.
// NOUNKNOWN-NOT: {{#[0-9]|\?[0-9]}}
// CHECK: classes:
// CHECK-NEXT: definitions:
// CHECK-NEXT: products:
// CHECK-NEXT: contradictions: 0

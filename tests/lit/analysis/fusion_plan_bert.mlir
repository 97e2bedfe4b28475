// RUN: %anyshape import %examples/bert_encoder_layer.pbtxt --debuginfo | %anyshape-opt --dhlo-test-print-fusion-plan -o /dev/null | FileCheck %s
// The fusion plan of the encoder layer, decided without any concrete size:
// eight GEMMs go to the library; the attention softmax (scale, mask, max,
// exp, sum, divide) is one stitched kernel with two reductions; each
// residual + layer norm is one stitched kernel; bias + GELU is one loop.
// Each stitched kernel has a split-row version (its rows reduce their
// innermost dim).
// The mask's [batch, 1, 1, seq] reshape really is a different index space
// from the scores and is reported as not fused.

// CHECK-LABEL: fusion plan of @main
// CHECK: fusions: 18
// CHECK-COUNT-3: kLibrary root dhlo.dot_general {{.*}} over [batch, seq, 768], 2 ops: seeded_uniform dot_general | versions: library
// CHECK: kLoop root dhlo.reshape 'reshape_6' over [batch, 1, 1, seq]
// CHECK-COUNT-3: kLoop root dhlo.transpose {{.*}} over [batch, 12, seq, 64], 5 ops: constant broadcast_in_dim add reshape transpose
// CHECK: kLibrary root dhlo.dot_general {{.*}} over [batch, 12, seq, seq]
// CHECK: kStitch root dhlo.div {{.*}} over [batch, 12, seq, seq], 12 ops, 2 reductions: {{.*}} reduce {{.*}} exp reduce broadcast_in_dim div | versions: split-row parallel serial
// CHECK: kLibrary root dhlo.dot_general {{.*}} over [batch, 12, seq, 64]
// CHECK: kLibrary root dhlo.dot_general
// CHECK: kStitch root dhlo.add {{.*}} over [batch, seq, 768], 26 ops, 2 reductions: {{.*}} rsqrt {{.*}} | versions: split-row parallel serial
// CHECK: kLibrary root dhlo.dot_general {{.*}} over [batch, seq, 3072]
// CHECK: kLoop root dhlo.mul {{.*}} over [batch, seq, 3072], 14 ops: {{.*}} erf
// CHECK: kLibrary root dhlo.dot_general
// CHECK: kStitch root dhlo.add 'y' over [batch, seq, 768], 26 ops, 2 reductions: {{.*}} | versions: split-row parallel serial
// CHECK: not fused: 1
// CHECK-NEXT: dhlo.reshape 'reshape_6' into dhlo.add 'add_33': index space [batch, 1, 1, seq] not provably [batch, 12, seq, seq]

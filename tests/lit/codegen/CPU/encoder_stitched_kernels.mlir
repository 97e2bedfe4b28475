// RUN: %anyshape import %examples/bert_encoder_layer.pbtxt | %anyshape-opt --pass-pipeline='builtin.module(anyshape-cpu-pipeline)' -mlir-print-ir-after=anyshape-stitch-rows -mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s
// RUN: %anyshape import %examples/bert_encoder_layer.pbtxt | %anyshape-opt --pass-pipeline='builtin.module(anyshape-cpu-pipeline)' -mlir-print-ir-after=anyshape-speculate-kernels -mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLIT
// -mlir-disable-threading: printed IR of functions compiled in parallel
// would interleave (the test failed that way about once in ten runs).
// The CPU backend builds the encoder's kStitch kernels as its fusion plan
// lists them (tests/lit/analysis/fusion_plan_bert.mlir: the attention
// softmax and two residual + layer norms): three stitched row loops, the
// softmax over [batch, 12, seq] rows with its fills, two reductions and the
// quotient; each layer norm over [batch, seq] rows with two fills, two
// reductions and the normalisation. Each of the three, and no other
// kernel, asks the team size to choose its split-row version, as the plan
// lists.

// CHECK: scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) =
// CHECK-COUNT-2: linalg.fill
// CHECK: } {anyshape.stitched}
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK-COUNT-2: linalg.fill
// CHECK: } {anyshape.stitched}
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK-COUNT-2: linalg.fill
// CHECK: } {anyshape.stitched}
// CHECK-NOT: anyshape.stitched

// SPLIT-COUNT-3: call @anyshapeTeamSize()
// SPLIT-NOT: call @anyshapeTeamSize()

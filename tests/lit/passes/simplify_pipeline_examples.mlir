// RUN: %anyshape import --full-constants %examples/bert_encoder_layer.pbtxt | %anyshape-opt -pass-pipeline='builtin.module(dhlo-simplify)' -mlir-elide-elementsattrs-if-larger=16 > %t.bert
// RUN: FileCheck %s --check-prefix=BERT < %t.bert
// RUN: FileCheck %s --check-prefix=WEIGHTS < %t.bert
// RUN: %anyshape import --full-constants %examples/embedding.pbtxt | %anyshape-opt -pass-pipeline='builtin.module(dhlo-simplify)' | FileCheck %s --check-prefix=EMB
// RUN: %anyshape import %examples/elementwise_reduce.pbtxt > %t.ewr
// RUN: %anyshape-opt %t.ewr -pass-pipeline='builtin.module(dhlo-simplify)' | diff %t.ewr -
// RUN: %anyshape import %examples/mlp.pbtxt | %anyshape-opt -pass-pipeline='builtin.module(dhlo-simplify)' > %t.mlp
// RUN: %anyshape-opt %t.mlp -pass-pipeline='builtin.module(dhlo-simplify)' | diff %t.mlp -
// The dhlo-simplify pipeline on the imported examples.
// With their real constants, the importer's duplicate scalar constants
// and broadcasts are merged, distinct weights are not, every type stays named, and nothing
// becomes unknown. An already-canonical module (elementwise_reduce) is a
// fixed point, and so is the simplified mlp (simplifying only hoists its
// constants above its seeded weights).

// The BERT layer: of 26 constants, the six weight matrices import as
// dhlo.seeded_uniform (over 4096 elements: generated at load); of the 20
// others, the three scalars the importer emits twice (1.0, 768.0, 1e-12)
// merge; the 768x768 Q, K, V and output weights stay four distinct ops, so
// all 8 contractions remain.
// BERT-LABEL: func.func @main
// BERT-SAME: -> (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>> {dhlo.name = "y"})
// BERT-COUNT-17: dhlo.constant
// BERT-NOT: dhlo.constant
// BERT-COUNT-8: dhlo.dot_general
// BERT-NOT: dhlo.dot_general
// BERT-NOT: {{#dhlo.shape<[^>]*\?}}
// BERT: return
// WEIGHTS-COUNT-4: dhlo.seeded_uniform {{.*}} : tensor<768x768xf32>
// WEIGHTS-NOT: dhlo.seeded_uniform {{.*}} : tensor<768x768xf32>

// Embedding + layer norm: the two broadcasts of 64.0 are one, and both
// divisions by the hidden size use it.
// EMB-LABEL: func.func @main
// EMB: %[[SIXTYFOUR:.*]] = dhlo.constant dense<6.400000e+01> : tensor<f32>
// EMB: dhlo.gather {{.*}} -> tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>>
// EMB: dhlo.slice {{.*}} -> tensor<?x64xf32, #dhlo.shape<seq, 64>>
// EMB: %[[N:.*]] = dhlo.broadcast_in_dim %[[SIXTYFOUR]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<batch, seq>}
// EMB-NOT: dhlo.broadcast_in_dim %[[SIXTYFOUR]]
// EMB: dhlo.div %{{.*}}, %[[N]]
// EMB: dhlo.div %{{.*}}, %[[N]]
// EMB: return

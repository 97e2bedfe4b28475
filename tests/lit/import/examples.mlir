// RUN: %anyshape import %examples/mlp.pbtxt | FileCheck %s --check-prefix=MLP
// RUN: %anyshape import %examples/elementwise_reduce.pbtxt | FileCheck %s --check-prefix=EWR
// RUN: %anyshape import %examples/embedding.pbtxt | FileCheck %s --check-prefix=EMB
// RUN: %anyshape import %examples/bert_encoder_layer.pbtxt | FileCheck %s --check-prefix=BERT
// Every example imports, verifies, and carries its symbols in its types.

// MLP: module @mlp
// MLP: func.func @main(%arg0: tensor<?x256xf32, #dhlo.shape<batch, 256>> {dhlo.name = "x"}) -> (tensor<?x10xf32, #dhlo.shape<batch, 10>> {dhlo.name = "probs"})
// MLP: dhlo.dot_general {{.*}} -> tensor<?x512xf32, #dhlo.shape<batch, 512>>
// MLP: dhlo.reduce {{.*}}kind = "max"

// EWR: func.func @main(%arg0: tensor<?x?xf32, #dhlo.shape<rows, cols>> {dhlo.name = "x"}, %arg1: tensor<?xf32, #dhlo.shape<cols>> {dhlo.name = "y"})
// EWR-SAME: {dhlo.name = "logsumexp"}, {{.*}} {dhlo.name = "row_max"}, {{.*}} {dhlo.name = "row_mean"}
// EWR: dhlo.dim_size %arg0 {dimension = 1 : i64} : (tensor<?x?xf32, #dhlo.shape<rows, cols>>) -> tensor<i64>

// EMB: func.func @main(%arg0: tensor<?x?xi32, #dhlo.shape<batch, seq>> {dhlo.name = "ids"})
// EMB: dhlo.gather {{.*}}{axis = 0 : i64} : (tensor<1000x64xf32>, tensor<?x?xi32, #dhlo.shape<batch, seq>>) -> tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>>
// EMB: dhlo.slice {{.*}}limit_indices = #dhlo.shape<seq, 64>{{.*}} -> tensor<?x64xf32, #dhlo.shape<seq, 64>>

// BERT: module @bert_encoder_layer
// BERT: dhlo.reshape {{.*}}{shape = #dhlo.shape<batch, 1, 1, seq>}
// BERT: dhlo.dot_general {{.*}} -> tensor<?x12x?x?xf32, #dhlo.shape<batch, 12, seq, seq>>
// BERT: dhlo.erf
// BERT: return {{.*}} : tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>

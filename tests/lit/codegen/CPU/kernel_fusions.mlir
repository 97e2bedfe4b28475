// RUN: %anyshape import %examples/elementwise_reduce.pbtxt | %anyshape-opt --pass-pipeline='builtin.module(anyshape-cpu-pipeline{print-kernel-fusions})' -o /dev/null | FileCheck %s --check-prefix=REDUCE
// RUN: %anyshape import %examples/embedding.pbtxt | %anyshape-opt --pass-pipeline='builtin.module(anyshape-cpu-pipeline{print-kernel-fusions})' -o /dev/null | FileCheck %s --check-prefix=EMBED
// RUN: %anyshape import %examples/mlp.pbtxt | %anyshape-opt --pass-pipeline='builtin.module(anyshape-cpu-pipeline{print-kernel-fusions})' -o /dev/null | FileCheck %s --check-prefix=MLP
// RUN: %anyshape-opt %s --pass-pipeline='builtin.module(anyshape-cpu-pipeline{print-kernel-fusions})' -o /dev/null | FileCheck %s --check-prefix=NARROW
// RUN: %anyshape import %examples/bert_encoder_layer.pbtxt | %anyshape-opt --pass-pipeline='builtin.module(anyshape-cpu-pipeline{print-kernel-fusions})' -o /dev/null | FileCheck %s --check-prefix=BERT
// The CPU backend builds every example as its fusion plan says: each
// fusion (a dhlo.fusion, formed by dhlo-form-fusions) is one kernel, and
// nothing outside the fusions is a kernel.
//
// elementwise_reduce: three reductions of one row, the tanh they share and
// the per-row mean and log: one stitched pass per row.
// REDUCE-LABEL: kernels of @main
// REDUCE-NEXT: kernel 0 scf.parallel: #0
// REDUCE-NEXT: departures from the plan: 0
//
// embedding: the gather stitched with the layer norm of its rows.
// EMBED-LABEL: kernels of @main
// EMBED-NEXT: kernel 0 scf.parallel: #1
// EMBED-NEXT: departures from the plan: 0
//
// mlp: GEMM, bias + ReLU, GEMM, bias + softmax stitched.
// MLP-LABEL: kernels of @main
// MLP-NEXT: kernel 0 func.call: #0
// MLP-NEXT: kernel 1 linalg.generic: #1
// MLP-NEXT: kernel 2 func.call: #2
// MLP-NEXT: kernel 3 scf.parallel: #3
// MLP-NEXT: departures from the plan: 0
//
// The encoder: its six weights are seeded constants, generated at load
// (one GEMM each for Q, K and V); the mask is one kernel; the bias add,
// head split and transpose of each of Q/K/V are one kernel; the GEMM of
// Q x K^T reads K transposed in place (no copy); softmax and the two
// layer norms are stitched: 17 kernels for the plan's 18 fusions (the
// kLibrary ones are calls, the attention output's reshape #11 is a view).
// BERT-LABEL: kernels of @main
// BERT-NEXT: kernel 0 func.call: #0
// BERT-NEXT: kernel 1 func.call: #1
// BERT-NEXT: kernel 2 func.call: #2
// BERT-NEXT: kernel 3 linalg.generic: #3
// BERT-NEXT: kernel 4 linalg.generic: #4
// BERT-NEXT: kernel 5 linalg.generic: #5
// BERT-NEXT: kernel 6 linalg.generic: #6
// BERT-NEXT: kernel 7 func.call: #7
// BERT-NEXT: kernel 8 scf.parallel: #8
// BERT: kernel 16 scf.parallel: #17
// BERT-NEXT: departures from the plan: 0

// An f16 column sum accumulates in f32; the accumulators are final only
// after the last row, so narrowing them to f16 is a pass of its own over
// the result, which belongs to the reduction's kernel as its fill does.
// NARROW-LABEL: kernels of @column_sum_f16
// NARROW-NEXT: kernel 0 linalg.fill: #0
// NARROW-NEXT: kernel 1 linalg.generic: #0
// NARROW-NEXT: kernel 2 linalg.generic: #0
// NARROW-NEXT: departures from the plan: 0
func.func @column_sum_f16(%x: tensor<?x3x2xf16, #dhlo.shape<n, 3, 2>>) -> tensor<3x2xf16> {
  %0 = dhlo.reduce %x {dimensions = array<i64: 0>, kind = "sum"} : (tensor<?x3x2xf16, #dhlo.shape<n, 3, 2>>) -> tensor<3x2xf16>
  return %0 : tensor<3x2xf16>
}

// RUN: %anyshape-opt %s -split-input-file --pass-pipeline='builtin.module(anyshape-cpu-pipeline{print-kernel-fusions})' -o /dev/null | FileCheck %s
// Reshapes between a producer and the generic the plan fuses it into are
// cleared before bufferization, so each fusion is still one kernel.
//
// Cohere's rotary table: the repeat (a broadcast) and its reshape are
// recomputed by both cos and sin, whose reshape is shared.
// CHECK-LABEL: kernels of @repeated_table
// CHECK: departures from the plan: 0
func.func @repeated_table(%t: tensor<1x?x8xf32, #dhlo.shape<1, s, 8>>) -> (tensor<1x?x16xf32, #dhlo.shape<1, s, 16>>, tensor<1x?x16xf32, #dhlo.shape<1, s, 16>>) {
  %0 = dhlo.broadcast_in_dim %t {broadcast_dimensions = array<i64: 0, 1, 2>, shape = #dhlo.shape<1, s, 8, 2>} : (tensor<1x?x8xf32, #dhlo.shape<1, s, 8>>) -> tensor<1x?x8x2xf32, #dhlo.shape<1, s, 8, 2>>
  %1 = dhlo.reshape %0 {shape = #dhlo.shape<1, -1, 16>} : (tensor<1x?x8x2xf32, #dhlo.shape<1, s, 8, 2>>) -> tensor<1x?x16xf32, #dhlo.shape<1, s, 16>>
  %2 = dhlo.cos %1 : (tensor<1x?x16xf32, #dhlo.shape<1, s, 16>>) -> tensor<1x?x16xf32, #dhlo.shape<1, s, 16>>
  %3 = dhlo.sin %1 : (tensor<1x?x16xf32, #dhlo.shape<1, s, 16>>) -> tensor<1x?x16xf32, #dhlo.shape<1, s, 16>>
  return %2, %3 : tensor<1x?x16xf32, #dhlo.shape<1, s, 16>>, tensor<1x?x16xf32, #dhlo.shape<1, s, 16>>
}

// -----

// LeViT's batch norm between two reshapes and a transpose: the generic,
// expanded through the first reshape, meets a collapse and an expand that
// are one reshape.
// CHECK-LABEL: kernels of @norm_between_reshapes
// CHECK: departures from the plan: 0
func.func @norm_between_reshapes(%x: tensor<?x1x48xf32, #dhlo.shape<b, 1, 48>>, %scale: tensor<48xf32>) -> tensor<?x6x1x8xf32, #dhlo.shape<b, 6, 1, 8>> {
  %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, 48>} : (tensor<?x1x48xf32, #dhlo.shape<b, 1, 48>>) -> tensor<?x48xf32, #dhlo.shape<b, 48>>
  %1 = dhlo.broadcast_in_dim %scale {broadcast_dimensions = array<i64: 1>, shape = #dhlo.shape<b, 48>} : (tensor<48xf32>) -> tensor<?x48xf32, #dhlo.shape<b, 48>>
  %2 = dhlo.mul %0, %1 : (tensor<?x48xf32, #dhlo.shape<b, 48>>, tensor<?x48xf32, #dhlo.shape<b, 48>>) -> tensor<?x48xf32, #dhlo.shape<b, 48>>
  %3 = dhlo.reshape %2 {shape = #dhlo.shape<b, 1, 6, 8>} : (tensor<?x48xf32, #dhlo.shape<b, 48>>) -> tensor<?x1x6x8xf32, #dhlo.shape<b, 1, 6, 8>>
  %4 = dhlo.transpose %3 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<?x1x6x8xf32, #dhlo.shape<b, 1, 6, 8>>) -> tensor<?x6x1x8xf32, #dhlo.shape<b, 6, 1, 8>>
  return %4 : tensor<?x6x1x8xf32, #dhlo.shape<b, 6, 1, 8>>
}

// RUN: %anyshape-opt %s -anyshape-pack-emulated-kernels | FileCheck %s
// anyshape-pack-emulated-kernels: an emulated kernel gets CUDA's
// kernelParams interface, @<module>_emulated(ptr): parameter i is loaded
// from the pointer at parameters[i], in order, with its own type.

// CHECK: llvm.func @k_emulated(%[[P:.*]]: !llvm.ptr)
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[P]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[A0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[V0:.*]] = llvm.load %[[A0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[P]][1]
// CHECK: %[[A1:.*]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[V1:.*]] = llvm.load %[[A1]] : !llvm.ptr -> i64
// CHECK: %[[S2:.*]] = llvm.getelementptr %[[P]][2]
// CHECK: %[[A2:.*]] = llvm.load %[[S2]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[V2:.*]] = llvm.load %[[A2]] : !llvm.ptr -> f32
// CHECK: llvm.call @k_emulation(%[[V0]], %[[V1]], %[[V2]])
// CHECK-NOT: @other_emulated
llvm.func @k_emulation(%p: !llvm.ptr, %n: i64, %s: f32) attributes {anyshape.emulates = "k"} {
  llvm.return
}
llvm.func @other(%p: !llvm.ptr) {
  llvm.return
}

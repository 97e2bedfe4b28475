// RUN: %anyshape import %examples/elementwise_reduce.pbtxt > %t.mlir
// RUN: %anyshape-opt %t.mlir --pass-pipeline='builtin.module(anyshape-cpu-pipeline)' | FileCheck %s
// The whole CPU pipeline on an example: only the LLVM dialect remains, the
// entry takes memref descriptors, sizes are read at run time, and buffers
// come from the runtime's allocator (MLIR's generic allocation functions).

// CHECK: llvm.func @main(
// CHECK-NOT: dhlo.
// CHECK-NOT: linalg.
// CHECK-NOT: memref.
// CHECK: llvm.call @_mlir_memref_to_llvm_aligned_alloc
// CHECK-NOT: @malloc

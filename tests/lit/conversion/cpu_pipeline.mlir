// RUN: %anyshape import %examples/elementwise_reduce.pbtxt > %t.mlir
// RUN: %anyshape-opt %t.mlir --pass-pipeline='builtin.module(anyshape-cpu-pipeline)' | FileCheck %s
// The whole CPU pipeline on an example: only the LLVM dialect remains, the
// entry takes the execution context and memref descriptors, sizes are read
// at run time, and buffers come from the context's allocator.

// CHECK: llvm.func @main(%[[CTX:[^:]*]]: !llvm.ptr,
// CHECK-NOT: dhlo.
// CHECK-NOT: linalg.
// CHECK-NOT: memref.
// CHECK: llvm.call @anyshapeContextAlloc(%[[CTX]],
// CHECK-NOT: @malloc

// RUN: %anyshape-opt %s -anyshape-context-allocation | FileCheck %s
// anyshape-context-allocation: in a function with the execution context,
// MLIR's generic allocation calls go to the context's allocator; a
// function without it (the shape checks) keeps them.
// CHECK-LABEL: llvm.func @main
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr, %[[N:.*]]: i64)
// CHECK: %[[A:.*]] = llvm.call @anyshapeContextAlloc(%[[CTX]], %{{.*}}, %[[N]]) : (!llvm.ptr, i64, i64) -> !llvm.ptr
// CHECK: %[[SIXTY_FOUR:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK: llvm.call @anyshapeContextAlloc(%[[CTX]], %[[SIXTY_FOUR]], %[[N]])
// CHECK: llvm.call @anyshapeContextFree(%[[CTX]], %[[A]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT: _mlir_memref_to_llvm
// CHECK-LABEL: llvm.func @anyshape_check_shapes
// CHECK: llvm.call @_mlir_memref_to_llvm_alloc
llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> !llvm.ptr
llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
llvm.func @main(%ctx: !llvm.ptr, %n: i64) attributes {anyshape.context} {
  %align = llvm.mlir.constant(128 : i64) : i64
  %a = llvm.call @_mlir_memref_to_llvm_aligned_alloc(%align, %n) : (i64, i64) -> !llvm.ptr
  %b = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  llvm.call @_mlir_memref_to_llvm_free(%a) : (!llvm.ptr) -> ()
  llvm.return
}
llvm.func @anyshape_check_shapes(%n: i64) {
  %a = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  llvm.return
}

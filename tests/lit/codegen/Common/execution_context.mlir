// RUN: %anyshape-opt %s -anyshape-execution-context | FileCheck %s
// anyshape-execution-context gives @main, every kernel and every function
// that launches one the execution context as a leading !llvm.ptr, passes
// it from the host flow to each kernel (launched or called) and to the
// GEMM, reads the team size from it (offset 0) and
// makes every parallel region fork that many threads.
// CHECK-LABEL: func.func private @anyshapeBatchMatmulF32(memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>, !llvm.ptr)
// CHECK-NOT: @anyshapeTeamSize
// CHECK-LABEL: func.func private @main_kernel0
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr, %[[A:.*]]: memref<?x?x?xf32>)
// CHECK-SAME: anyshape.context
// CHECK: %[[TEAM:.*]] = llvm.load %[[CTX]] : !llvm.ptr -> i64
// CHECK: arith.index_cast %[[TEAM]]
// CHECK: %[[TEAM2:.*]] = llvm.load %[[CTX]] : !llvm.ptr -> i64
// CHECK: %[[THREADS:.*]] = llvm.trunc %[[TEAM2]] : i64 to i32
// CHECK: omp.parallel num_threads(%[[THREADS]] : i32)
// CHECK: call @anyshapeBatchMatmulF32(%[[A]], %[[A]], %[[A]], %[[CTX]])
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[MCTX:.*]]: !llvm.ptr, %[[X:.*]]: memref<?x?x?xf32>)
// CHECK-SAME: anyshape.context
// CHECK: call @main_kernel0(%[[MCTX]], %[[X]])
// CHECK-LABEL: func.func @launches
// CHECK-SAME: (%[[LCTX:.*]]: !llvm.ptr, %[[Y:.*]]: memref<?x?x?xf32>)
// CHECK: dhlo.launch @main_kernel0(%[[LCTX]], %[[Y]]) "kLibrary" 0 : (!llvm.ptr, memref<?x?x?xf32>) -> ()
// CHECK-LABEL: func.func @anyshape_check_shapes
// CHECK-SAME: (%{{.*}}: memref<?x?x?xf32>) -> i64 {
func.func private @anyshapeBatchMatmulF32(memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>)
func.func private @anyshapeTeamSize() -> i64
func.func private @main_kernel0(%a: memref<?x?x?xf32>) attributes {dhlo.kernel = "kLibrary"} {
  %team = func.call @anyshapeTeamSize() : () -> i64
  %t = arith.index_cast %team : i64 to index
  omp.parallel {
    omp.terminator
  }
  func.call @anyshapeBatchMatmulF32(%a, %a, %a) : (memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) -> ()
  return
}
func.func @main(%x: memref<?x?x?xf32>) {
  func.call @main_kernel0(%x) : (memref<?x?x?xf32>) -> ()
  return
}
func.func @launches(%y: memref<?x?x?xf32>) {
  dhlo.launch @main_kernel0(%y) "kLibrary" 0 : (memref<?x?x?xf32>) -> ()
  return
}
func.func @anyshape_check_shapes(%x: memref<?x?x?xf32>) -> i64 {
  %c0 = arith.constant 0 : i64
  return %c0 : i64
}

// RUN: %anyshape-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(anyshape-parallel-outside-reductions))' | FileCheck %s
// anyshape-parallel-outside-reductions: a column reduction's loops (the
// reduced rows outside, the columns inside, accumulating in memory) are
// swapped when each column iteration owns what it writes.

// CHECK-LABEL: func.func @column_sum
// CHECK: dhlo.fusion
// CHECK: scf.parallel (%[[C:.*]]) =
// CHECK-NEXT: scf.for %[[R:.*]] =
// CHECK-NEXT: memref.load %{{.*}}[%[[R]], %[[C]]]
// CHECK-NEXT: memref.load %[[ACC:.*]][%[[C]]]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][%[[C]]]
func.func @column_sum(%x: memref<?x?xf32>, %acc: memref<?xf32>) {
  dhlo.fusion "kInput" 0 versions ["serial"] {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = memref.dim %x, %c0 : memref<?x?xf32>
    %n = memref.dim %x, %c1 : memref<?x?xf32>
    scf.for %r = %c0 to %m step %c1 {
      scf.parallel (%c) = (%c0) to (%n) step (%c1) {
        %v = memref.load %x[%r, %c] : memref<?x?xf32>
        %a = memref.load %acc[%c] : memref<?xf32>
        %s = arith.addf %a, %v : f32
        memref.store %s, %acc[%c] : memref<?xf32>
        scf.reduce
      }
    }
    dhlo.yield
  }
  return
}

// -----

// A store that depends on the reduced row (here a copy of each element)
// is not the column iteration's own: left as it is.
// CHECK-LABEL: func.func @row_dependent_store
// CHECK: scf.for
// CHECK-NEXT: scf.parallel
func.func @row_dependent_store(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  dhlo.fusion "kInput" 1 versions ["serial"] {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = memref.dim %x, %c0 : memref<?x?xf32>
    %n = memref.dim %x, %c1 : memref<?x?xf32>
    scf.for %r = %c0 to %m step %c1 {
      scf.parallel (%c) = (%c0) to (%n) step (%c1) {
        %v = memref.load %x[%r, %c] : memref<?x?xf32>
        memref.store %v, %y[%r, %c] : memref<?x?xf32>
        scf.reduce
      }
    }
    dhlo.yield
  }
  return
}

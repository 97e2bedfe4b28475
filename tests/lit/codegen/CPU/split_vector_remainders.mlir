// RUN: %anyshape-opt %s -split-input-file -anyshape-split-vector-remainders | FileCheck %s
// The anyshape-split-vector-remainders pass. An innermost scf.for with
// step 1 becomes a loop over the largest multiple of 64 iterations, then a
// loop over k in 0 .. trips % 64 running the body at that point + k; the
// second continues from the first's iteration arguments. Loops with a
// static trip count that is a multiple of 64 (or under 64), non-unit steps
// and outer loops stay.

// CHECK-LABEL: func.func @row_sum
// CHECK-SAME: (%[[X:.*]]: memref<?xf32>, %[[N:.*]]: index)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[SPAN:.*]] = arith.subi %[[N]], %[[C0]]
// CHECK: %[[TRIPS:.*]] = arith.maxsi %[[SPAN]], %{{.*}}
// CHECK: %[[DIV:.*]] = arith.divui %[[TRIPS]], %[[C64]]
// CHECK: %[[MAIN:.*]] = arith.muli %[[DIV]], %[[C64]]
// CHECK: %[[SPLIT:.*]] = arith.addi %[[C0]], %[[MAIN]]
// CHECK: %[[REM:.*]] = arith.remui %[[TRIPS]], %[[C64]]
// CHECK: %[[FIRST:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[SPLIT]] step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT: memref.load %[[X]][%[[I]]]
// CHECK: %[[SECOND:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[REM]] step %{{.*}} iter_args(%[[B:.*]] = %[[FIRST]]) -> (f32) {
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[SPLIT]], %[[K]]
// CHECK-NEXT: memref.load %[[X]][%[[J]]]
// CHECK: return %[[SECOND]]
func.func @row_sum(%x: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%i] : memref<?xf32>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  return %sum : f32
}

// -----

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: arith.remui
func.func @left_alone(%x: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c40 = arith.constant 40 : index
  %c128 = arith.constant 128 : index
  %cst = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c128 step %c1 {
    memref.store %cst, %x[%c0, %i] : memref<?x128xf32>
  }
  scf.for %i = %c0 to %c40 step %c1 {
    memref.store %cst, %x[%c0, %i] : memref<?x128xf32>
  }
  scf.for %i = %c0 to %n step %c2 {
    memref.store %cst, %x[%i, %c0] : memref<?x128xf32>
  }
  return
}

// RUN: %anyshape-opt %s -split-input-file -anyshape-promote-accumulators | FileCheck %s
// The anyshape-promote-accumulators pass. A load and a later store of one
// element of a fresh allocation at loop-invariant indices become an
// scf.for iteration argument, loaded before the loop and stored after it,
// when nothing else in the loop touches that allocation. An accumulator in
// a function argument (it may alias anything), or one whose allocation the
// loop also reads elsewhere, stays in memory.

// CHECK-LABEL: func.func @row_sum_and_copy
// CHECK-SAME: (%[[X:.*]]: memref<?xf32>, %[[I:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[SUM:.*]] = memref.alloc
// CHECK: %[[OUT:.*]] = memref.alloc
// CHECK: %[[INIT:.*]] = memref.load %[[SUM]][%[[I]]]
// CHECK: %[[R:.*]] = scf.for %[[J:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT: %[[V:.*]] = memref.load %[[X]][%[[J]]]
// CHECK-NEXT: memref.store %[[V]], %[[OUT]][%[[J]]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[V]]
// CHECK-NEXT: scf.yield %[[S]]
// CHECK: memref.store %[[R]], %[[SUM]][%[[I]]]
func.func @row_sum_and_copy(%x: memref<?xf32>, %i: index, %n: index) -> (memref<?xf32>, memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sum = memref.alloc(%n) : memref<?xf32>
  %out = memref.alloc(%n) : memref<?xf32>
  scf.for %j = %c0 to %n step %c1 {
    %v = memref.load %x[%j] : memref<?xf32>
    memref.store %v, %out[%j] : memref<?xf32>
    %acc = memref.load %sum[%i] : memref<?xf32>
    %s = arith.addf %acc, %v : f32
    memref.store %s, %sum[%i] : memref<?xf32>
  }
  return %sum, %out : memref<?xf32>, memref<?xf32>
}

// -----

// CHECK-LABEL: func.func @not_promoted
// CHECK-NOT: iter_args
func.func @not_promoted(%arg: memref<?xf32>, %i: index, %n: index) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %n step %c1 {
    %acc = memref.load %arg[%i] : memref<?xf32>
    %s = arith.addf %acc, %acc : f32
    memref.store %s, %arg[%i] : memref<?xf32>
  }
  %sum = memref.alloc(%n) : memref<?xf32>
  scf.for %j = %c0 to %n step %c1 {
    %acc = memref.load %sum[%i] : memref<?xf32>
    %other = memref.load %sum[%j] : memref<?xf32>
    %s = arith.addf %acc, %other : f32
    memref.store %s, %sum[%i] : memref<?xf32>
  }
  return %sum : memref<?xf32>
}

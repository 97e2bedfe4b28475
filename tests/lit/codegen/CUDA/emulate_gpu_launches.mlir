// RUN: %anyshape-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(anyshape-emulate-gpu-launches))' -verify-diagnostics | FileCheck %s
// anyshape-emulate-gpu-launches: a launch runs on the CPU as a parallel
// loop over its blocks (z, y, x) around serial loops over its threads
// (z, y, x); ids and sizes are the loops' values, whether the body reads
// them as block arguments or through id ops.

// CHECK-LABEL: func.func @ids
// CHECK-SAME: (%[[OUT:.*]]: memref<?xindex>, %[[G:.*]]: index, %[[B:.*]]: index)
// CHECK: scf.parallel (%[[BZ:.*]], %[[BY:.*]], %[[BX:.*]]) = (%c0, %c0, %c0) to (%c1, %c1, %[[G]]) step
// CHECK: scf.for %[[TZ:.*]] = %c0 to %c1 step
// CHECK: scf.for %[[TY:.*]] = %c0 to %c1 step
// CHECK: scf.for %[[TX:.*]] = %c0 to %[[B]] step
// CHECK: %[[BASE:.*]] = arith.muli %[[BX]], %[[B]]
// CHECK: %[[I:.*]] = arith.addi %[[BASE]], %[[TX]]
// CHECK: %[[SUM:.*]] = arith.addi %[[TX]], %[[G]]
// CHECK: memref.store %[[SUM]], %[[OUT]][%[[I]]]
// CHECK-NOT: gpu.
func.func @ids(%out: memref<?xindex>, %g: index, %b: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %g, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %b, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %t = gpu.thread_id x
    %n = gpu.grid_dim x
    %sum = arith.addi %t, %n : index
    memref.store %sum, %out[%i] : memref<?xindex>
    gpu.terminator
  }
  return
}

// -----

// Threads that synchronise would be serialised wrongly: rejected.
func.func @barrier(%n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    // expected-error@+1 {{synchronises threads: not emulated yet}}
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

func.func @shared(%n: index) {
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{uses shared memory: not emulated yet}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<32xf32, #gpu.address_space<workgroup>>) {
    gpu.terminator
  }
  return
}

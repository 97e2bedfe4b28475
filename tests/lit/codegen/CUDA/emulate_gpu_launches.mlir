// RUN: %anyshape-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(anyshape-emulate-gpu-launches))' -verify-diagnostics | FileCheck %s
// anyshape-emulate-gpu-launches: a launch runs on the CPU as a parallel
// loop over its blocks (z, y, x) around serial loops over its threads
// (z, y, x); ids and sizes are the loops' values, whether the body reads
// them as block arguments or through id ops.

// CHECK-LABEL: func.func @ids
// CHECK-SAME: (%[[OUT:.*]]: memref<?xindex>, %[[G:.*]]: index, %[[B:.*]]: index)
// CHECK: scf.parallel (%[[BZ:.*]], %[[BY:.*]], %[[BX:.*]]) = (%c0, %c0, %c0) to (%c1, %c1, %[[G]]) step
// CHECK: scf.for %[[TZ:.*]] = %{{.*}} to %c1 step
// CHECK: scf.for %[[TY:.*]] = %{{.*}} to %c1 step
// CHECK: scf.for %[[TX:.*]] = %{{.*}} to %[[B]] step
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

// Collectives at the top level of the body cut it into phases: each phase
// a loop over the block's threads, a value used past its phase kept per
// thread in an array, a collective reduced serially over its operand's
// array between the phases: an all_reduce to one value for the block, a
// subgroup_reduce to one per 32-lane group.
// CHECK-LABEL: func.func @phases
// CHECK: scf.parallel
// CHECK: %[[PARTIALS:.*]] = memref.alloc(%[[THREADS:.*]]) : memref<?xf32>
// CHECK: %[[WARPS:.*]] = memref.alloc(%[[THREADS]]) : memref<?xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK: memref.store %[[V]], %[[PARTIALS]][%[[T:.*]]]
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %[[THREADS]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: memref.load %[[PARTIALS]]
// CHECK: arith.addf %[[ACC]]
// CHECK-NOT: memref.store
// CHECK: scf.for %[[U:.*]] = %{{.*}} to %[[THREADS]]
// CHECK: arith.divui %[[U]], %c32
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK: memref.store %{{.*}}, %[[WARPS]][%[[U]]]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[W:.*]] = memref.load %[[WARPS]]
// CHECK: arith.addf %[[SUM]], %[[W]]
// CHECK: memref.dealloc %[[PARTIALS]]
// CHECK-NOT: gpu.
func.func @phases(%in: memref<?xf32>, %out: memref<?xf32>, %b: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %b, %sy = %c1, %sz = %c1) {
    %v = memref.load %in[%tx] : memref<?xf32>
    %sum = gpu.all_reduce add %v uniform {} : (f32) -> f32
    %max = gpu.subgroup_reduce maximumf %v uniform : (f32) -> f32
    %r = arith.addf %sum, %max : f32
    memref.store %r, %out[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// Under control flow, threads could disagree on reaching a barrier:
// rejected rather than emulated wrongly.
func.func @barrier(%n: index, %p: i1) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    scf.if %p {
      // expected-error@+1 {{communicates between threads in a way the emulation does not run}}
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// A block's shared memory is an array of its own in host memory; a
// barrier at the top level ends a phase.
// CHECK-LABEL: func.func @shared
// CHECK: scf.parallel
// CHECK: %[[TILE:.*]] = memref.alloc() : memref<32xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[T1:.*]] =
// CHECK: memref.store %{{.*}}, %[[TILE]][%[[T1]]]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[T2:.*]] =
// CHECK: %[[R:.*]] = arith.subi %{{.*}}, %[[T2]]
// CHECK: memref.load %[[TILE]][%[[R]]]
// CHECK: memref.dealloc %[[TILE]]
func.func @shared(%out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<32xf32, #gpu.address_space<workgroup>>) {
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    memref.store %f, %tile[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %r = arith.subi %c31, %tx : index
    %v = memref.load %tile[%r] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// RUN: %anyshape-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(anyshape-map-kernels-to-gpu{block-size=128 max-blocks=64}))' -verify-diagnostics | FileCheck %s
// RUN: not %anyshape-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(anyshape-map-kernels-to-gpu{block-size=2048}))' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: block-size must be in [1, 1024]
// anyshape-map-kernels-to-gpu: a fusion's parallel loop becomes a launch
// whose threads stride over its flattened iterations, last dim fastest;
// its sizes and the grid are computed in the host flow, outside the launch.

// CHECK-LABEL: func.func @grid_stride
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?x?xf32>)
// CHECK: dhlo.fusion "kLoop" 1
// CHECK-DAG: %[[M:.*]] = memref.dim %[[X]], %c0
// CHECK-DAG: %[[N:.*]] = memref.dim %[[X]], %c1
// CHECK: %[[TOTAL:.*]] = arith.muli %[[M]], %[[N]]
// CHECK: %[[BLOCKS:.*]] = arith.ceildivsi %[[TOTAL]], %c128
// CHECK: %[[CAPPED:.*]] = arith.minsi %[[BLOCKS]], %c64
// CHECK: %[[GRID:.*]] = arith.maxsi %[[CAPPED]], %c1
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%[[GX:.*]] = %[[GRID]], %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%[[SX:.*]] = %c128
// CHECK: %[[START0:.*]] = arith.muli %[[BX]], %[[SX]]
// CHECK: %[[START:.*]] = arith.addi %[[START0]], %[[TX]]
// CHECK: %[[STRIDE:.*]] = arith.muli %[[GX]], %[[SX]]
// CHECK: scf.for %[[L:.*]] = %[[START]] to %[[TOTAL]] step %[[STRIDE]]
// CHECK: %[[J:.*]] = arith.remui %[[L]], %[[N]]
// CHECK: %[[I:.*]] = arith.divui %[[L]], %[[N]]
// CHECK: memref.load %[[X]][%[[I]], %[[J]]]
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[I]], %[[J]]]
// CHECK: gpu.terminator
// CHECK: dhlo.yield
func.func @grid_stride(%x: memref<?x?xf32>, %out: memref<?x?xf32>) {
  dhlo.fusion "kLoop" 1 versions ["parallel"] {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = memref.dim %x, %c0 : memref<?x?xf32>
    %n = memref.dim %x, %c1 : memref<?x?xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
      %v = memref.load %x[%i, %j] : memref<?x?xf32>
      %e = math.exp %v : f32
      memref.store %e, %out[%i, %j] : memref<?x?xf32>
      scf.reduce
    }
    dhlo.yield
  }
  return
}

// -----

// A row reduction runs one row per thread: the reduction loop stays a
// loop in the thread, and a nested parallel loop (a stitched row's
// elementwise consumer) runs in sequence. A scalar store before it is a
// launch of one thread, ahead in stream order.
// CHECK-LABEL: func.func @rows
// CHECK: %[[SIZE:.*]] = arith.index_cast
// CHECK: gpu.launch {{.*}} in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads({{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK-NEXT: memref.store %[[SIZE]], %{{.*}}[] : memref<i64>
// CHECK-NEXT: gpu.terminator
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.addf
// CHECK: scf.for
// CHECK: arith.divf
// CHECK-NOT: scf.parallel
// CHECK: gpu.terminator
func.func @rows(%x: memref<?x?xf32>, %out: memref<?x?xf32>, %s: memref<i64>) {
  dhlo.fusion "kStitch" 2 versions ["parallel"] {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %m = memref.dim %x, %c0 : memref<?x?xf32>
    %n = memref.dim %x, %c1 : memref<?x?xf32>
    %ni = arith.index_cast %n : index to i64
    memref.store %ni, %s[] : memref<i64>
    scf.parallel (%i) = (%c0) to (%m) step (%c1) {
      %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %x[%i, %j] : memref<?x?xf32>
        %a = arith.addf %acc, %v : f32
        scf.yield %a : f32
      }
      scf.parallel (%j) = (%c0) to (%n) step (%c1) {
        %v = memref.load %x[%i, %j] : memref<?x?xf32>
        %d = arith.divf %v, %sum : f32
        memref.store %d, %out[%i, %j] : memref<?x?xf32>
        scf.reduce
      }
      scf.reduce
    }
    dhlo.yield
  }
  return
}

// -----

// A library call stays in the host flow; the zero fill before it is a
// launch of its own.
// CHECK-LABEL: func.func @library
// CHECK: gpu.launch
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: func.call @gemm
func.func private @gemm(memref<?xf32>)
func.func @library(%c: memref<?xf32>) {
  dhlo.fusion "kLibrary" 3 versions ["library"] {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %n = memref.dim %c, %c0 : memref<?xf32>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      memref.store %zero, %c[%i] : memref<?xf32>
      scf.reduce
    }
    func.call @gemm(%c) : (memref<?xf32>) -> ()
    dhlo.yield
  }
  return
}

// -----

// Pieces that exchange an SSA value (here a loaded scalar the loop reads)
// cannot be separate launches: the fusion runs whole in one thread.
// CHECK-LABEL: func.func @exchange
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c1{{.*}},
// CHECK: memref.load %{{.*}}[] : memref<f32>
// CHECK: scf.for
// CHECK-NOT: gpu.launch
func.func @exchange(%s: memref<f32>, %out: memref<?xf32>) {
  dhlo.fusion "kLoop" 4 versions ["parallel"] {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %out, %c0 : memref<?xf32>
    %v = memref.load %s[] : memref<f32>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      memref.store %v, %out[%i] : memref<?xf32>
      scf.reduce
    }
    dhlo.yield
  }
  return
}

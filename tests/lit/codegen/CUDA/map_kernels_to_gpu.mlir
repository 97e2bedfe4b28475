// RUN: %anyshape-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(anyshape-map-kernels-to-gpu{block-size=128 max-blocks=64},canonicalize))' -verify-diagnostics | FileCheck %s
// RUN: not %anyshape-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(anyshape-map-kernels-to-gpu{block-size=2048}))' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: block-size must be in [1, 1024]
// anyshape-map-kernels-to-gpu: a fusion's parallel loop becomes a launch
// whose threads stride over its flattened iterations, last dim fastest;
// its sizes and the grid are computed in the host flow, outside the launch.
// One that walks buffers along the last dim also gets a 4-wide version,
// taken when the host finds the last dim a multiple of 4 and every such
// buffer's aligned pointer (16 B), offset and outer strides (4) aligned:
// one vector load and store of 4 elements per group, the arithmetic
// scalar, four times.

// CHECK-LABEL: func.func @grid_stride
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?x?xf32>)
// CHECK: dhlo.fusion "kLoop" 1
// CHECK: arith.remui %{{.*}}, %c4
// CHECK: %[[XPTR:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: arith.remui %[[XPTR]], %c16
// CHECK: memref.extract_strided_metadata %[[X]]
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: scf.if %{{.*}} {
// CHECK: %[[GROUPS:.*]] = arith.divui %{{.*}}, %c4
// CHECK: gpu.launch
// CHECK: scf.for %[[G:.*]] = %{{.*}} to %[[GROUPS]] step
// CHECK: %[[FIRST:.*]] = arith.muli %[[G]], %c4
// CHECK: %[[VJ:.*]] = arith.remui %[[FIRST]]
// CHECK: %[[VI:.*]] = arith.divui %[[FIRST]]
// CHECK: %[[V:.*]] = vector.load %[[X]][%[[VI]], %[[VJ]]] : memref<?x?xf32>, vector<4xf32>
// CHECK-COUNT-4: math.exp
// CHECK: vector.store %{{.*}}, %[[OUT]][%[[VI]], %[[VJ]]] : memref<?x?xf32>, vector<4xf32>
// CHECK: } else {
// CHECK: %[[MTRIP:.*]] = arith.maxsi %{{.*}}, %c0
// CHECK: %[[NTRIP:.*]] = arith.maxsi %{{.*}}, %c0
// CHECK: %[[TOTAL:.*]] = arith.muli %[[MTRIP]], %[[NTRIP]]
// CHECK: %[[BLOCKS:.*]] = arith.ceildivsi %[[TOTAL]], %c128
// CHECK: %[[CAPPED:.*]] = arith.minsi %[[BLOCKS]], %c64
// CHECK: %[[GRID:.*]] = arith.maxsi %[[CAPPED]], %c1
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%[[GX:.*]] = %[[GRID]], %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%[[SX:.*]] = %c128
// CHECK: %[[START0:.*]] = arith.muli %[[BX]], %[[SX]]
// CHECK: %[[START:.*]] = arith.addi %[[START0]], %[[TX]]
// CHECK: %[[STRIDE:.*]] = arith.muli %[[GX]], %[[SX]]
// CHECK: scf.for %[[L:.*]] = %[[START]] to %[[TOTAL]] step %[[STRIDE]]
// CHECK: %[[J:.*]] = arith.remui %[[L]], %[[NTRIP]]
// CHECK: %[[I:.*]] = arith.divui %[[L]], %[[NTRIP]]
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

// A row kernel (a reduction over the row, then an elementwise consumer of
// it: a stitched row) has three versions, chosen in the host flow by the
// row length and count: a warp per row (4 rows per block of 128; up to
// 512 elements, or 1024 given 4096 rows or more), a block
// per row, and one row per thread. Shared, each loop strides over the row
// by the group's width from the lane, a reduction's partials meet in a
// subgroup_reduce or all_reduce, and idle threads (past the last row) run
// empty loops. A scalar store before the loop is a launch of one thread,
// ahead in stream order.
// CHECK-LABEL: func.func @rows
// CHECK: %[[SIZE:.*]] = arith.index_cast
// CHECK: gpu.launch {{.*}} in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads({{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK-NEXT: memref.store %[[SIZE]], %{{.*}}[] : memref<i64>
// CHECK-NEXT: gpu.terminator
// CHECK: %[[SOME:.*]] = arith.cmpi sgt, %[[ROWS:.*]], %c0
// CHECK: %[[SHORT:.*]] = arith.cmpi sle, %[[LENGTH:.*]], %c512
// CHECK: %[[UNDER2X:.*]] = arith.cmpi sle, %[[LENGTH]], %c1024
// CHECK: %[[MANY:.*]] = arith.cmpi sge, %[[ROWS]], %c4096
// CHECK: %[[MEDIUM:.*]] = arith.andi %[[UNDER2X]], %[[MANY]]
// CHECK: %[[WARPROWS:.*]] = arith.ori %[[SHORT]], %[[MEDIUM]]
// CHECK: %[[FITS:.*]] = arith.cmpi sle, %[[ROWS]], %c2147483647
// CHECK: %[[WARP:.*]] = arith.andi %[[SOME]], %[[WARPROWS]]
// CHECK: scf.if %[[WARP]] {
// CHECK: gpu.launch {{.*}} threads(%[[TID:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: gpu.subgroup_reduce add
// CHECK: scf.for
// CHECK: arith.divf
// CHECK: } else {
// CHECK: scf.if
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %[[BLOCKROWS:.*]], %{{.*}} = %c1
// CHECK: gpu.all_reduce add
// CHECK: arith.divf
// CHECK: } else {
// CHECK: gpu.launch
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.addf
// CHECK: scf.for
// CHECK: arith.divf
// CHECK-NOT: scf.parallel
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

// A stitched row's reduced value goes through memory (stored, then read
// back by the next loop): forwarded, and the store is lane 0's. (The
// init, -inf, is maximumf's identity: canonicalized away.)
// CHECK-LABEL: func.func @stored_and_read_back
// CHECK: %[[MAX:.*]] = gpu.subgroup_reduce maximumf
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK: %[[OWNER:.*]] = arith.andi %[[FIRST]], %{{.*}}
// CHECK: scf.if %[[OWNER]] {
// CHECK-NEXT: memref.store %[[MAX]], %{{.*}}[]
// CHECK: scf.for
// CHECK-NOT: memref.load %{{.*}}[] : memref<f32>
// CHECK: arith.subf %{{.*}}, %[[MAX]]
// CHECK: gpu.all_reduce maximumf
func.func @stored_and_read_back(%x: memref<?x?xf32>, %out: memref<?x?xf32>, %tmp: memref<f32>) {
  dhlo.fusion "kStitch" 5 versions ["parallel"] {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %low = arith.constant 0xFF800000 : f32
    %m = memref.dim %x, %c0 : memref<?x?xf32>
    %n = memref.dim %x, %c1 : memref<?x?xf32>
    scf.parallel (%i) = (%c0) to (%m) step (%c1) {
      memref.store %low, %tmp[] : memref<f32>
      %init = memref.load %tmp[] : memref<f32>
      %max = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
        %v = memref.load %x[%i, %j] : memref<?x?xf32>
        %a = arith.maximumf %acc, %v : f32
        scf.yield %a : f32
      }
      memref.store %max, %tmp[] : memref<f32>
      scf.parallel (%j) = (%c0) to (%n) step (%c1) {
        %v = memref.load %x[%i, %j] : memref<?x?xf32>
        %t = memref.load %tmp[] : memref<f32>
        %d = arith.subf %v, %t : f32
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

// A column reduction (over a dim that is not the last) runs in tiles of
// 32 columns by 8 row slices when its columns have at least 8 rows: thread
// (x, y) folds rows y, y + 8, ... of its column, its partial goes to the
// block's shared memory, and after a barrier each thread folds its
// column's 8; row slice 0 of a real column stores. Else one column per
// thread.
// CHECK-LABEL: func.func @columns
// CHECK: %[[TILES:.*]] = arith.ceildivsi %{{.*}}, %c32
// CHECK: %[[TALL:.*]] = arith.cmpi sge, %{{.*}}, %c8
// CHECK: scf.if
// CHECK: gpu.launch blocks({{.*}}) threads(%[[X:.*]], %[[Y:.*]], %{{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c8{{.*}}, %{{.*}}) workgroup(%[[TILE:.*]] : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[PARTIAL:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: memref.store %[[PARTIAL]], %[[TILE]]
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c8
// CHECK: memref.load %[[TILE]]
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK: } else {
// CHECK: gpu.launch
// CHECK-NOT: gpu.barrier
func.func @columns(%x: memref<?x?xf32>, %col: memref<?xf32>) {
  dhlo.fusion "kInput" 6 versions ["parallel"] {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %m = memref.dim %x, %c0 : memref<?x?xf32>
    %n = memref.dim %x, %c1 : memref<?x?xf32>
    scf.parallel (%j) = (%c0) to (%n) step (%c1) {
      %sum = scf.for %i = %c0 to %m step %c1 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %x[%i, %j] : memref<?x?xf32>
        %a = arith.addf %acc, %v : f32
        scf.yield %a : f32
      }
      memref.store %sum, %col[%j] : memref<?xf32>
      scf.reduce
    }
    dhlo.yield
  }
  return
}

// -----

// No shared versions when a loop reads what another thread's lane wrote
// (here the second loop reads the row backwards).
// CHECK-LABEL: func.func @not_shared
// CHECK-NOT: subgroup_reduce
// CHECK-NOT: all_reduce
// CHECK-NOT: scf.if
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
func.func @not_shared(%x: memref<?x?xf32>, %tmp: memref<?x?xf32>, %out: memref<?x?xf32>) {
  dhlo.fusion "kStitch" 7 versions ["parallel"] {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %m = memref.dim %x, %c0 : memref<?x?xf32>
    %n = memref.dim %x, %c1 : memref<?x?xf32>
    scf.parallel (%i) = (%c0) to (%m) step (%c1) {
      %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
        %v = memref.load %x[%i, %j] : memref<?x?xf32>
        memref.store %v, %tmp[%i, %j] : memref<?x?xf32>
        %a = arith.addf %acc, %v : f32
        scf.yield %a : f32
      }
      scf.parallel (%j) = (%c0) to (%n) step (%c1) {
        %last = arith.subi %n, %c1 : index
        %r = arith.subi %last, %j : index
        %v = memref.load %tmp[%i, %r] : memref<?x?xf32>
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
// launch of its own (here in its two versions).
// CHECK-LABEL: func.func @library
// CHECK: gpu.launch
// CHECK: vector.store
// CHECK: gpu.launch
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK-NEXT: }
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

// -----

// An implicit broadcast (a dim read through select(size == 1, 0, i)) is
// versioned first: the original when the size is 1 (where canonicalize
// then knows the select's answer: element 0), a copy with the select
// folded to the index otherwise.
// CHECK-LABEL: func.func @maybe_stretch
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[K:.*]], %c1
// CHECK: scf.if %[[ONE]] {
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}}[%c0] : memref<?xf32>
// CHECK: } else {
// CHECK: gpu.launch
// CHECK: scf.for %[[I:.*]] = 
// CHECK: memref.load %arg1[%[[I]]] : memref<?xf32>
func.func @maybe_stretch(%x: memref<?xf32>, %bias: memref<?xf32>, %out: memref<?xf32>) {
  dhlo.fusion "kLoop" 8 versions ["parallel"] {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %k = memref.dim %bias, %c0 : memref<?xf32>
    %one = arith.cmpi eq, %k, %c1 : index
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %j = arith.select %one, %c0, %i : index
      %v = memref.load %x[%i] : memref<?xf32>
      %b = memref.load %bias[%j] : memref<?xf32>
      %s = arith.addf %v, %b : f32
      memref.store %s, %out[%i] : memref<?xf32>
      scf.reduce
    }
    dhlo.yield
  }
  return
}

// RUN: %anyshape-opt %s -split-input-file -anyshape-speculate-kernels | FileCheck %s
// RUN: %anyshape-opt %s -split-input-file -anyshape-speculate-kernels=min-work=100 | FileCheck %s --check-prefix=MINWORK
// RUN: %anyshape-opt %s -split-input-file -anyshape-speculate-kernels=chunk=16 | FileCheck %s --check-prefix=CHUNK
// The anyshape-speculate-kernels pass. An outermost scf.parallel
// without results becomes `scf.if (work >= min-work)`, where work is the
// product of its trip counts times the sum of those of the scf.for loops
// directly inside it whose bounds are defined outside it. The then-branch
// runs the outer dims and chunks of the innermost dim in parallel, each
// chunk an scf.for (a 1-D loop, or one marked anyshape.stitched, keeps
// all its dims parallel);
// the else-branch is a serial scf.for nest with the body cloned. A nested
// scf.parallel becomes an scf.for nest in both versions (never a nested
// OpenMP region), and a loop with reductions is left alone. A loop reading
// through implicit-broadcast selects `select(k == 1, 0, j)` is first split
// on `k == 1` into the original and a copy without the selects. A kernel
// whose row loops are reductions and elementwise loops gets a split-row
// version in its parallel branch; a whole 1-D reduction gets one too. A
// column reduction (an scf.for around the parallel loop, no element shared
// by two columns) is versioned as one kernel with its rows' loop. The
// min-work option sets the constant.

// Work is m * n; the parallel version shares rows and chunks of 4096
// columns among the threads, each chunk a serial loop.
// CHECK-LABEL: func.func @two_d
// CHECK-SAME: (%[[BUF:.*]]: memref<?x?xf32>, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[CST:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[SM:.*]] = arith.subi %[[M]], %[[C0]] : index
// CHECK: %[[TM:.*]] = arith.ceildivsi %[[SM]], %[[C1]] : index
// CHECK: %[[PM:.*]] = arith.maxsi %[[TM]], %{{.*}} : index
// CHECK: %[[W1:.*]] = arith.muli %{{.*}}, %[[PM]] : index
// CHECK: %[[SN:.*]] = arith.subi %[[N]], %[[C0]] : index
// CHECK: %[[TN:.*]] = arith.ceildivsi %[[SN]], %[[C1]] : index
// CHECK: %[[PN:.*]] = arith.maxsi %[[TN]], %{{.*}} : index
// CHECK: %[[W2:.*]] = arith.muli %[[W1]], %[[PN]] : index
// CHECK: %[[LIMIT:.*]] = arith.constant 32768 : index
// CHECK: %[[ENOUGH:.*]] = arith.cmpi sge, %[[W2]], %[[LIMIT]] : index
// CHECK: scf.if %[[ENOUGH]] {
// CHECK-NEXT: %[[CSIZE:.*]] = arith.constant 4096 : index
// CHECK-NEXT: %[[CSTEP:.*]] = arith.muli %[[C1]], %[[CSIZE]] : index
// CHECK-NEXT: scf.parallel (%[[I:.*]], %[[JJ:.*]]) = (%[[C0]], %[[C0]]) to (%[[M]], %[[N]]) step (%[[C1]], %[[CSTEP]]) {
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[JJ]], %[[CSTEP]] : index
// CHECK-NEXT: %[[END:.*]] = arith.minsi %[[NEXT]], %[[N]] : index
// CHECK-NEXT: scf.for %[[J:.*]] = %[[JJ]] to %[[END]] step %[[C1]] {
// CHECK-NEXT: memref.store %[[CST]], %[[BUF]][%[[I]], %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for %[[SI:.*]] = %[[C0]] to %[[M]] step %[[C1]] {
// CHECK-NEXT: scf.for %[[SJ:.*]] = %[[C0]] to %[[N]] step %[[C1]] {
// CHECK-NEXT: memref.store %[[CST]], %[[BUF]][%[[SI]], %[[SJ]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHUNK-LABEL: func.func @two_d
// CHUNK: arith.constant 16 : index
// CHUNK-NOT: arith.constant 4096
// MINWORK-LABEL: func.func @two_d
// MINWORK: %[[LIMIT:.*]] = arith.constant 100 : index
// MINWORK: arith.cmpi sge, %{{.*}}, %[[LIMIT]] : index
// MINWORK-NOT: arith.constant 32768
func.func @two_d(%buf: memref<?x?xf32>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    memref.store %cst, %buf[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return
}

// -----

// The inner scf.for on %k counts: work is m * n * k.
// CHECK-LABEL: func.func @inner_for
// CHECK-SAME: (%[[BUF:.*]]: memref<?x?xf32>, %[[M:.*]]: index, %[[N:.*]]: index, %[[K:.*]]: index)
// CHECK: arith.subi %[[N]]
// CHECK: arith.maxsi
// CHECK-NEXT: %[[W2:.*]] = arith.muli
// CHECK: %[[SK:.*]] = arith.subi %[[K]], %{{.*}} : index
// CHECK: %[[TK:.*]] = arith.ceildivsi %[[SK]], %{{.*}} : index
// CHECK: %[[PK:.*]] = arith.maxsi %[[TK]], %{{.*}} : index
// CHECK: %[[W3:.*]] = arith.muli %[[W2]], %[[PK]] : index
// CHECK: %[[LIMIT:.*]] = arith.constant 32768 : index
// CHECK: %[[ENOUGH:.*]] = arith.cmpi sge, %[[W3]], %[[LIMIT]] : index
// CHECK: scf.if %[[ENOUGH]] {
// CHECK: scf.parallel (%[[I:.*]], %[[JJ:.*]]) = (%{{.*}}, %{{.*}}) to (%[[M]], %[[N]])
// CHECK: %[[END:.*]] = arith.minsi %{{.*}}, %[[N]]
// CHECK-NEXT: scf.for %[[J:.*]] = %[[JJ]] to %[[END]]
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[K]]
// CHECK-NEXT: memref.store %{{.*}}, %[[BUF]][%[[I]], %[[J]]]
// CHECK: } else {
// CHECK-NEXT: scf.for %[[SI:.*]] = %{{.*}} to %[[M]]
// CHECK-NEXT: scf.for %[[SJ:.*]] = %{{.*}} to %[[N]]
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[K]]
// CHECK-NEXT: memref.store %{{.*}}, %[[BUF]][%[[SI]], %[[SJ]]]
func.func @inner_for(%buf: memref<?x?xf32>, %m: index, %n: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    scf.for %r = %c0 to %k step %c1 {
      memref.store %cst, %buf[%i, %j] : memref<?x?xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A 1-D loop: the parallel version keeps its only dim parallel (no serial
// inner loop); the serial version is one scf.for.
// CHECK-LABEL: func.func @one_d
// CHECK-SAME: (%[[BUF:.*]]: memref<?xf32>, %[[N:.*]]: index)
// CHECK: %[[LIMIT:.*]] = arith.constant 32768 : index
// CHECK: %[[ENOUGH:.*]] = arith.cmpi sge, %{{.*}}, %[[LIMIT]] : index
// CHECK: scf.if %[[ENOUGH]] {
// CHECK-NEXT: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[N]]) step (%{{.*}}) {
// CHECK-NEXT: memref.store %{{.*}}, %[[BUF]][%[[I]]]
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for %[[SI:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT: memref.store %{{.*}}, %[[BUF]][%[[SI]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// MINWORK-LABEL: func.func @one_d
// MINWORK: arith.constant 100 : index
func.func @one_d(%buf: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %cst, %buf[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// Only the outer loop is versioned (one scf.if); the nested scf.parallel
// is an scf.for in both branches. The scf.for whose bound is
// computed inside the loop does not count towards the work: the estimate
// is the outer trip count alone.
// CHECK-LABEL: func.func @nested
// CHECK-SAME: (%[[BUF:.*]]: memref<?x?xf32>, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[TM:.*]] = arith.maxsi
// CHECK-NEXT: %[[W:.*]] = arith.muli %{{.*}}, %[[TM]] : index
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 32768 : index
// CHECK-NEXT: %[[ENOUGH:.*]] = arith.cmpi sge, %[[W]], %[[LIMIT]] : index
// CHECK-NEXT: scf.if %[[ENOUGH]] {
// CHECK-NEXT: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[M]])
// CHECK-NEXT: arith.addi %[[I]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %[[N]]
// CHECK-NEXT: memref.store %{{.*}}, %[[BUF]][%[[I]], %[[J]]]
// CHECK: } else {
// CHECK-NEXT: scf.for %[[SI:.*]] = %{{.*}} to %[[M]]
// CHECK-NEXT: arith.addi %[[SI]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for %[[SJ:.*]] = %{{.*}} to %[[N]]
// CHECK-NEXT: memref.store %{{.*}}, %[[BUF]][%[[SI]], %[[SJ]]]
// CHECK-NOT: scf.if
// CHECK: return
func.func @nested(%buf: memref<?x?xf32>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%m) step (%c1) {
    %ub = arith.addi %i, %c1 : index
    scf.for %r = %c0 to %ub step %c1 {
      scf.parallel (%j) = (%c0) to (%n) step (%c1) {
        memref.store %cst, %buf[%i, %j] : memref<?x?xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// A loop with a reduction (results) is not versioned.
// CHECK-LABEL: func.func @reduction
// CHECK-NOT: scf.if
// CHECK-NOT: arith.cmpi
// CHECK: %[[SUM:.*]] = scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) init (%{{.*}}) -> f32 {
// CHECK: scf.reduce(
// CHECK: return %[[SUM]] : f32
func.func @reduction(%buf: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f32 {
    %v = memref.load %buf[%i] : memref<?xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}

// -----

// A stitched loop (anyshape-stitch-rows) keeps both dims parallel, and its
// work counts each inner loop once: m * n * (k + k).
// CHECK-LABEL: func.func @stitched
// CHECK-SAME: (%[[BUF:.*]]: memref<?x?xf32>, %[[M:.*]]: index, %[[N:.*]]: index, %[[K:.*]]: index)
// CHECK: arith.muli
// CHECK: %[[W2:.*]] = arith.muli
// CHECK: arith.subi %[[K]]
// CHECK: %[[TK1:.*]] = arith.maxsi
// CHECK: arith.subi %[[K]]
// CHECK: %[[TK2:.*]] = arith.maxsi
// CHECK: %[[SUM:.*]] = arith.addi %[[TK1]], %[[TK2]] : index
// CHECK: %[[W:.*]] = arith.muli %[[W2]], %[[SUM]] : index
// CHECK: arith.cmpi sge, %[[W]], %{{.*}} : index
// CHECK: scf.if
// CHECK-NEXT: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%[[M]], %[[N]])
// CHECK-NEXT: scf.for
// CHECK: scf.for
// CHECK: } else {
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[M]]
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[N]]
func.func @stitched(%buf: memref<?x?xf32>, %m: index, %n: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    scf.for %r = %c0 to %k step %c1 {
      memref.store %cst, %buf[%i, %j] : memref<?x?xf32>
    }
    scf.for %r = %c0 to %k step %c1 {
      memref.store %cst, %buf[%i, %j] : memref<?x?xf32>
    }
    scf.reduce
  } {anyshape.stitched}
  return
}

// -----

// A broadcast read through `select(k == 1, 0, j)`: the original runs when
// k is 1, a copy reading b[j] directly otherwise; each is versioned by
// work (four versions in all).
// CHECK-LABEL: func.func @maybe_stretch
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?xf32>, %[[M:.*]]: index, %[[N:.*]]: index, %[[K:.*]]: index)
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK: scf.if %[[ONE]] {
// CHECK: scf.if
// CHECK: arith.select %[[ONE]]
// CHECK: } else {
// CHECK: arith.select %[[ONE]]
// CHECK: } else {
// CHECK: scf.if
// CHECK-NOT: arith.select
// CHECK: memref.load %[[B]][%{{.*}}] : memref<?xf32>
// CHECK-NOT: arith.select
// CHECK: return
func.func @maybe_stretch(%x: memref<?x?xf32>, %b: memref<?xf32>, %m: index, %n: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.cmpi eq, %k, %c1 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %jj = arith.select %one, %c0, %j : index
    %v = memref.load %b[%jj] : memref<?xf32>
    memref.store %v, %x[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return
}

// -----

// A row reduction and an elementwise row loop in one kernel (softmax's sum
// of exp and quotient, stitched). Its parallel version has a split-row
// version for fewer rows than threads with row work (2n) of at least
// 131072: rows one after another, each row loop over chunks of the row in
// parallel. Each chunk of the sum starts from its first element and writes
// its partial; the partials are then folded into the accumulator's initial
// value, in chunk order. The rows-in-parallel and serial versions follow.
// CHECK-LABEL: func.func @split_row
// CHECK-SAME: (%[[IN:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?x?xf32>, %[[ACC:.*]]: memref<?xf32>, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[ROWWORK:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: %[[T:.*]] = func.call @anyshapeTeamSize() : () -> i64
// CHECK-NEXT: %[[THREADS:.*]] = arith.index_cast %[[T]] : i64 to index
// CHECK-NEXT: %[[FEW:.*]] = arith.cmpi slt, %[[ROWS]], %[[THREADS]] : index
// CHECK-NEXT: %[[MIN:.*]] = arith.constant 131072 : index
// CHECK-NEXT: %[[LONG:.*]] = arith.cmpi sge, %[[ROWWORK]], %[[MIN]] : index
// CHECK-NEXT: %[[SPLIT:.*]] = arith.andi %[[FEW]], %[[LONG]] : i1
// CHECK-NEXT: scf.if %[[SPLIT]] {
// CHECK-NEXT: %[[PARTIALS:.*]] = memref.alloca() : memref<256xf32>
// CHECK-NEXT: scf.for %[[I:.*]] = %{{.*}} to %[[M]] step %{{.*}} {
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][%[[I]]]
// CHECK-NEXT: %[[INIT:.*]] = memref.load %[[ACC]][%[[I]]]
// CHECK: %[[MINCHUNK:.*]] = arith.constant 1024 : index
// CHECK-NEXT: %[[LENGTH:.*]] = arith.maxsi %{{.*}}, %[[MINCHUNK]] : index
// CHECK-NEXT: %[[STRIDE:.*]] = arith.muli %{{.*}}, %[[LENGTH]] : index
// CHECK-NEXT: scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%[[N]]) step (%[[STRIDE]]) {
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[C]], %[[STRIDE]] : index
// CHECK-NEXT: %[[END:.*]] = arith.minsi %[[NEXT]], %[[N]] : index
// CHECK-NEXT: %[[X0:.*]] = memref.load %[[IN]][%[[I]], %[[C]]]
// CHECK-NEXT: %[[E0:.*]] = math.exp %[[X0]] : f32
// CHECK-NEXT: memref.store %[[E0]], %[[OUT]][%[[I]], %[[C]]]
// CHECK-NEXT: %[[SECOND:.*]] = arith.addi %[[C]], %{{.*}} : index
// CHECK-NEXT: %[[PART:.*]] = scf.for %[[J:.*]] = %[[SECOND]] to %[[END]] step %{{.*}} iter_args(%[[A:.*]] = %[[E0]]) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = memref.load %[[IN]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT: memref.store %[[E]], %[[OUT]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[E]] fastmath<reassoc> : f32
// CHECK-NEXT: scf.yield %[[S]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: %[[OFFSET:.*]] = arith.subi %[[C]], %{{.*}} : index
// CHECK-NEXT: %[[SLOT:.*]] = arith.divsi %[[OFFSET]], %[[STRIDE]] : index
// CHECK-NEXT: memref.store %[[PART]], %[[PARTIALS]][%[[SLOT]]]
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK: %[[COUNT:.*]] = arith.ceildivsi %{{.*}}, %[[LENGTH]] : index
// CHECK-NEXT: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[COUNT]] step %{{.*}} iter_args(%[[R:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT: %[[P:.*]] = memref.load %[[PARTIALS]][%[[K]]]
// CHECK-NEXT: %[[F:.*]] = arith.addf %[[R]], %[[P]] fastmath<reassoc> : f32
// CHECK-NEXT: scf.yield %[[F]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[SUM]], %[[ACC]][%[[I]]]
// CHECK: scf.parallel (%[[C2:.*]]) = (%{{.*}}) to (%[[N]]) step (%{{.*}}) {
// CHECK: scf.for %[[J2:.*]] = %[[C2]] to %{{.*}} step %{{.*}} {
// CHECK-NEXT: memref.load %[[OUT]][%[[I]], %[[J2]]]
// CHECK: } else {
// CHECK-NEXT: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[M]]) step (%{{.*}}) {
// CHECK: } else {
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[M]] step %{{.*}} {
// CHECK: func.func private @anyshapeTeamSize() -> i64
func.func @split_row(%in: memref<?x?xf32>, %out: memref<?x?xf32>,
                     %acc: memref<?xf32>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%m) step (%c1) {
    memref.store %zero, %acc[%i] : memref<?xf32>
    %init = memref.load %acc[%i] : memref<?xf32>
    %sum = scf.for %j = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
      %x = memref.load %in[%i, %j] : memref<?x?xf32>
      %e = math.exp %x : f32
      memref.store %e, %out[%i, %j] : memref<?x?xf32>
      %s = arith.addf %a, %e fastmath<reassoc> : f32
      scf.yield %s : f32
    }
    memref.store %sum, %acc[%i] : memref<?xf32>
    scf.parallel (%j) = (%c0) to (%n) step (%c1) {
      %e = memref.load %out[%i, %j] : memref<?x?xf32>
      %s = memref.load %acc[%i] : memref<?xf32>
      %q = arith.divf %e, %s : f32
      memref.store %q, %out[%i, %j] : memref<?x?xf32>
      scf.reduce
    }
    scf.reduce
  } {anyshape.stitched}
  return
}

// -----

// No split-row version when the sum may not be reassociated, or when a
// store does not index the row loop's iteration.
// CHECK-LABEL: func.func @no_split_row
// CHECK-NOT: anyshapeTeamSize
func.func @no_split_row(%in: memref<?x?xf32>, %acc: memref<?xf32>,
                        %last: memref<?xf32>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%m) step (%c1) {
    %init = memref.load %acc[%i] : memref<?xf32>
    %sum = scf.for %j = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
      %x = memref.load %in[%i, %j] : memref<?x?xf32>
      %s = arith.addf %a, %x : f32
      scf.yield %s : f32
    }
    memref.store %sum, %acc[%i] : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%m) step (%c1) {
    %init = memref.load %acc[%i] : memref<?xf32>
    %sum = scf.for %j = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
      %x = memref.load %in[%i, %j] : memref<?x?xf32>
      memref.store %x, %last[%i] : memref<?xf32>
      %s = arith.addf %a, %x fastmath<reassoc> : f32
      scf.yield %s : f32
    }
    memref.store %sum, %acc[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A reduction of a whole 1-D value, in the function's body: its one row
// is shared among the threads when n >= 32768 (min-work) and >= 131072
// (split-row-min-work) and there are 2 threads or more (one row fewer
// than threads); otherwise the loop itself runs.
// CHECK-LABEL: func.func @whole_reduction
// CHECK-SAME: (%[[IN:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<f32>, %[[N:.*]]: index)
// CHECK: %[[INIT:.*]] = memref.load %[[OUT]][]
// CHECK: %[[TRIPS:.*]] = arith.maxsi
// CHECK: %[[ENOUGH:.*]] = arith.cmpi sge, %[[TRIPS]], %{{.*}} : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: call @anyshapeTeamSize()
// CHECK: %[[FEW:.*]] = arith.cmpi slt, %[[ONE]], %{{.*}} : index
// CHECK: %[[LONG:.*]] = arith.cmpi sge, %[[TRIPS]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.andi %[[FEW]], %[[LONG]] : i1
// CHECK: %[[SPLIT:.*]] = arith.andi %[[ENOUGH]], %[[ROW]] : i1
// CHECK: %[[SUM:.*]] = scf.if %[[SPLIT]] -> (f32) {
// CHECK-NEXT: %[[PARTIALS:.*]] = memref.alloca() : memref<256xf32>
// CHECK: scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%[[N]])
// CHECK: memref.store %{{.*}}, %[[PARTIALS]]
// CHECK: %[[FOLD:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (f32) {
// CHECK: scf.yield %[[FOLD]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[SERIAL:.*]] = scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (f32) {
// CHECK: scf.yield %[[SERIAL]] : f32
// CHECK: memref.store %[[SUM]], %[[OUT]][]
func.func @whole_reduction(%in: memref<?xf32>, %out: memref<f32>,
                           %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.load %out[] : memref<f32>
  %sum = scf.for %j = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %x = memref.load %in[%j] : memref<?xf32>
    %s = arith.addf %a, %x fastmath<reassoc> : f32
    scf.yield %s : f32
  }
  memref.store %sum, %out[] : memref<f32>
  return
}

// -----

// A column reduction: the rows' scf.for around a parallel loop over
// columns joins the kernel. Its parallel version shares chunks of a
// quarter of the columns (whole multiples of 64, from 64 to 1024) among
// the threads, each chunk running every row; the serial one is the nest
// itself. Work counts every row of every column.
// CHECK-LABEL: func.func @column_sum
// CHECK-SAME: (%[[IN:.*]]: memref<?x?xf32>, %[[ACC:.*]]: memref<?xf32>, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[ROWS:.*]] = arith.maxsi
// CHECK: %[[COLS:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[WORK:.*]] = arith.muli %[[COLS]], %[[ROWS]] : index
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 32768 : index
// CHECK-NEXT: %[[ENOUGH:.*]] = arith.cmpi sge, %[[WORK]], %[[LIMIT]] : index
// CHECK-NEXT: scf.if %[[ENOUGH]] {
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[QUARTER:.*]] = arith.ceildivsi %{{.*}}, %[[FOUR]] : index
// CHECK: %[[VECTORS:.*]] = arith.ceildivsi %[[QUARTER]], %{{.*}} : index
// CHECK: %[[ROUNDED:.*]] = arith.muli %[[VECTORS]], %{{.*}} : index
// CHECK: %[[ATLEAST:.*]] = arith.maxsi %[[ROUNDED]], %{{.*}} : index
// CHECK: %[[MOST:.*]] = arith.constant 1024 : index
// CHECK-NEXT: %[[COLUMNS:.*]] = arith.minsi %[[ATLEAST]], %[[MOST]] : index
// CHECK-NEXT: %[[STRIDE:.*]] = arith.muli %{{.*}}, %[[COLUMNS]] : index
// CHECK-NEXT: scf.parallel (%[[JJ:.*]]) = (%{{.*}}) to (%[[N]]) step (%[[STRIDE]]) {
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[JJ]], %[[STRIDE]] : index
// CHECK-NEXT: %[[END:.*]] = arith.minsi %[[NEXT]], %[[N]] : index
// CHECK-NEXT: scf.for %[[I:.*]] = %{{.*}} to %[[M]] step %{{.*}} {
// CHECK-NEXT: scf.for %[[J:.*]] = %[[JJ]] to %[[END]] step %{{.*}} {
// CHECK-NEXT: %[[X:.*]] = memref.load %[[IN]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[A:.*]] = memref.load %[[ACC]][%[[J]]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[X]]
// CHECK-NEXT: memref.store %[[S]], %[[ACC]][%[[J]]]
// CHECK: } else {
// CHECK-NEXT: scf.for %[[SI:.*]] = %{{.*}} to %[[M]] step %{{.*}} {
// CHECK-NEXT: scf.for %[[SJ:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT: memref.load %[[IN]][%[[SI]], %[[SJ]]]
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @column_sum(%in: memref<?x?xf32>, %acc: memref<?xf32>,
                      %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %m step %c1 {
    scf.parallel (%j) = (%c0) to (%n) step (%c1) {
      %x = memref.load %in[%i, %j] : memref<?x?xf32>
      %a = memref.load %acc[%j] : memref<?xf32>
      %s = arith.addf %a, %x : f32
      memref.store %s, %acc[%j] : memref<?xf32>
      scf.reduce
    }
  }
  return
}

// -----

// The columns may not run rows in another order when a written buffer is
// read at another column: the parallel loop is versioned alone, inside
// the rows' loop.
// CHECK-LABEL: func.func @not_columns
// CHECK: scf.for
// CHECK: scf.if
// CHECK-NOT: arith.constant 1024
func.func @not_columns(%acc: memref<?xf32>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %m step %c1 {
    scf.parallel (%j) = (%c0) to (%n) step (%c1) {
      %k = arith.addi %j, %c1 : index
      %a = memref.load %acc[%j] : memref<?xf32>
      %b = memref.load %acc[%k] : memref<?xf32>
      %s = arith.addf %a, %b : f32
      memref.store %s, %acc[%j] : memref<?xf32>
      scf.reduce
    }
  }
  return
}

// -----

// A reduction over a middle dim: each row's member is a loop over the
// reduced dim around a parallel loop over columns (column member). The
// split-row version shares each row's columns among the threads in
// chunks, each running every reduced index.
// CHECK-LABEL: func.func @middle_sum
// CHECK-SAME: (%[[IN:.*]]: memref<?x?x?xf32>, %[[ACC:.*]]: memref<?x?xf32>, %[[B:.*]]: index, %[[S:.*]]: index, %[[H:.*]]: index)
// CHECK: call @anyshapeTeamSize()
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: scf.for %[[I:.*]] = %{{.*}} to %[[B]] step %{{.*}} {
// CHECK: %[[COLUMNS:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[STRIDE:.*]] = arith.muli %{{.*}}, %[[COLUMNS]] : index
// CHECK-NEXT: scf.parallel (%[[JJ:.*]]) = (%{{.*}}) to (%[[H]]) step (%[[STRIDE]]) {
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[JJ]], %[[STRIDE]] : index
// CHECK-NEXT: %[[END:.*]] = arith.minsi %[[NEXT]], %[[H]] : index
// CHECK-NEXT: scf.for %[[K:.*]] = %{{.*}} to %[[S]] step %{{.*}} {
// CHECK-NEXT: scf.for %[[J:.*]] = %[[JJ]] to %[[END]] step %{{.*}} {
// CHECK-NEXT: %[[X:.*]] = memref.load %[[IN]][%[[I]], %[[K]], %[[J]]]
// CHECK-NEXT: %[[A:.*]] = memref.load %[[ACC]][%[[I]], %[[J]]]
// CHECK: } else {
func.func @middle_sum(%in: memref<?x?x?xf32>, %acc: memref<?x?xf32>,
                      %b: index, %s: index, %h: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%b) step (%c1) {
    scf.for %k = %c0 to %s step %c1 {
      scf.parallel (%j) = (%c0) to (%h) step (%c1) {
        %x = memref.load %in[%i, %k, %j] : memref<?x?x?xf32>
        %a = memref.load %acc[%i, %j] : memref<?x?xf32>
        %t = arith.addf %a, %x : f32
        memref.store %t, %acc[%i, %j] : memref<?x?xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// The same column sum, reassociable: each thread folds a block of rows
// (rows * k / blocks to rows * (k + 1) / blocks, blocks = min(threads,
// rows)) into its own row of partials, the block's first row copied, then
// each column folds the blocks' partials into the sum in block order. The
// column chunks remain for partials of more than 16 Mi elements.
// CHECK-LABEL: func.func @column_sum_blocks
// CHECK-SAME: (%[[IN:.*]]: memref<?x?xf32>, %[[ACC:.*]]: memref<?xf32>, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK: scf.if %{{.*}} {
// CHECK: %[[T:.*]] = func.call @anyshapeTeamSize()
// CHECK-NEXT: %[[THREADS:.*]] = arith.index_cast %[[T]] : i64 to index
// CHECK-NEXT: %[[BLOCKS:.*]] = arith.minsi %[[THREADS]], %{{.*}} : index
// CHECK-NEXT: %[[SIZE:.*]] = arith.muli %[[BLOCKS]], %[[N]] : index
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 16777216 : index
// CHECK-NEXT: %[[FITS:.*]] = arith.cmpi sle, %[[SIZE]], %[[LIMIT]] : index
// CHECK-NEXT: scf.if %[[FITS]] {
// CHECK: %[[PARTIALS:.*]] = memref.alloc(%[[BLOCKS]], %[[N]]) : memref<?x?xf32>
// CHECK: scf.parallel (%[[BLOCK:.*]]) = (%{{.*}}) to (%[[BLOCKS]]) step
// CHECK: %[[START:.*]] = arith.divsi %{{.*}}, %[[BLOCKS]] : index
// CHECK-NEXT: %[[STARTOFFSET:.*]] = arith.muli %[[START]], %{{.*}} : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.addi %{{.*}}, %[[STARTOFFSET]] : index
// CHECK: %[[STOP:.*]] = arith.divsi %{{.*}}, %[[BLOCKS]] : index
// CHECK-NEXT: %[[STOPOFFSET:.*]] = arith.muli %[[STOP]], %{{.*}} : index
// CHECK-NEXT: %[[END:.*]] = arith.addi %{{.*}}, %[[STOPOFFSET]] : index
// CHECK-NEXT: scf.for %[[J0:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT: %[[X0:.*]] = memref.load %[[IN]][%[[FIRST]], %[[J0]]]
// CHECK-NEXT: memref.store %[[X0]], %[[PARTIALS]][%[[BLOCK]], %[[J0]]]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[END]] step %{{.*}} {
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT: %[[X:.*]] = memref.load %[[IN]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[P:.*]] = memref.load %[[PARTIALS]][%[[BLOCK]], %[[J]]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[P]], %[[X]] fastmath<reassoc>
// CHECK-NEXT: memref.store %[[S]], %[[PARTIALS]][%[[BLOCK]], %[[J]]]
// CHECK: scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%[[N]]) step
// CHECK-NEXT: %[[A0:.*]] = memref.load %[[ACC]][%[[C]]]
// CHECK: %[[FOLDED:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[BLOCKS]] step %{{.*}} iter_args(%[[A:.*]] = %[[A0]]) -> (f32) {
// CHECK-NEXT: %[[PK:.*]] = memref.load %[[PARTIALS]][%[[K]], %[[C]]]
// CHECK-NEXT: %[[F:.*]] = arith.addf %[[A]], %[[PK]] fastmath<reassoc>
// CHECK-NEXT: scf.yield %[[F]]
// CHECK: memref.store %[[FOLDED]], %[[ACC]][%[[C]]]
// CHECK: memref.dealloc %[[PARTIALS]]
// CHECK-NEXT: } else {
// CHECK: scf.parallel
// CHECK: } else {
func.func @column_sum_blocks(%in: memref<?x?xf32>, %acc: memref<?xf32>,
                             %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %m step %c1 {
    scf.parallel (%j) = (%c0) to (%n) step (%c1) {
      %x = memref.load %in[%i, %j] : memref<?x?xf32>
      %a = memref.load %acc[%j] : memref<?xf32>
      %s = arith.addf %a, %x fastmath<reassoc> : f32
      memref.store %s, %acc[%j] : memref<?xf32>
      scf.reduce
    }
  }
  return
}

// -----

// The same middle sum, reassociable: in the split-row version each row's
// reduced dim is cut into blocks over the threads, each folding its
// indices into a private row of partials; each column then folds the
// blocks' partials into the row's accumulator at its own indices.
// CHECK-LABEL: func.func @middle_sum_blocks
// CHECK-SAME: (%[[IN:.*]]: memref<?x?x?xf32>, %[[ACC:.*]]: memref<?x?xf32>, %[[B:.*]]: index, %[[S:.*]]: index, %[[H:.*]]: index)
// CHECK: %[[T:.*]] = func.call @anyshapeTeamSize()
// CHECK-NEXT: %[[THREADS:.*]] = arith.index_cast %[[T]] : i64 to index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[B]] step %{{.*}} {
// CHECK-NEXT: %[[ROW:.*]] = memref.subview %[[ACC]][%[[I]], 0]
// CHECK: %[[BLOCKS:.*]] = arith.minsi %[[THREADS]], %{{.*}} : index
// CHECK: scf.if %{{.*}} {
// CHECK: %[[PARTIALS:.*]] = memref.alloc(%[[BLOCKS]], %[[H]]) : memref<?x?xf32>
// CHECK: scf.parallel (%[[BLOCK:.*]]) = (%{{.*}}) to (%[[BLOCKS]])
// CHECK: memref.store %{{.*}}, %[[PARTIALS]][%[[BLOCK]], %{{.*}}]
// CHECK: scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%[[H]])
// CHECK-NEXT: %[[A0:.*]] = memref.load %[[ROW]][%{{.*}}, %[[C]]]
// CHECK: memref.store %{{.*}}, %[[ROW]][%{{.*}}, %[[C]]]
// CHECK: memref.dealloc %[[PARTIALS]]
// CHECK-NEXT: } else {
func.func @middle_sum_blocks(%in: memref<?x?x?xf32>, %acc: memref<?x?xf32>,
                             %b: index, %s: index, %h: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%b) step (%c1) {
    %row = memref.subview %acc[%i, 0] [1, %h] [1, 1]
        : memref<?x?xf32> to memref<1x?xf32, strided<[?, 1], offset: ?>>
    scf.for %k = %c0 to %s step %c1 {
      scf.parallel (%j) = (%c0) to (%h) step (%c1) {
        %x = memref.load %in[%i, %k, %j] : memref<?x?x?xf32>
        %a = memref.load %row[%c0, %j]
            : memref<1x?xf32, strided<[?, 1], offset: ?>>
        %t = arith.addf %a, %x fastmath<reassoc> : f32
        memref.store %t, %row[%c0, %j]
            : memref<1x?xf32, strided<[?, 1], offset: ?>>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

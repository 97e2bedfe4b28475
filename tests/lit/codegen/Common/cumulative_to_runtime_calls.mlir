// RUN: %anyshape-opt %s --anyshape-cumulative-to-runtime-calls -cse | FileCheck %s
// anyshape-cumulative-to-runtime-calls: a cumulative_into becomes one call
// of the runtime on unranked views, with the element code
// (runtime/Scatter.h: 5 is f32), the axis, the kind (the wire ReduceKind:
// 1 sum, 2 max) and the flags (1 exclusive, 2 reverse) as i64 operands.

// CHECK: func.func private @anyshapeCumulative_f32(memref<*xf32>, memref<*xf32>, i64, i64, i64, i64) attributes {llvm.emit_c_interface}

// CHECK-LABEL: func.func @sum_rows
// CHECK-DAG: %[[X:.*]] = memref.cast %arg0 : memref<?x?xf32, strided<[1, ?]>> to memref<*xf32>
// CHECK-DAG: %[[Y:.*]] = memref.cast %arg1 : memref<?x?xf32> to memref<*xf32>
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK: call @anyshapeCumulative_f32(%[[X]], %[[Y]], %[[C5]], %[[C1]], %[[C1]], %[[C0]])
// CHECK-NOT: dhlo.cumulative_into
func.func @sum_rows(%x: memref<?x?xf32, strided<[1, ?]>>, %y: memref<?x?xf32>) {
  dhlo.cumulative_into %x, %y {axis = 1 : i64, kind = "sum", exclusive = false, reverse = false} : memref<?x?xf32, strided<[1, ?]>>, memref<?x?xf32>
  return
}

// CHECK-LABEL: func.func @max_exclusive_reversed
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK: call @anyshapeCumulative_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[C0]], %[[C2]], %[[C3]])
func.func @max_exclusive_reversed(%x: memref<7xf32>, %y: memref<7xf32>) {
  dhlo.cumulative_into %x, %y {axis = 0 : i64, kind = "max", exclusive = true, reverse = true} : memref<7xf32>, memref<7xf32>
  return
}

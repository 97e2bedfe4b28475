// RUN: %anyshape-opt %s --anyshape-argsort-to-runtime-calls -cse | FileCheck %s
// anyshape-argsort-to-runtime-calls: an argsort_into becomes one call of
// the runtime on unranked views, with the element code (runtime/Scatter.h:
// 5 is f32, 1 is i32), the axis and the direction as i64 operands; one
// declaration per element type.

// CHECK-DAG: func.func private @anyshapeArgsort_f32(memref<*xf32>, memref<*xi64>, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @anyshapeArgsort_i32(memref<*xi32>, memref<*xi64>, i64, i64, i64) attributes {llvm.emit_c_interface}

// CHECK-LABEL: func.func @rows_descending
// CHECK-DAG: %[[X:.*]] = memref.cast %arg0 : memref<?x?xf32, strided<[1, ?]>> to memref<*xf32>
// CHECK-DAG: %[[Y:.*]] = memref.cast %arg1 : memref<?x?xi64> to memref<*xi64>
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK: call @anyshapeArgsort_f32(%[[X]], %[[Y]], %[[C5]], %[[C1]], %[[C1]])
// CHECK-NOT: dhlo.argsort_into
func.func @rows_descending(%x: memref<?x?xf32, strided<[1, ?]>>, %y: memref<?x?xi64>) {
  dhlo.argsort_into %x, %y {axis = 1 : i64, descending = true} : memref<?x?xf32, strided<[1, ?]>>, memref<?x?xi64>
  return
}

// CHECK-LABEL: func.func @ascending_i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK: call @anyshapeArgsort_i32(%{{.*}}, %{{.*}}, %[[C1]], %[[C0]], %[[C0]])
func.func @ascending_i32(%x: memref<7xi32>, %y: memref<7xi64>) {
  dhlo.argsort_into %x, %y {axis = 0 : i64, descending = false} : memref<7xi32>, memref<7xi64>
  return
}

// RUN: %anyshape-opt %s --anyshape-index-checks-to-runtime-calls | FileCheck %s
// Each bufferized dhlo.check_index becomes a call of the runtime's check
// for its index type, where it stands: the indices as an unranked view,
// the range [-n, n) or [0, n) with n the checked dim of the operand's
// buffer, and the wire node's position. One declaration per index type.

// CHECK-DAG: func.func private @anyshapeCheckIndicesI64(memref<*xi64>, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @anyshapeCheckIndicesI32(memref<*xi32>, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[IDS:.*]]: memref<?x?xi64>, %[[COLS:.*]]: memref<3xi32, strided<[2]>>, %[[TABLE:.*]]: memref<?x8xf32>)
// CHECK: %[[VIEW:.*]] = memref.cast %[[IDS]] : memref<?x?xi64> to memref<*xi64>
// CHECK: %[[DIM:.*]] = memref.dim %[[TABLE]], %{{.*}} : memref<?x8xf32>
// CHECK: %[[HIGH:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: %[[LOW:.*]] = arith.subi %{{.*}}, %[[HIGH]] : i64
// CHECK: %[[NODE:.*]] = arith.constant 4 : i64
// CHECK: call @anyshapeCheckIndicesI64(%[[VIEW]], %[[LOW]], %[[HIGH]], %[[NODE]])
// CHECK: %[[VIEW2:.*]] = memref.cast %[[COLS]] : memref<3xi32, strided<[2]>> to memref<*xi32>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: call @anyshapeCheckIndicesI32(%[[VIEW2]], %[[ZERO]], %{{.*}}, %{{.*}})
// CHECK-NOT: dhlo.check_index
func.func @main(%ids: memref<?x?xi64>, %cols: memref<3xi32, strided<[2]>>, %table: memref<?x8xf32>) {
  dhlo.check_index %ids, %table {axis = 0 : i64, allow_negative = true, node = 4 : i64} : memref<?x?xi64>, memref<?x8xf32>
  dhlo.check_index %cols, %table {axis = 1 : i64, allow_negative = false, node = 7 : i64} : memref<3xi32, strided<[2]>>, memref<?x8xf32>
  return
}

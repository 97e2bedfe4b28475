// RUN: %anyshape-opt %s -split-input-file -anyshape-shape-check-function -verify-diagnostics | FileCheck %s
// The anyshape-shape-check-function pass: the importer's dhlo.shape_checks
// become @anyshape_check_shapes over fully dynamic memrefs of @main's
// inputs, returning 0 or 1 + the index of the first failed check; the
// attribute is gone afterwards. A malformed attribute is an error.

// CHECK-LABEL: module @checks
// CHECK-NOT: dhlo.shape_checks
// CHECK: func.func @anyshape_check_shapes(%[[X:.*]]: memref<?x?xf32>) -> i64 attributes {llvm.emit_c_interface}
// CHECK: memref.dim %[[X]], %{{.*}} : memref<?x?xf32>
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK: return %{{.*}} : i64
module @checks attributes {dhlo.shape_checks = [
    {kind = "bind_input_dim", a = [], b = [], symbol = "n", input = 0, dim = 0,
     stride = 1, interior = 0, edges = 0, limit = 0, dims = []},
    {kind = "input_dim_equals", a = [[4]], b = [], symbol = "", input = 0,
     dim = 1, stride = 1, interior = 0, edges = 0, limit = 0, dims = []}]} {
  func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
    return %x : tensor<?x4xf32>
  }
}

// -----

// expected-error @+1 {{dhlo.shape_checks entry 0: has no known kind}}
module @bad attributes {dhlo.shape_checks = [{kind = "nope"}]} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

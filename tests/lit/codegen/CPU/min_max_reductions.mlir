// RUN: %anyshape-opt %s -split-input-file -anyshape-min-max-reductions | FileCheck %s
// The anyshape-min-max-reductions pass. In a linalg.generic with a
// reduction dim, arith.maximumf / arith.minimumf combining into the
// output's running value become llvm.intr.maximum / llvm.intr.minimum
// (which codegen/CPU/LoopHints.h then vectorises). The same ops in an elementwise
// generic, or not combining into an accumulator, stay arith ops.

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_max_min
// CHECK: linalg.generic
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[CLAMPED:.*]] = arith.maximumf %[[IN]], %{{.*}} : f32
// CHECK-NEXT: %[[MAX:.*]] = llvm.intr.maximum(%[[ACC]], %[[CLAMPED]]) : (f32, f32) -> f32
// CHECK-NEXT: linalg.yield %[[MAX]]
// CHECK: linalg.generic
// CHECK: ^bb0(%[[IN2:.*]]: f32, %[[ACC2:.*]]: f32):
// CHECK-NEXT: %[[MIN:.*]] = llvm.intr.minimum(%[[IN2]], %[[ACC2]]) : (f32, f32) -> f32
// CHECK-NEXT: linalg.yield %[[MIN]]
// CHECK-NOT: arith.minimumf
func.func @row_max_min(%x: memref<?x?xf32>, %mx: memref<?xf32>, %mn: memref<?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x?xf32>) outs(%mx : memref<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.maximumf %in, %zero : f32
    %m = arith.maximumf %acc, %c : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x?xf32>) outs(%mn : memref<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.minimumf %in, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @elementwise
// CHECK: arith.maximumf
// CHECK-NOT: llvm.intr.maximum
func.func @elementwise(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  }
  return
}

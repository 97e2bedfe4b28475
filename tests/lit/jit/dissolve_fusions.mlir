// RUN: %anyshape-opt %s -split-input-file -anyshape-dissolve-fusions -verify-diagnostics | FileCheck %s
// anyshape-dissolve-fusions replaces each fusion, scheduled and without
// results, by its body in place.
// CHECK-LABEL: func.func @dissolved
// CHECK-NEXT: memref.store
// CHECK-NEXT: memref.store
// CHECK-NEXT: return
// CHECK-NOT: dhlo
func.func @dissolved(%a: memref<f32>, %b: memref<f32>, %x: f32) {
  dhlo.fusion "kLoop" 0 versions ["serial"] {
    memref.store %x, %a[] : memref<f32>
    dhlo.yield
  }
  dhlo.fusion "kLoop" 1 versions ["serial"] {
    memref.store %x, %b[] : memref<f32>
    dhlo.yield
  }
  return
}

// -----

// A fusion that still has results was not through
// anyshape-hoist-kernel-buffers: an error, not a silent inline.
func.func @with_results(%a: memref<f32>) -> memref<f32> {
  // expected-error @+1 {{still has results}}
  %0 = dhlo.fusion "kLoop" 0 versions ["serial"] -> memref<f32> {
    dhlo.yield %a : memref<f32>
  }
  return %0 : memref<f32>
}

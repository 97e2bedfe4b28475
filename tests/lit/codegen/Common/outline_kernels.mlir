// RUN: %anyshape-opt %s -split-input-file -anyshape-outline-kernels -verify-diagnostics | FileCheck %s
// RUN: %anyshape-opt %s -split-input-file -anyshape-outline-kernels -anyshape-launches-to-calls -verify-diagnostics | FileCheck %s --check-prefix=CALL
// anyshape-outline-kernels makes each fusion a kernel function and a
// launch of it: the kernel takes what its body read from the host flow, in
// order of first use (a buffer, a size); constants are cloned in. What is
// left of @main is its host flow. On the CPU a launch is a call.
// CHECK-LABEL: func.func private @main_kernel4
// CHECK-SAME: (%[[OUT:.*]]: memref<?xf32>, %[[N:.*]]: index)
// CHECK-SAME: attributes {dhlo.kernel = "kLoop"}
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.0
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C1]]
// CHECK-NEXT: memref.store %[[ONE]], %[[OUT]][%[[I]]]
// CHECK: return
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: memref<?xf32>)
// CHECK: %[[SIZE:.*]] = memref.dim %[[X]]
// CHECK: %[[BUF:.*]] = memref.alloc(%[[SIZE]])
// CHECK-NEXT: dhlo.launch @main_kernel4(%[[BUF]], %[[SIZE]]) "kLoop" 4 : (memref<?xf32>, index) -> ()
// CHECK-NEXT: return %[[BUF]]
// CALL-LABEL: func.func @main
// CALL: call @main_kernel4(%{{.*}}, %{{.*}}) : (memref<?xf32>, index) -> ()
// CALL-NOT: dhlo.launch
func.func @main(%x: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %out = memref.alloc(%n) : memref<?xf32>
  dhlo.fusion "kLoop" 4 versions ["serial"] {
    scf.for %i = %c0 to %n step %c1 {
      memref.store %one, %out[%i] : memref<?xf32>
    }
    dhlo.yield
  }
  return %out : memref<?xf32>
}

// -----

// A fusion that still has results was not through
// anyshape-hoist-kernel-buffers: an error, not a kernel returning buffers.
func.func @with_results(%a: memref<f32>) -> memref<f32> {
  // expected-error @+1 {{still has results}}
  %0 = dhlo.fusion "kLoop" 0 versions ["serial"] -> memref<f32> {
    dhlo.yield %a : memref<f32>
  }
  return %0 : memref<f32>
}

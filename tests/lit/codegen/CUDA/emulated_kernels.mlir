// RUN: %anyshape-opt %s -anyshape-emulated-kernels | FileCheck %s
// anyshape-emulated-kernels: each outlined kernel gets a host function of
// its arguments and the grid, whose body is one gpu.launch of the
// kernel's body (its shared memory a workgroup attribution again), for
// the tests' fake driver to run.

// CHECK-LABEL: func.func @scale_kernel_emulation
// CHECK-SAME: (%[[X:.*]]: memref<?xf32>, %[[N:.*]]: index, %[[GX:.*]]: index, %[[GY:.*]]: index, %[[GZ:.*]]: index, %[[BX:.*]]: index, %[[BY:.*]]: index, %[[BZ:.*]]: index)
// CHECK-SAME: attributes {anyshape.emulates = "scale_kernel"}
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GX]], %{{.*}} = %[[GY]], %{{.*}} = %[[GZ]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BX]], %{{.*}} = %[[BY]], %{{.*}} = %[[BZ]]) workgroup(%[[SHARED:.*]] : memref<4xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: memref.store %{{.*}}, %[[SHARED]][%[[T]]]
// CHECK: memref.load %[[X]][%[[T]]]
// CHECK: gpu.terminator
// CHECK: return
module attributes {gpu.container_module} {
  gpu.module @scale_kernel {
    gpu.func @scale_kernel(%x: memref<?xf32>, %n: index) workgroup(%shared: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
      %t = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      memref.store %one, %shared[%t] : memref<4xf32, #gpu.address_space<workgroup>>
      %v = memref.load %x[%t] : memref<?xf32>
      %w = arith.addf %v, %one : f32
      memref.store %w, %x[%t] : memref<?xf32>
      gpu.return
    }
  }
}

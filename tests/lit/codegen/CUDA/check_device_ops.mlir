// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(gpu.module(anyshape-check-device-ops))' | FileCheck %s
// anyshape-check-device-ops: an outlined kernel holding a buffer copy
// (which lowers to the CPU runtime's memrefCopy, declared in the host
// module while other kernels are lowered beside it: a crash) is an
// error naming the op and the kernel; loads and stores pass.

// CHECK-LABEL: gpu.module @scale_kernel
// CHECK: memref.store
module attributes {gpu.container_module} {
  gpu.module @scale_kernel {
    gpu.func @scale_kernel(%x: memref<?xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<?xf32>
      memref.store %v, %x[%t] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @copy_kernel {
    gpu.func @copy_kernel(%a: memref<?x4xf32, strided<[8, 1]>>, %b: memref<?x4xf32>) kernel {
      // expected-error @+1 {{kernel copy_kernel holds memref.copy, which has no device lowering}}
      memref.copy %a, %b : memref<?x4xf32, strided<[8, 1]>> to memref<?x4xf32>
      gpu.return
    }
  }
}

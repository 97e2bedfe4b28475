// RUN: %anyshape-opt %s -split-input-file -anyshape-record-kernel-signatures -verify-diagnostics | FileCheck %s
// anyshape-record-kernel-signatures: each gpu.module's NVVM kernel, the
// threads of its block (the product of nvvm.maxntid) and each
// parameter's bytes in CUDA's kernelParams, keyed by the module's name.

// CHECK: module attributes {anyshape.cuda_kernel_signatures = {
// CHECK-SAME: rows = {block_size = 256 : i64, entry = "rows_kernel", parameter_bytes = array<i32: 8, 8, 8, 4, 2, 1>}
// CHECK-SAME: tiles = {block_size = 256 : i64, entry = "tiles_kernel", parameter_bytes = array<i32: 8>}
module attributes {gpu.container_module} {
  gpu.module @rows {
    llvm.func @helper(%x: f32) -> f32 {
      llvm.return %x : f32
    }
    llvm.func @rows_kernel(%p: !llvm.ptr, %q: !llvm.ptr<1>, %n: i64, %s: f32, %h: f16, %b: i1) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>} {
      llvm.return
    }
  }
  gpu.module @tiles {
    llvm.func @tiles_kernel(%p: !llvm.ptr) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 32, 8, 1>} {
      llvm.return
    }
  }
}

// -----

// A kernel without a block size: nothing says how it is launched.
module attributes {gpu.container_module} {
  gpu.module @unbounded {
    // expected-error @+1 {{a kernel without a known block size}}
    llvm.func @unbounded_kernel(%p: !llvm.ptr) attributes {nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

// A parameter the launch ABI has no words for.
module attributes {gpu.container_module} {
  gpu.module @aggregate {
    // expected-error @+1 {{a kernel parameter of type '!llvm.struct<(i64, i64)>' has no launch ABI}}
    llvm.func @aggregate_kernel(%p: !llvm.struct<(i64, i64)>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
      llvm.return
    }
  }
}

// -----

// Two kernels in one module: which one the image holds is ambiguous.
module attributes {gpu.container_module} {
  // expected-error @+1 {{a kernel module needs exactly one NVVM kernel, has 2}}
  gpu.module @two {
    llvm.func @a(%p: !llvm.ptr) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
      llvm.return
    }
    llvm.func @b(%p: !llvm.ptr) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
      llvm.return
    }
  }
}

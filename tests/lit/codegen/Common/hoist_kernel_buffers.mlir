// RUN: %anyshape-opt %s -split-input-file -anyshape-hoist-kernel-buffers -verify-diagnostics | FileCheck %s
// anyshape-hoist-kernel-buffers moves every buffer a fusion allocates, with
// the index and view ops it is computed from, in front of the fusion; the
// fusion's results become those buffers and it keeps none. A reshape's
// shape buffer moves with the stores that write it (the reshape reads it).
#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @kernel_buffers
// CHECK-SAME: (%[[A:.*]]: memref<?xf32>)
// CHECK: %[[N:.*]] = memref.dim %[[A]]
// CHECK: %[[TWICE:.*]] = arith.muli %[[N]]
// CHECK: %[[OUT:.*]] = memref.alloc(%[[TWICE]])
// CHECK: %[[SCRATCH:.*]] = memref.alloc(%[[N]])
// CHECK: %[[SHAPE:.*]] = memref.alloc() : memref<2xindex>
// CHECK: memref.store %{{.*}}, %[[SHAPE]][%{{.*}}]
// CHECK: memref.store %{{.*}}, %[[SHAPE]][%{{.*}}]
// CHECK: %[[VIEW:.*]] = memref.reshape %[[OUT]](%[[SHAPE]])
// CHECK-NEXT: dhlo.fusion "kLoop" 0 versions ["serial"] {
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[SCRATCH]] : memref<?xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[OUT]] : memref<?xf32>)
// CHECK: dhlo.yield{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: return %[[VIEW]]
func.func @kernel_buffers(%a: memref<?xf32>) -> memref<2x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %0 = dhlo.fusion "kLoop" 0 versions ["serial"] -> memref<2x?xf32> {
    %n = memref.dim %a, %c0 : memref<?xf32>
    %twice = arith.muli %n, %c2 : index
    %out = memref.alloc(%twice) : memref<?xf32>
    %scratch = memref.alloc(%n) : memref<?xf32>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : memref<?xf32>) outs(%scratch : memref<?xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = math.exp %x : f32
      linalg.yield %y : f32
    }
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%scratch : memref<?xf32>) outs(%out : memref<?xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.negf %x : f32
      linalg.yield %y : f32
    }
    %shape = memref.alloc() : memref<2xindex>
    memref.store %c2, %shape[%c0] : memref<2xindex>
    memref.store %n, %shape[%c1] : memref<2xindex>
    %view = memref.reshape %out(%shape) : (memref<?xf32>, memref<2xindex>) -> memref<2x?xf32>
    dhlo.yield %view : memref<2x?xf32>
  }
  return %0 : memref<2x?xf32>
}

// -----

// A buffer whose size a kernel computes from memory it reads cannot move:
// the compile fails, naming the op.
func.func @size_read_from_memory(%a: memref<?xf32>, %sizes: memref<1xindex>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %0 = dhlo.fusion "kLoop" 0 versions ["serial"] -> memref<?xf32> {
    // expected-error @+1 {{defines a kernel's buffer with side effects}}
    %n = memref.load %sizes[%c0] : memref<1xindex>
    %out = memref.alloc(%n) : memref<?xf32>
    dhlo.yield %out : memref<?xf32>
  }
  return %0 : memref<?xf32>
}

// -----

// A fusion that is only a view (a reshape) has nothing left to run once
// its view is hoisted: it goes away.
// CHECK-LABEL: func.func @only_a_view
// CHECK-NEXT: %[[VIEW:.*]] = memref.expand_shape
// CHECK-NEXT: return %[[VIEW]]
func.func @only_a_view(%a: memref<4xf32>) -> memref<2x2xf32> {
  %0 = dhlo.fusion "kLoop" 0 versions ["serial"] -> memref<2x2xf32> {
    %v = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
    dhlo.yield %v : memref<2x2xf32>
  }
  return %0 : memref<2x2xf32>
}

// -----

// A view the kernel makes through a shape buffer (as a GEMM's operands are
// made 3-D) moves to the host with the stores of its shape: the kernel
// gets the view, and writes no shape.
#map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @reshape_for_the_kernel
// CHECK: %[[SHAPE:.*]] = memref.alloc() : memref<2xindex>
// CHECK: memref.store %{{.*}}, %[[SHAPE]]
// CHECK: memref.store %{{.*}}, %[[SHAPE]]
// CHECK: %[[VIEW:.*]] = memref.reshape %{{.*}}(%[[SHAPE]])
// CHECK-NEXT: dhlo.fusion "kLoop" 0 versions ["serial"] {
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[VIEW]] : memref<2x?xf32>)
// CHECK-NOT: memref.store
// CHECK: dhlo.yield
func.func @reshape_for_the_kernel(%a: memref<?xf32>, %out: memref<2x?xf32>, %half: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  dhlo.fusion "kLoop" 0 versions ["serial"] {
    %shape = memref.alloc() : memref<2xindex>
    memref.store %c2, %shape[%c0] : memref<2xindex>
    memref.store %half, %shape[%c1] : memref<2xindex>
    %view = memref.reshape %a(%shape) : (memref<?xf32>, memref<2xindex>) -> memref<2x?xf32>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%view : memref<2x?xf32>) outs(%out : memref<2x?xf32>) {
    ^bb0(%x: f32, %o: f32):
      linalg.yield %x : f32
    }
    dhlo.yield
  }
  return
}

// RUN: %anyshape-opt %s -split-input-file -anyshape-split-fresh-deallocations | FileCheck %s
// The anyshape-split-fresh-deallocations pass. A fresh buffer that no other
// buffer of the dealloc and no retained value views gets a dealloc of its
// own, without retained values; the rest keep the original's retained
// values and results. Any buffer of unknown origin splits nothing.

// %a and %c alias nothing; %b is returned (retained) and stays.
// CHECK-LABEL: func.func @fresh
// CHECK-SAME: (%[[X:.*]]: memref<2xf32>, %[[COND:.*]]: i1)
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: %[[B:.*]] = memref.alloc
// CHECK: %[[C:.*]] = memref.alloc
// CHECK: bufferization.dealloc (%[[A]] : memref<2xf32>) if (%true{{.*}}){{$}}
// CHECK-NEXT: bufferization.dealloc (%[[C]] : memref<2xf32>) if (%[[COND]]){{$}}
// CHECK-NEXT: %[[KEPT:.*]] = bufferization.dealloc (%[[B]] : memref<2xf32>) if (%true{{.*}}) retain (%[[B]] : memref<2xf32>)
// CHECK-NEXT: return %[[B]], %[[KEPT]]
func.func @fresh(%x: memref<2xf32>, %cond: i1) -> (memref<2xf32>, i1) {
  %true = arith.constant true
  %a = memref.alloc() : memref<2xf32>
  %b = memref.alloc() : memref<2xf32>
  %c = memref.alloc() : memref<2xf32>
  %r = bufferization.dealloc (%a, %b, %c : memref<2xf32>, memref<2xf32>, memref<2xf32>) if (%true, %true, %cond) retain (%b : memref<2xf32>)
  return %b, %r : memref<2xf32>, i1
}

// -----

// The base buffer of a view of %a is %a again: neither may be split.
// A view of %c is retained: %c stays too. Only %d goes.
// CHECK-LABEL: func.func @views
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: %[[C:.*]] = memref.alloc
// CHECK: %[[D:.*]] = memref.alloc
// CHECK: %[[BASE:[a-z_0-9]+]], %{{.*}} = memref.extract_strided_metadata
// CHECK: bufferization.dealloc (%[[D]] : memref<4xf32>) if (%true{{.*}}){{$}}
// CHECK-NEXT: %{{.*}} = bufferization.dealloc (%[[A]], %[[BASE]], %[[C]] : {{.*}}) retain
func.func @views() -> (memref<2xf32, strided<[1], offset: 2>>, i1) {
  %true = arith.constant true
  %a = memref.alloc() : memref<4xf32>
  %c = memref.alloc() : memref<4xf32>
  %d = memref.alloc() : memref<4xf32>
  %view = memref.subview %a[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %view : memref<2xf32, strided<[1], offset: 1>> -> memref<f32>, index, index, index
  %kept = memref.subview %c[2] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 2>>
  %r = bufferization.dealloc (%a, %base, %c, %d : memref<4xf32>, memref<f32>, memref<4xf32>, memref<4xf32>) if (%true, %true, %true, %true) retain (%kept : memref<2xf32, strided<[1], offset: 2>>)
  return %kept, %r : memref<2xf32, strided<[1], offset: 2>>, i1
}

// -----

// A buffer a call returned could be a view of anything: nothing splits.
// CHECK-LABEL: func.func @unknown
// CHECK: bufferization.dealloc
// CHECK-NOT: bufferization.dealloc
// CHECK: return
func.func private @make() -> memref<2xf32>
func.func @unknown() {
  %true = arith.constant true
  %a = memref.alloc() : memref<2xf32>
  %m = func.call @make() : () -> memref<2xf32>
  bufferization.dealloc (%a, %m : memref<2xf32>, memref<2xf32>) if (%true, %true)
  return
}

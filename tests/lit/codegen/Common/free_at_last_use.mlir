// RUN: %anyshape-opt %s -split-input-file -anyshape-free-at-last-use | FileCheck %s
// The anyshape-free-at-last-use pass. Each memref.dealloc moves to just
// after the last op of its block that uses the buffer or a view of it
// (uses inside a loop count as the loop); one whose buffer is used after
// it, or outside its block, does not move earlier than that.

#map = affine_map<(d0) -> (d0)>
// %a is last read by the first copy, %b through its view by the loop.
// CHECK-LABEL: func.func @chain
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: %[[B:.*]] = memref.alloc
// CHECK: memref.copy %[[A]], %[[B]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK: %[[VIEW:.*]] = memref.subview %[[B]]
// CHECK: scf.for
// CHECK: memref.load %[[VIEW]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK: return
func.func @chain(%x: memref<8xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  memref.copy %a, %b : memref<8xf32> to memref<8xf32>
  %view = memref.subview %b[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %view[%i] : memref<4xf32, strided<[1], offset: 2>>
    memref.store %v, %out[%i] : memref<4xf32>
  }
  memref.copy %x, %x : memref<8xf32> to memref<8xf32>
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  return
}

// -----

// A buffer used in another block (the branch) keeps its deallocation.
// CHECK-LABEL: func.func @other_block
// CHECK: cf.br ^bb1
// CHECK: ^bb1:
// CHECK-NEXT: memref.load
// CHECK: memref.dealloc
func.func @other_block() -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<8xf32>
  cf.br ^bb1
^bb1:
  %v = memref.load %a[%c0] : memref<8xf32>
  memref.dealloc %a : memref<8xf32>
  return %v : f32
}

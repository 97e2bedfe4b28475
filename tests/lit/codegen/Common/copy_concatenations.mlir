// RUN: %anyshape-opt %s -anyshape-copy-concatenations | FileCheck %s
// The anyshape-copy-concatenations pass. A chain of insert_slices into a
// tensor.empty (what a concatenate lowers to) becomes one allocation, a
// copy of each source into its subview and a restrict writable to_tensor.
// A link with other users ends the chain (it is a plain tensor from there
// on); an empty with other users starts none.

// CHECK-LABEL: func.func @concatenate
// CHECK-SAME: (%[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<2x4xf32>, %[[N:.*]]: index)
// CHECK-NOT: tensor.insert_slice
// CHECK: %[[BUF:.*]] = memref.alloc(%[[N]]) : memref<?x4xf32>
// CHECK: %[[MA:.*]] = bufferization.to_memref %[[A]] read_only : memref<?x4xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[SA:.*]] = memref.subview %[[BUF]][0, 0] [%{{.*}}, 4] [1, 1]
// CHECK: memref.copy %[[MA]], %[[SA]]
// CHECK: %[[MB:.*]] = bufferization.to_memref %[[B]] read_only
// CHECK: %[[SB:.*]] = memref.subview %[[BUF]][%{{.*}}, 0] [2, 4] [1, 1]
// CHECK: memref.copy %[[MB]], %[[SB]]
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[BUF]] restrict writable : memref<?x4xf32>
// CHECK: return %[[T]]
func.func @concatenate(%a: tensor<?x4xf32>, %b: tensor<2x4xf32>, %n: index) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %m = tensor.dim %a, %c0 : tensor<?x4xf32>
  %0 = tensor.insert_slice %a into %e[0, 0] [%m, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  %1 = tensor.insert_slice %b into %0[%m, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// Each copy stays where its link was, after the offset it needs (so an
// offset is live only up to its copy), and a source used twice gets one
// buffer view.
// CHECK-LABEL: func.func @repeated_operand
// CHECK-SAME: (%[[A:.*]]: tensor<?x4xf32>, %[[N:.*]]: index)
// CHECK: %[[BUF:.*]] = memref.alloc(%[[N]])
// CHECK: %[[MA:.*]] = bufferization.to_memref %[[A]] read_only
// CHECK-NOT: bufferization.to_memref
// CHECK: memref.copy %[[MA]]
// CHECK: %[[M2:.*]] = arith.addi
// CHECK: %[[S2:.*]] = memref.subview %[[BUF]][%[[M2]], 0]
// CHECK: memref.copy %[[MA]], %[[S2]]
// CHECK: %[[M3:.*]] = arith.addi %[[M2]]
// CHECK: %[[S3:.*]] = memref.subview %[[BUF]][%[[M3]], 0]
// CHECK: memref.copy %[[MA]], %[[S3]]
// CHECK-NOT: bufferization.to_memref
// CHECK: bufferization.to_tensor %[[BUF]] restrict writable
func.func @repeated_operand(%a: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %m = tensor.dim %a, %c0 : tensor<?x4xf32>
  %0 = tensor.insert_slice %a into %e[0, 0] [%m, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  %1 = tensor.insert_slice %a into %0[%m, 0] [%m, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  %m2 = arith.addi %m, %m : index
  %2 = tensor.insert_slice %a into %1[%m2, 0] [%m, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  %m3 = arith.addi %m2, %m : index
  %3 = tensor.insert_slice %a into %2[%m3, 0] [%m, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  return %3 : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @link_read_elsewhere
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK: memref.copy
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[BUF]] restrict writable
// CHECK: %[[I:.*]] = tensor.insert_slice %{{.*}} into %[[T]][2, 0]
// CHECK: return %[[T]], %[[I]]
func.func @link_read_elsewhere(%a: tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %e = tensor.empty() : tensor<4x4xf32>
  %0 = tensor.insert_slice %a into %e[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
  %1 = tensor.insert_slice %a into %0[2, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// CHECK-LABEL: func.func @empty_used_twice
// CHECK-NOT: memref.alloc
// CHECK-COUNT-2: tensor.insert_slice
func.func @empty_used_twice(%a: tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %e = tensor.empty() : tensor<4x4xf32>
  %0 = tensor.insert_slice %a into %e[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
  %1 = tensor.insert_slice %a into %e[2, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

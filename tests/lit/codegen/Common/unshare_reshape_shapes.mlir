// RUN: %anyshape-opt %s -anyshape-unshare-reshape-shapes | FileCheck %s
// The anyshape-unshare-reshape-shapes pass. Every tensor.reshape whose
// shape is a tensor.from_elements gets its own copy of it, right before
// the reshape; the shared original goes.

// CHECK-LABEL: func.func @shared_shape
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>, %[[Y:.*]]: tensor<?xf32>, %[[N:.*]]: index)
// CHECK-NOT: tensor.from_elements
// CHECK: %[[S1:.*]] = tensor.from_elements %[[N]], %{{.*}} : tensor<2xindex>
// CHECK-NEXT: tensor.reshape %[[X]](%[[S1]])
// CHECK-NEXT: %[[S2:.*]] = tensor.from_elements %[[N]], %{{.*}} : tensor<2xindex>
// CHECK-NEXT: tensor.reshape %[[Y]](%[[S2]])
// CHECK-NOT: tensor.from_elements
func.func @shared_shape(%x: tensor<?xf32>, %y: tensor<?xf32>, %n: index) -> (tensor<?x2xf32>, tensor<?x2xf32>) {
  %c2 = arith.constant 2 : index
  %shape = tensor.from_elements %n, %c2 : tensor<2xindex>
  %a = tensor.reshape %x(%shape) : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x2xf32>
  %b = tensor.reshape %y(%shape) : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x2xf32>
  return %a, %b : tensor<?x2xf32>, tensor<?x2xf32>
}

// A constant shape (a static compile) becomes a tensor.from_elements of
// index constants, so the reshape no longer aliases a read-only global.
// CHECK-LABEL: func.func @constant_shape
// CHECK-NOT: arith.constant dense
// CHECK: %[[S:.*]] = tensor.from_elements %{{.*}}, %{{.*}} : tensor<2xindex>
// CHECK-NEXT: tensor.reshape %{{.*}}(%[[S]])
// CHECK-NOT: arith.constant dense
func.func @constant_shape(%x: tensor<8xf32>) -> tensor<4x2xf32> {
  %shape = arith.constant dense<[4, 2]> : tensor<2xindex>
  %a = tensor.reshape %x(%shape) : (tensor<8xf32>, tensor<2xindex>) -> tensor<4x2xf32>
  return %a : tensor<4x2xf32>
}

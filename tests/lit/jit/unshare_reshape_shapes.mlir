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

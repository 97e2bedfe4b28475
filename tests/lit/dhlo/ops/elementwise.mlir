// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of the unary and binary elementwise ops, with symbolic dims in
// the #dhlo.shape encoding.

// CHECK-LABEL: func @unary
func.func @unary(%x: tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>> {
  // CHECK: dhlo.abs %{{.*}} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %0 = dhlo.abs %x : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK: dhlo.exp
  %1 = dhlo.exp %0 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK: dhlo.tanh
  %2 = dhlo.tanh %1 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  return %2 : tensor<?x4xf32, #dhlo.shape<n, 4>>
}

// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<?xf32, #dhlo.shape<n>>, %b: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>> {
  // CHECK: dhlo.add %{{.*}}, %{{.*}} : (tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>>
  %0 = dhlo.add %a, %b : (tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>>
  // CHECK: dhlo.max
  %1 = dhlo.max %0, %b : (tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>>
  return %1 : tensor<?xf32, #dhlo.shape<n>>
}

// RUN: %anyshape-opt %s -cse | FileCheck %s
// -cse on dhlo ops.
// Every dhlo op is Pure: identical ops on identical operands
// merge; a different attribute, operand or result type keeps them apart.

// CHECK-LABEL: func.func @merge
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32, #dhlo.shape<n, 4>>)
// CHECK-NEXT: %[[C:.*]] = dhlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[B:.*]] = dhlo.broadcast_in_dim %[[C]] {broadcast_dimensions = array<i64>, shape = #dhlo.shape<n, 4>} : (tensor<f32>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
// CHECK-NEXT: %[[E:.*]] = dhlo.exp %[[X]]
// CHECK-NEXT: %[[M:.*]] = dhlo.mul %[[E]], %[[B]]
// CHECK-NEXT: %[[A:.*]] = dhlo.add %[[M]], %[[M]]
// CHECK-NEXT: return %[[A]]
func.func @merge(%x: tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>> {
  %c1 = dhlo.constant dense<2.0> : tensor<f32>
  %c2 = dhlo.constant dense<2.0> : tensor<f32>
  %b1 = dhlo.broadcast_in_dim %c1 {broadcast_dimensions = array<i64>, shape = #dhlo.shape<n, 4>} : (tensor<f32>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %b2 = dhlo.broadcast_in_dim %c2 {broadcast_dimensions = array<i64>, shape = #dhlo.shape<n, 4>} : (tensor<f32>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %e1 = dhlo.exp %x : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %e2 = dhlo.exp %x : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %m1 = dhlo.mul %e1, %b1 : (tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %m2 = dhlo.mul %e2, %b2 : (tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %a = dhlo.add %m1, %m2 : (tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  return %a : tensor<?x4xf32, #dhlo.shape<n, 4>>
}

// CHECK-LABEL: func.func @kept_apart
// Constants with different values or types:
// CHECK-NEXT: dhlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: dhlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: dhlo.constant dense<1.000000e+00> : tensor<f16>
// Compares in different directions:
// CHECK-NEXT: dhlo.compare %{{.*}}, %{{.*}} {direction = "LT"}
// CHECK-NEXT: dhlo.compare %{{.*}}, %{{.*}} {direction = "GT"}
// Reductions of different kinds and over different dims:
// CHECK-NEXT: dhlo.reduce %{{.*}} {dimensions = array<i64: 1>, kind = "sum"}
// CHECK-NEXT: dhlo.reduce %{{.*}} {dimensions = array<i64: 1>, kind = "max"}
// CHECK-NEXT: dhlo.reduce %{{.*}} {dimensions = array<i64: 0>, kind = "sum"}
// Reshapes to different symbolic targets:
// CHECK-NEXT: dhlo.reshape %{{.*}} {shape = #dhlo.shape<"n*4">}
// CHECK-NEXT: dhlo.reshape %{{.*}} {shape = #dhlo.shape<-1>}
// Same op and operand, different declared result types:
// CHECK-NEXT: dhlo.exp %{{.*}} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
// CHECK-NEXT: dhlo.exp %{{.*}} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<m, 4>>
// CHECK-NEXT: return
func.func @kept_apart(%x: tensor<?x4xf32, #dhlo.shape<n, 4>>) -> (tensor<f32>, tensor<f32>, tensor<f16>, tensor<?x4xi1, #dhlo.shape<n, 4>>, tensor<?x4xi1, #dhlo.shape<n, 4>>, tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>, tensor<4xf32>, tensor<?xf32, #dhlo.shape<"4*n">>, tensor<?xf32, #dhlo.shape<"4*n">>, tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<?x4xf32, #dhlo.shape<m, 4>>) {
  %c0 = dhlo.constant dense<1.0> : tensor<f32>
  %c1 = dhlo.constant dense<2.0> : tensor<f32>
  %c2 = dhlo.constant dense<1.0> : tensor<f16>
  %0 = dhlo.compare %x, %x {direction = "LT"} : (tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xi1, #dhlo.shape<n, 4>>
  %1 = dhlo.compare %x, %x {direction = "GT"} : (tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xi1, #dhlo.shape<n, 4>>
  %2 = dhlo.reduce %x {dimensions = array<i64: 1>, kind = "sum"} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?xf32, #dhlo.shape<n>>
  %3 = dhlo.reduce %x {dimensions = array<i64: 1>, kind = "max"} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?xf32, #dhlo.shape<n>>
  %4 = dhlo.reduce %x {dimensions = array<i64: 0>, kind = "sum"} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<4xf32>
  %5 = dhlo.reshape %x {shape = #dhlo.shape<"n*4">} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?xf32, #dhlo.shape<"4*n">>
  %6 = dhlo.reshape %x {shape = #dhlo.shape<-1>} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?xf32, #dhlo.shape<"4*n">>
  %7 = dhlo.exp %x : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %8 = dhlo.exp %x : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<m, 4>>
  return %c0, %c1, %c2, %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<f32>, tensor<f32>, tensor<f16>, tensor<?x4xi1, #dhlo.shape<n, 4>>, tensor<?x4xi1, #dhlo.shape<n, 4>>, tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>, tensor<4xf32>, tensor<?xf32, #dhlo.shape<"4*n">>, tensor<?xf32, #dhlo.shape<"4*n">>, tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<?x4xf32, #dhlo.shape<m, 4>>
}

// RUN: %anyshape-opt %s --dhlo-mark-fusions -mlir-print-debuginfo | FileCheck %s
// dhlo-mark-fusions writes each op's fusion of the plan into its location.
// The softmax is one kStitch (fusion 0): its reductions, exp and quotient
// are marked 0. The column sum is a kernel of its own (fusion 1), and the
// add and tanh over its result another (fusion 2). The splat constant,
// which every kernel recomputes, keeps its plain location.
// CHECK-LABEL: func.func @marks
// CHECK: dhlo.constant {{.*}} loc(#[[CONST:loc[0-9]*]])
// CHECK: dhlo.reduce {{.*}}kind = "max"{{.*}} loc(#[[F0:loc[0-9]*]])
// CHECK: dhlo.exp {{.*}} loc(#[[F0E:loc[0-9]*]])
// CHECK: dhlo.div {{.*}} loc(#[[F0D:loc[0-9]*]])
// CHECK: dhlo.reduce {{.*}}dimensions = array<i64: 0>, kind = "sum"{{.*}} loc(#[[F1:loc[0-9]*]])
// CHECK: dhlo.tanh {{.*}} loc(#[[F2:loc[0-9]*]])
// CHECK-DAG: #[[CONST]] = loc("c")
// CHECK-DAG: #[[F0]] = loc(fused<{dhlo.fusion = 0 : i64}>[
// CHECK-DAG: #[[F0E]] = loc(fused<{dhlo.fusion = 0 : i64}>[
// CHECK-DAG: #[[F0D]] = loc(fused<{dhlo.fusion = 0 : i64}>[
// CHECK-DAG: #[[F1]] = loc(fused<{dhlo.fusion = 1 : i64}>[
// CHECK-DAG: #[[F2]] = loc(fused<{dhlo.fusion = 2 : i64}>[
func.func @marks(%x: tensor<?x?xf32, #dhlo.shape<n, m>>) -> (tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?xf32, #dhlo.shape<m>>) {
  %c = dhlo.constant dense<1.0> : tensor<f32> loc("c")
  %max = dhlo.reduce %x {kind = "max", dimensions = array<i64: 1>} : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?xf32, #dhlo.shape<n>>
  %bm = dhlo.broadcast_in_dim %max {shape = #dhlo.shape<n, m>, broadcast_dimensions = array<i64: 0>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %s = dhlo.sub %x, %bm : (tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %e = dhlo.exp %s : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %sum = dhlo.reduce %e {kind = "sum", dimensions = array<i64: 1>} : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?xf32, #dhlo.shape<n>>
  %bs = dhlo.broadcast_in_dim %sum {shape = #dhlo.shape<n, m>, broadcast_dimensions = array<i64: 0>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %d = dhlo.div %e, %bs : (tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %cols = dhlo.reduce %x {kind = "sum", dimensions = array<i64: 0>} : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?xf32, #dhlo.shape<m>>
  %bc = dhlo.broadcast_in_dim %c {shape = #dhlo.shape<m>, broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<?xf32, #dhlo.shape<m>>
  %a = dhlo.add %cols, %bc : (tensor<?xf32, #dhlo.shape<m>>, tensor<?xf32, #dhlo.shape<m>>) -> tensor<?xf32, #dhlo.shape<m>>
  %t = dhlo.tanh %a : (tensor<?xf32, #dhlo.shape<m>>) -> tensor<?xf32, #dhlo.shape<m>>
  return %d, %t : tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?xf32, #dhlo.shape<m>>
}

// RUN: %anyshape-opt %s --dhlo-mark-fusions --dhlo-order-fusions -mlir-print-debuginfo | FileCheck %s
// dhlo-order-fusions makes each fusion's ops consecutive. Here the
// softmax over x (one kStitch) is written interleaved with an independent
// tanh over y. The softmax's first op comes first, so the softmax goes
// first, its ops in their order, and the tanh after it.
// CHECK-LABEL: func.func @interleaved
// CHECK: dhlo.reduce {{.*}}kind = "max"{{.*}} loc(#[[MAX:loc[0-9]*]])
// CHECK-NEXT: dhlo.broadcast_in_dim
// CHECK-NEXT: dhlo.sub
// CHECK-NEXT: dhlo.exp
// CHECK-NEXT: dhlo.reduce {{.*}}kind = "sum"
// CHECK-NEXT: dhlo.broadcast_in_dim
// CHECK-NEXT: dhlo.div {{.*}} loc(#[[DIV:loc[0-9]*]])
// CHECK-NEXT: dhlo.tanh {{.*}} loc(#[[TANH:loc[0-9]*]])
// CHECK-NEXT: return
// CHECK-DAG: #[[MAX]] = loc(fused<{dhlo.fusion = 1 : i64}>[
// CHECK-DAG: #[[DIV]] = loc(fused<{dhlo.fusion = 1 : i64}>[
// CHECK-DAG: #[[TANH]] = loc(fused<{dhlo.fusion = 0 : i64}>[
func.func @interleaved(%x: tensor<?x?xf32, #dhlo.shape<n, m>>, %y: tensor<?xf32, #dhlo.shape<k>>) -> (tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?xf32, #dhlo.shape<k>>) {
  %max = dhlo.reduce %x {dimensions = array<i64: 1>, kind = "max"} : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?xf32, #dhlo.shape<n>>
  %t = dhlo.tanh %y : (tensor<?xf32, #dhlo.shape<k>>) -> tensor<?xf32, #dhlo.shape<k>>
  %bmax = dhlo.broadcast_in_dim %max {broadcast_dimensions = array<i64: 0>, shape = #dhlo.shape<n, m>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %d = dhlo.sub %x, %bmax : (tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %e = dhlo.exp %d : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %s = dhlo.reduce %e {dimensions = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?xf32, #dhlo.shape<n>>
  %bs = dhlo.broadcast_in_dim %s {broadcast_dimensions = array<i64: 0>, shape = #dhlo.shape<n, m>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  %out = dhlo.div %e, %bs : (tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?x?xf32, #dhlo.shape<n, m>>) -> tensor<?x?xf32, #dhlo.shape<n, m>>
  return %out, %t : tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?xf32, #dhlo.shape<k>>
}

// RUN: %anyshape-opt %s --split-input-file --dhlo-form-fusions | FileCheck %s
// dhlo-form-fusions makes each fusion of the plan a dhlo.fusion holding its
// ops, whose results are what the rest of the function reads.
//
// The softmax is one kStitch (fusion 0): its reductions, broadcasts, exp
// and quotient. The column sum is a kernel of its own (fusion 1), and the
// add and tanh over its result another (fusion 2), which reads fusion 1's
// result. The splat constant and its broadcast, which every kernel
// recomputes, stay outside, before their user.
// CHECK-LABEL: func.func @kernels
// CHECK: %[[SOFTMAX:.*]] = dhlo.fusion "kStitch" 0 versions ["split-row", "parallel", "serial"] -> tensor<?x?xf32, #dhlo.shape<n, m>> {
// CHECK-NEXT: dhlo.reduce {{.*}}kind = "max"
// CHECK-NEXT: dhlo.broadcast_in_dim
// CHECK-NEXT: dhlo.sub
// CHECK-NEXT: dhlo.exp
// CHECK-NEXT: dhlo.reduce {{.*}}kind = "sum"
// CHECK-NEXT: dhlo.broadcast_in_dim
// CHECK-NEXT: %[[D:.*]] = dhlo.div
// CHECK-NEXT: dhlo.yield %[[D]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[COLS:.*]] = dhlo.fusion "kInput" 1
// CHECK-NEXT: dhlo.reduce {{.*}}dimensions = array<i64: 0>, kind = "sum"
// CHECK-NEXT: dhlo.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[C:.*]] = dhlo.constant
// CHECK-NEXT: %[[BC:.*]] = dhlo.broadcast_in_dim %[[C]]
// CHECK-NEXT: %[[T:.*]] = dhlo.fusion "kLoop" 2
// CHECK-NEXT: dhlo.add %[[COLS]], %[[BC]]
// CHECK-NEXT: dhlo.tanh
// CHECK-NEXT: dhlo.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[SOFTMAX]], %[[T]]
func.func @kernels(%x: tensor<?x?xf32, #dhlo.shape<n, m>>) -> (tensor<?x?xf32, #dhlo.shape<n, m>>, tensor<?xf32, #dhlo.shape<m>>) {
  %c = dhlo.constant dense<1.0> : tensor<f32>
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

// -----

// A fusion's ops become consecutive. Here the softmax over x (one kStitch)
// is written interleaved with an independent tanh over y. The softmax's
// first op comes first, so the softmax goes first, its ops in their order,
// and the tanh after it.
// CHECK-LABEL: func.func @interleaved
// CHECK: %[[SOFTMAX:.*]] = dhlo.fusion "kStitch" 1
// CHECK-NEXT: dhlo.reduce {{.*}}kind = "max"
// CHECK-NEXT: dhlo.broadcast_in_dim
// CHECK-NEXT: dhlo.sub
// CHECK-NEXT: dhlo.exp
// CHECK-NEXT: dhlo.reduce {{.*}}kind = "sum"
// CHECK-NEXT: dhlo.broadcast_in_dim
// CHECK-NEXT: dhlo.div
// CHECK-NEXT: dhlo.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[T:.*]] = dhlo.fusion "kLoop" 0
// CHECK-NEXT: dhlo.tanh
// CHECK-NEXT: dhlo.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[SOFTMAX]], %[[T]]
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

// -----

// A rule on a nonzero's count (dhlo.check_sizes, which nothing uses) goes
// right after the nonzero it follows, with the sizes it reads: before the
// kernel that reads two rows of the count's coordinates.
// CHECK-LABEL: func.func @count_rule_before_what_the_count_shapes
// CHECK: %[[NZ:.*]] = dhlo.nonzero
// CHECK: %[[DIM:.*]] = tensor.dim %[[NZ]]
// CHECK: dhlo.check_sizes %[[DIM]], %{{.*}} {check = 0 : i64, kind = "equal"}
// CHECK: dhlo.fusion "kLoop" 0
// CHECK: dhlo.transpose %[[NZ]]
// CHECK: dhlo.fusion "kLoop" 1
func.func @count_rule_before_what_the_count_shapes(%arg0: tensor<?xf32, #dhlo.shape<n>>) -> (tensor<1x1xi64>, tensor<1x1xi64>) {
  %1 = dhlo.nonzero %arg0 : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<1x?xi64, #dhlo.shape<1, count>>
  %2 = dhlo.transpose %1 {permutation = array<i64: 1, 0>} : (tensor<1x?xi64, #dhlo.shape<1, count>>) -> tensor<?x1xi64, #dhlo.shape<count, 1>>
  %3 = dhlo.reshape %2 {shape = #dhlo.shape<2, 1>} : (tensor<?x1xi64, #dhlo.shape<count, 1>>) -> tensor<2x1xi64>
  %4 = dhlo.slice %3 {limit_indices = #dhlo.shape<1, 1>, start_indices = #dhlo.shape<0, 0>, strides = array<i64>} : (tensor<2x1xi64>) -> tensor<1x1xi64>
  %5 = dhlo.slice %3 {limit_indices = #dhlo.shape<2, 1>, start_indices = #dhlo.shape<1, 0>, strides = array<i64>} : (tensor<2x1xi64>) -> tensor<1x1xi64>
  %c1 = arith.constant 1 : index
  %dim = tensor.dim %1, %c1 : tensor<1x?xi64, #dhlo.shape<1, count>>
  %c2 = arith.constant 2 : index
  dhlo.check_sizes %dim, %c2 {check = 0 : i64, kind = "equal"}
  return %4, %5 : tensor<1x1xi64>, tensor<1x1xi64>
}

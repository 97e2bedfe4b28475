// RUN: %anyshape-opt %s -split-input-file --dhlo-convert-to-linalg | FileCheck %s
// dhlo-convert-to-linalg: elementwise ops become generics with identity
// maps; a broadcast dim proven equal to its target (or static) is an
// affine map, a symbolic dim that may be 1 reads through a select on its
// size; reductions accumulate f16 in f32; encodings are gone afterwards.

// CHECK-LABEL: func @elementwise
// CHECK-SAME: (%{{.*}}: tensor<?x4xf32>, %{{.*}}: tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK-NOT: dhlo.
func.func @elementwise(%a: tensor<?x4xf32, #dhlo.shape<n, 4>>, %b: tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>> {
  %0 = dhlo.add %a, %b : (tensor<?x4xf32, #dhlo.shape<n, 4>>, tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xf32, #dhlo.shape<n, 4>>
}

// -----

// CHECK-LABEL: func @broadcast_proven
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}]
// CHECK-NOT: arith.select
func.func @broadcast_proven(%x: tensor<?xf32, #dhlo.shape<n>>) -> tensor<3x?xf32, #dhlo.shape<3, n>> {
  %0 = dhlo.broadcast_in_dim %x {shape = #dhlo.shape<3, n>, broadcast_dimensions = array<i64: 1>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<3x?xf32, #dhlo.shape<3, n>>
  return %0 : tensor<3x?xf32, #dhlo.shape<3, n>>
}

// -----

// m may be 1 at run time and stretch to n.
// CHECK-LABEL: func @broadcast_may_stretch
// CHECK: %[[ONE:.*]] = arith.cmpi eq
// CHECK: linalg.generic
// CHECK: arith.select %[[ONE]]
// CHECK: tensor.extract
func.func @broadcast_may_stretch(%x: tensor<?xf32, #dhlo.shape<m>>, %y: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>> {
  %0 = dhlo.broadcast_in_dim %x {shape = #dhlo.shape<n>, broadcast_dimensions = array<i64: 0>} : (tensor<?xf32, #dhlo.shape<m>>) -> tensor<?xf32, #dhlo.shape<n>>
  return %0 : tensor<?xf32, #dhlo.shape<n>>
}

// -----

// Onto a static 1, m is 1 (its shape check): index 0 is read without a
// select, so an iota producer still fuses into the reader (Dynamo's graph
// for a size it specialised to 1).
// CHECK-LABEL: func @broadcast_onto_one
// CHECK-NOT: arith.select
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}]
// CHECK-NOT: arith.select
func.func @broadcast_onto_one(%x: tensor<?xf32, #dhlo.shape<m>>) -> tensor<1xf32> {
  %0 = dhlo.broadcast_in_dim %x {shape = #dhlo.shape<1>, broadcast_dimensions = array<i64: 0>} : (tensor<?xf32, #dhlo.shape<m>>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// CHECK-LABEL: func @reduce_f16
// CHECK: linalg.fill ins(%{{.*}} : f32)
// CHECK: linalg.generic
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK: arith.truncf
func.func @reduce_f16(%x: tensor<?x8xf16, #dhlo.shape<n, 8>>) -> tensor<?xf16, #dhlo.shape<n>> {
  %0 = dhlo.reduce %x {kind = "sum", dimensions = array<i64: 1>} : (tensor<?x8xf16, #dhlo.shape<n, 8>>) -> tensor<?xf16, #dhlo.shape<n>>
  return %0 : tensor<?xf16, #dhlo.shape<n>>
}

// -----

// Integer division: by zero gives -1, by -1 negates (wrapping).
// CHECK-LABEL: func @int_div
// CHECK: arith.divsi
// CHECK: arith.select
// CHECK: arith.select
func.func @int_div(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = dhlo.div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// A splat of more than 4096 elements is filled at run time (as a constant
// it would be a global of every element in the object code); a small one
// stays a constant.
// CHECK-LABEL: func @splats
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[E:.*]] = tensor.empty() : tensor<67108864xi1>
// CHECK-DAG: %[[SMALL:.*]] = arith.constant dense<2.000000e+00> : tensor<4096xf32>
// CHECK: %[[BIG:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%[[E]] : tensor<67108864xi1>)
// CHECK: return %[[BIG]], %[[SMALL]]
func.func @splats() -> (tensor<67108864xi1>, tensor<4096xf32>) {
  %big = dhlo.constant dense<true> : tensor<67108864xi1>
  %small = dhlo.constant dense<2.0> : tensor<4096xf32>
  return %big, %small : tensor<67108864xi1>, tensor<4096xf32>
}

// RUN: %anyshape-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(anyshape-transpose-wide-weights))' | FileCheck %s
// The anyshape-transpose-wide-weights pass. An f32 dot_general reading a
// constant weight [K, N] with N > K on its dim 0 reads the weight stored
// [N, K] on its dim 1 instead: a dense constant transposed here, a seeded
// one marked `transposed` (generated so at load). Square, narrow and
// non-constant weights stay, as does one already read on its dim 1.

// CHECK-LABEL: func.func @seeded_wide
// CHECK: %[[W:.*]] = dhlo.seeded_uniform {high = 5.000000e-01 : f64, low = -5.000000e-01 : f64, seed = 21 : ui64, transposed} : tensor<48x16xf32>
// CHECK: dhlo.dot_general %{{.*}}, %[[W]] {{{.*}}rhs_contracting_dimensions = array<i64: 1>} : (tensor<?x16xf32, #dhlo.shape<seq, 16>>, tensor<48x16xf32>) -> tensor<?x48xf32, #dhlo.shape<seq, 48>>
// CHECK-NOT: tensor<16x48xf32>
func.func @seeded_wide(%x: tensor<?x16xf32, #dhlo.shape<seq, 16>>) -> tensor<?x48xf32, #dhlo.shape<seq, 48>> {
  %w = dhlo.seeded_uniform {seed = 21 : ui64, low = -0.5 : f64, high = 0.5 : f64} : tensor<16x48xf32>
  %0 = dhlo.dot_general %x, %w {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x16xf32, #dhlo.shape<seq, 16>>, tensor<16x48xf32>) -> tensor<?x48xf32, #dhlo.shape<seq, 48>>
  return %0 : tensor<?x48xf32, #dhlo.shape<seq, 48>>
}

// -----

// A dense constant's elements are transposed: [[1, 2, 3], [4, 5, 6]]
// becomes [[1, 4], [2, 5], [3, 6]]. Another reader of the weight keeps
// the original; two products of one weight share one transposed copy.
// CHECK-LABEL: func.func @dense_shared
// CHECK-DAG: %[[W:.*]] = dhlo.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG: %[[T:.*]] = dhlo.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK: dhlo.dot_general %{{.*}}, %[[T]] {{{.*}}rhs_contracting_dimensions = array<i64: 1>}
// CHECK: dhlo.dot_general %{{.*}}, %[[T]] {{{.*}}rhs_contracting_dimensions = array<i64: 1>}
// CHECK: dhlo.add %[[W]], %[[W]]
func.func @dense_shared(%x: tensor<4x2xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>) {
  %w = dhlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = dhlo.dot_general %x, %w {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %1 = dhlo.dot_general %x, %w {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %2 = dhlo.add %w, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>
}

// -----

// Left as they are: a square weight, a narrow one (N < K), a weight that
// is an argument, and a weight already contracted on dim 1.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: transposed
// CHECK-COUNT-4: rhs_contracting_dimensions = array<i64: {{[01]}}>} : (tensor<4x8xf32>, tensor<8x{{[0-9]+}}xf32>)
func.func @kept(%x: tensor<4x8xf32>, %v: tensor<8x16xf32>) -> (tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x16xf32>, tensor<4x8xf32>) {
  %sq = dhlo.seeded_uniform {seed = 1 : ui64, low = 0.0 : f64, high = 1.0 : f64} : tensor<8x8xf32>
  %nw = dhlo.seeded_uniform {seed = 2 : ui64, low = 0.0 : f64, high = 1.0 : f64} : tensor<8x2xf32>
  %tw = dhlo.seeded_uniform {seed = 3 : ui64, low = 0.0 : f64, high = 1.0 : f64} : tensor<8x8xf32>
  %0 = dhlo.dot_general %x, %sq {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = dhlo.dot_general %x, %nw {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %2 = dhlo.dot_general %x, %v {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %3 = dhlo.dot_general %x, %tw {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x16xf32>, tensor<4x8xf32>
}

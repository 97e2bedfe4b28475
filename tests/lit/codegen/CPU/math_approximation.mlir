// RUN: %anyshape-opt %s -anyshape-math-approximation | FileCheck %s
// The anyshape-math-approximation pass. tanh, exp and erf on f32 (scalars,
// as in linalg.generic bodies, and vectors) are replaced by polynomial
// approximations (MLIR's; erf's is ours): fma chains and plain
// arithmetic, with no call to the transcendental left for libm. f16 is
// computed in f32 and truncated back; f64 has no approximation and keeps the math op. Every
// float division, the graph's and the approximations', may go through a
// reciprocal (arcp), except a division by a square root.

// tanh(x) = x * p(x^2) / q(x^2), with x itself for tiny |x|.
// CHECK-LABEL: func.func @tanh_f32
// CHECK-NOT: math.tanh
// CHECK: %[[X2:.*]] = arith.mulf %[[C:.*]], %[[C]] : f32
// CHECK: math.fma %[[X2]]
// CHECK: %[[P:.*]] = arith.mulf %[[C]], %{{.*}} : f32
// CHECK: %[[R:.*]] = arith.divf %[[P]], %{{.*}} fastmath<arcp> : f32
// CHECK: %[[Y:.*]] = arith.select %{{.*}}, %[[C]], %[[R]] : f32
// CHECK-NOT: math.tanh
// CHECK: return %[[Y]] : f32
func.func @tanh_f32(%x: f32) -> f32 {
  %y = math.tanh %x : f32
  return %y : f32
}

// exp(x) = 2^n * p(r): the 2^n is built by shifting n into the exponent.
// CHECK-LABEL: func.func @exp_vector
// CHECK-NOT: math.exp
// CHECK: math.floor %{{.*}} : vector<8xf32>
// CHECK: math.fma %{{.*}} : vector<8xf32>
// CHECK: arith.fptosi %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.shli %{{.*}} : vector<8xi32>
// CHECK: %[[POW:.*]] = arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: %[[Y:.*]] = arith.mulf %{{.*}}, %[[POW]] : vector<8xf32>
// CHECK-NOT: math.exp
// CHECK: return %[[Y]] : vector<8xf32>
func.func @exp_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %y = math.exp %x : vector<8xf32>
  return %y : vector<8xf32>
}

// erf(x) = x P(x^2) / Q(x^2) on x clamped to [-4, 4], the result clamped
// to [-1, 1]: one rational function for every x (ours; MLIR's picks one
// of three per element with selects), odd because P and Q are even.
// CHECK-LABEL: func.func @erf_f32
// CHECK-NOT: math.erf
// CHECK: %[[HI:.*]] = arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK: %[[X:.*]] = arith.maximumf %[[HI]], %{{.*}} : f32
// CHECK: %[[T:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-COUNT-10: math.fma %{{.*}}, %[[T]], %{{.*}} : f32
// CHECK: %[[R:.*]] = arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[R]] : f32
// CHECK: %[[YHI:.*]] = arith.minimumf %[[Y]], %{{.*}} : f32
// CHECK: %[[E:.*]] = arith.maximumf %[[YHI]], %{{.*}} : f32
// CHECK-NEXT: return %[[E]] : f32
func.func @erf_f32(%x: f32) -> f32 {
  %y = math.erf %x : f32
  return %y : f32
}

// The same on vectors, with splat coefficients; no select.
// CHECK-LABEL: func.func @erf_vector
// CHECK-NOT: math.erf
// CHECK-NOT: arith.select
// CHECK: math.fma %{{.*}} : vector<8xf32>
// CHECK-NOT: arith.select
// CHECK: return
func.func @erf_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %y = math.erf %x : vector<8xf32>
  return %y : vector<8xf32>
}

// softmax's last step: the row sum, the same for the whole row, is
// inverted once per row once LLVM may.
// CHECK-LABEL: func.func @divide_by_row_sum
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : vector<16xf32>
func.func @divide_by_row_sum(%x: vector<16xf32>, %sum: vector<16xf32>) -> vector<16xf32> {
  %y = arith.divf %x, %sum : vector<16xf32>
  return %y : vector<16xf32>
}

// A division by a square root stays exact: with arcp LLVM's x86 backend
// would use its rsqrt estimate (NaN instead of inf at 0).
// CHECK-LABEL: func.func @divide_by_square_root
// CHECK: arith.divf %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : vector<16xf32>
// CHECK: %[[P:.*]] = arith.mulf
// CHECK: arith.divf %{{[a-z0-9_]+}}, %[[P]] : vector<16xf32>
// CHECK-NOT: arcp
// CHECK: return
func.func @divide_by_square_root(%x: vector<16xf32>, %y: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>) {
  %s = math.sqrt %y : vector<16xf32>
  %q = arith.divf %x, %s : vector<16xf32>
  %p = arith.mulf %x, %s : vector<16xf32>
  %r = arith.divf %x, %p : vector<16xf32>
  return %q, %r : vector<16xf32>, vector<16xf32>
}

// CHECK-LABEL: func.func @tanh_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NOT: math.tanh
// CHECK: math.fma %{{.*}} : f32
// CHECK: %[[Y:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[Y]] : f16
func.func @tanh_f16(%x: f16) -> f16 {
  %y = math.tanh %x : f16
  return %y : f16
}

// CHECK-LABEL: func.func @tanh_f64
// CHECK-NEXT: %[[Y:.*]] = math.tanh %{{.*}} : f64
// CHECK-NEXT: return %[[Y]] : f64
func.func @tanh_f64(%x: f64) -> f64 {
  %y = math.tanh %x : f64
  return %y : f64
}

// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of every binary elementwise op.
// add sub mul div pow max min and or.
// Symbolic, static, unknown and mixed dims; every dtype.

// CHECK-LABEL: func.func @arithmetic
// CHECK-SAME: (%[[A:.*]]: tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, %[[B:.*]]: tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>)
func.func @arithmetic(%a: tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, %b: tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>> {
  // CHECK-NEXT: %[[V0:.*]] = dhlo.add %[[A]], %[[B]] : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %0 = dhlo.add %a, %b : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  // CHECK-NEXT: %[[V1:.*]] = dhlo.sub %[[V0]], %[[B]] : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %1 = dhlo.sub %0, %b : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  // CHECK-NEXT: %[[V2:.*]] = dhlo.mul %[[V1]], %[[A]] : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %2 = dhlo.mul %1, %a : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  // CHECK-NEXT: %[[V3:.*]] = dhlo.div %[[V2]], %[[B]] : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %3 = dhlo.div %2, %b : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  // CHECK-NEXT: %[[V4:.*]] = dhlo.pow %[[V3]], %[[A]] : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %4 = dhlo.pow %3, %a : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  // CHECK-NEXT: %[[V5:.*]] = dhlo.max %[[V4]], %[[B]] : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %5 = dhlo.max %4, %b : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  // CHECK-NEXT: %[[V6:.*]] = dhlo.min %[[V5]], %[[A]] : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %6 = dhlo.min %5, %a : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>, tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  // CHECK-NEXT: return %[[V6]]
  return %6 : tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
}

// Numeric binary ops over the other dtypes.
// CHECK-LABEL: func.func @dtypes
func.func @dtypes(%h: tensor<2xf16>, %b: tensor<?xbf16, #dhlo.shape<n>>, %i: tensor<i32>, %l: tensor<?x?xi64, #dhlo.shape<n, m>>) -> (tensor<2xf16>, tensor<?xbf16, #dhlo.shape<n>>, tensor<i32>, tensor<?x?xi64, #dhlo.shape<n, m>>) {
  // CHECK-NEXT: dhlo.add %{{.*}}, %{{.*}} : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  %0 = dhlo.add %h, %h : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  // CHECK-NEXT: dhlo.mul %{{.*}}, %{{.*}} : (tensor<?xbf16, #dhlo.shape<n>>, tensor<?xbf16, #dhlo.shape<n>>) -> tensor<?xbf16, #dhlo.shape<n>>
  %1 = dhlo.mul %b, %b : (tensor<?xbf16, #dhlo.shape<n>>, tensor<?xbf16, #dhlo.shape<n>>) -> tensor<?xbf16, #dhlo.shape<n>>
  // CHECK-NEXT: dhlo.div %{{.*}}, %{{.*}} : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %2 = dhlo.div %i, %i : (tensor<i32>, tensor<i32>) -> tensor<i32>
  // CHECK-NEXT: dhlo.pow %{{.*}}, %{{.*}} : (tensor<?x?xi64, #dhlo.shape<n, m>>, tensor<?x?xi64, #dhlo.shape<n, m>>) -> tensor<?x?xi64, #dhlo.shape<n, m>>
  %3 = dhlo.pow %l, %l : (tensor<?x?xi64, #dhlo.shape<n, m>>, tensor<?x?xi64, #dhlo.shape<n, m>>) -> tensor<?x?xi64, #dhlo.shape<n, m>>
  return %0, %1, %2, %3 : tensor<2xf16>, tensor<?xbf16, #dhlo.shape<n>>, tensor<i32>, tensor<?x?xi64, #dhlo.shape<n, m>>
}

// and / or on bool (logical) and integers (bitwise).
// CHECK-LABEL: func.func @logical
func.func @logical(%p: tensor<?xi1, #dhlo.shape<n>>, %q: tensor<?xi1, #dhlo.shape<n>>, %i: tensor<4xi32>) -> (tensor<?xi1, #dhlo.shape<n>>, tensor<4xi32>) {
  // CHECK-NEXT: %[[AND:.*]] = dhlo.and %{{.*}}, %{{.*}} : (tensor<?xi1, #dhlo.shape<n>>, tensor<?xi1, #dhlo.shape<n>>) -> tensor<?xi1, #dhlo.shape<n>>
  %0 = dhlo.and %p, %q : (tensor<?xi1, #dhlo.shape<n>>, tensor<?xi1, #dhlo.shape<n>>) -> tensor<?xi1, #dhlo.shape<n>>
  // CHECK-NEXT: %[[OR:.*]] = dhlo.or %[[AND]], %{{.*}} : (tensor<?xi1, #dhlo.shape<n>>, tensor<?xi1, #dhlo.shape<n>>) -> tensor<?xi1, #dhlo.shape<n>>
  %1 = dhlo.or %0, %q : (tensor<?xi1, #dhlo.shape<n>>, tensor<?xi1, #dhlo.shape<n>>) -> tensor<?xi1, #dhlo.shape<n>>
  // CHECK-NEXT: %[[IAND:.*]] = dhlo.and %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = dhlo.and %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK-NEXT: %[[IOR:.*]] = dhlo.or %[[IAND]], %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = dhlo.or %2, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK-NEXT: return %[[OR]], %[[IOR]]
  return %1, %3 : tensor<?xi1, #dhlo.shape<n>>, tensor<4xi32>
}

// Mixed dims unify: a static size wins over a symbol or an unknown, and
// the declared result may be the unified (more informative) type.
// CHECK-LABEL: func.func @unified
func.func @unified(%a: tensor<?x?xf32, #dhlo.shape<seq, ?>>, %b: tensor<?x4xf32, #dhlo.shape<"?3", 4>>) -> tensor<?x4xf32, #dhlo.shape<seq, 4>> {
  // CHECK-NEXT: dhlo.add %{{.*}}, %{{.*}} : (tensor<?x?xf32, #dhlo.shape<seq, ?>>, tensor<?x4xf32, #dhlo.shape<"?3", 4>>) -> tensor<?x4xf32, #dhlo.shape<seq, 4>>
  %0 = dhlo.add %a, %b : (tensor<?x?xf32, #dhlo.shape<seq, ?>>, tensor<?x4xf32, #dhlo.shape<"?3", 4>>) -> tensor<?x4xf32, #dhlo.shape<seq, 4>>
  return %0 : tensor<?x4xf32, #dhlo.shape<seq, 4>>
}

// Plain dynamic tensors without an encoding are fine too.
// CHECK-LABEL: func.func @no_encoding
func.func @no_encoding(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // CHECK-NEXT: dhlo.sub %{{.*}}, %{{.*}} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = dhlo.sub %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

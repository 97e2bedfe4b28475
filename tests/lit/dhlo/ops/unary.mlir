// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of every unary op and of convert.
// abs neg exp log tanh logistic sqrt rsqrt erf sin cos floor ceil not
// convert, on symbolic shapes and every dtype each op accepts.

// CHECK-LABEL: func.func @float_ops
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32, #dhlo.shape<n, 4>>)
func.func @float_ops(%x: tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>> {
  // CHECK-NEXT: %[[A:.*]] = dhlo.abs %[[X]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %0 = dhlo.abs %x : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[B:.*]] = dhlo.neg %[[A]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %1 = dhlo.neg %0 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[C:.*]] = dhlo.exp %[[B]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %2 = dhlo.exp %1 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[D:.*]] = dhlo.log %[[C]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %3 = dhlo.log %2 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[E:.*]] = dhlo.tanh %[[D]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %4 = dhlo.tanh %3 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[F:.*]] = dhlo.logistic %[[E]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %5 = dhlo.logistic %4 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[G:.*]] = dhlo.sqrt %[[F]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %6 = dhlo.sqrt %5 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[H:.*]] = dhlo.rsqrt %[[G]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %7 = dhlo.rsqrt %6 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[I:.*]] = dhlo.erf %[[H]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %8 = dhlo.erf %7 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[J:.*]] = dhlo.sin %[[I]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %9 = dhlo.sin %8 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[K:.*]] = dhlo.cos %[[J]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %10 = dhlo.cos %9 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[L:.*]] = dhlo.floor %[[K]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %11 = dhlo.floor %10 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[M:.*]] = dhlo.ceil %[[L]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %12 = dhlo.ceil %11 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: return %[[M]] : tensor<?x4xf32, #dhlo.shape<n, 4>>
  return %12 : tensor<?x4xf32, #dhlo.shape<n, 4>>
}

// The float-only ops on the narrow float dtypes.
// CHECK-LABEL: func.func @narrow_floats
func.func @narrow_floats(%h: tensor<?xf16, #dhlo.shape<"batch*seq">>, %b: tensor<8xbf16>) -> (tensor<?xf16, #dhlo.shape<"batch*seq">>, tensor<8xbf16>) {
  // CHECK-NEXT: dhlo.rsqrt %{{.*}} : (tensor<?xf16, #dhlo.shape<"batch*seq">>) -> tensor<?xf16, #dhlo.shape<"batch*seq">>
  %0 = dhlo.rsqrt %h : (tensor<?xf16, #dhlo.shape<"batch*seq">>) -> tensor<?xf16, #dhlo.shape<"batch*seq">>
  // CHECK-NEXT: dhlo.erf %{{.*}} : (tensor<8xbf16>) -> tensor<8xbf16>
  %1 = dhlo.erf %b : (tensor<8xbf16>) -> tensor<8xbf16>
  return %0, %1 : tensor<?xf16, #dhlo.shape<"batch*seq">>, tensor<8xbf16>
}

// abs and neg take integers too; not takes bool and integers.
// CHECK-LABEL: func.func @integer_ops
func.func @integer_ops(%i: tensor<?xi32, #dhlo.shape<n>>, %l: tensor<3xi64>, %p: tensor<?x2xi1, #dhlo.shape<m, 2>>) -> (tensor<?xi32, #dhlo.shape<n>>, tensor<3xi64>, tensor<?x2xi1, #dhlo.shape<m, 2>>) {
  // CHECK-NEXT: %[[A:.*]] = dhlo.abs %{{.*}} : (tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xi32, #dhlo.shape<n>>
  %0 = dhlo.abs %i : (tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xi32, #dhlo.shape<n>>
  // CHECK-NEXT: %[[B:.*]] = dhlo.not %[[A]] : (tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xi32, #dhlo.shape<n>>
  %1 = dhlo.not %0 : (tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xi32, #dhlo.shape<n>>
  // CHECK-NEXT: %[[C:.*]] = dhlo.neg %{{.*}} : (tensor<3xi64>) -> tensor<3xi64>
  %2 = dhlo.neg %l : (tensor<3xi64>) -> tensor<3xi64>
  // CHECK-NEXT: %[[D:.*]] = dhlo.not %[[C]] : (tensor<3xi64>) -> tensor<3xi64>
  %3 = dhlo.not %2 : (tensor<3xi64>) -> tensor<3xi64>
  // CHECK-NEXT: %[[E:.*]] = dhlo.not %{{.*}} : (tensor<?x2xi1, #dhlo.shape<m, 2>>) -> tensor<?x2xi1, #dhlo.shape<m, 2>>
  %4 = dhlo.not %p : (tensor<?x2xi1, #dhlo.shape<m, 2>>) -> tensor<?x2xi1, #dhlo.shape<m, 2>>
  // CHECK-NEXT: return %[[B]], %[[D]], %[[E]]
  return %1, %3, %4 : tensor<?xi32, #dhlo.shape<n>>, tensor<3xi64>, tensor<?x2xi1, #dhlo.shape<m, 2>>
}

// convert changes only the element type, between any two supported dtypes.
// CHECK-LABEL: func.func @converts
func.func @converts(%x: tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>> {
  // CHECK-NEXT: %[[A:.*]] = dhlo.convert %{{.*}} : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf16, #dhlo.shape<n, 4>>
  %0 = dhlo.convert %x : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf16, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[B:.*]] = dhlo.convert %[[A]] : (tensor<?x4xf16, #dhlo.shape<n, 4>>) -> tensor<?x4xbf16, #dhlo.shape<n, 4>>
  %1 = dhlo.convert %0 : (tensor<?x4xf16, #dhlo.shape<n, 4>>) -> tensor<?x4xbf16, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[C:.*]] = dhlo.convert %[[B]] : (tensor<?x4xbf16, #dhlo.shape<n, 4>>) -> tensor<?x4xi32, #dhlo.shape<n, 4>>
  %2 = dhlo.convert %1 : (tensor<?x4xbf16, #dhlo.shape<n, 4>>) -> tensor<?x4xi32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[D:.*]] = dhlo.convert %[[C]] : (tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<?x4xi64, #dhlo.shape<n, 4>>
  %3 = dhlo.convert %2 : (tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<?x4xi64, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[E:.*]] = dhlo.convert %[[D]] : (tensor<?x4xi64, #dhlo.shape<n, 4>>) -> tensor<?x4xi1, #dhlo.shape<n, 4>>
  %4 = dhlo.convert %3 : (tensor<?x4xi64, #dhlo.shape<n, 4>>) -> tensor<?x4xi1, #dhlo.shape<n, 4>>
  // CHECK-NEXT: %[[F:.*]] = dhlo.convert %[[E]] : (tensor<?x4xi1, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %5 = dhlo.convert %4 : (tensor<?x4xi1, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // A convert to the same type is kept by the parser/printer (it only folds
  // under -canonicalize).
  // CHECK-NEXT: %[[G:.*]] = dhlo.convert %[[F]] : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  %6 = dhlo.convert %5 : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x4xf32, #dhlo.shape<n, 4>>
  // CHECK-NEXT: return %[[G]]
  return %6 : tensor<?x4xf32, #dhlo.shape<n, 4>>
}

// A declared result may know more than the operand's type (here: the
// static size of a dim the operand leaves unknown).
// CHECK-LABEL: func.func @refined_result
func.func @refined_result(%x: tensor<?xf32>) -> tensor<5xf32> {
  // CHECK-NEXT: dhlo.exp %{{.*}} : (tensor<?xf32>) -> tensor<5xf32>
  %0 = dhlo.exp %x : (tensor<?xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of compare in every direction and of select.
// compare gives i1 for any dtype; select takes tensor and scalar predicates.

// CHECK-LABEL: func.func @compare_directions
func.func @compare_directions(%a: tensor<?x3xf32, #dhlo.shape<n, 3>>, %b: tensor<?x3xf32, #dhlo.shape<n, 3>>) -> (tensor<?x3xi1, #dhlo.shape<n, 3>>, tensor<?x3xi1, #dhlo.shape<n, 3>>, tensor<?x3xi1, #dhlo.shape<n, 3>>, tensor<?x3xi1, #dhlo.shape<n, 3>>, tensor<?x3xi1, #dhlo.shape<n, 3>>, tensor<?x3xi1, #dhlo.shape<n, 3>>) {
  // CHECK-NEXT: dhlo.compare %{{.*}}, %{{.*}} {direction = "EQ"} : (tensor<?x3xf32, #dhlo.shape<n, 3>>, tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x3xi1, #dhlo.shape<n, 3>>
  %0 = dhlo.compare %a, %b {direction = "EQ"} : (tensor<?x3xf32, #dhlo.shape<n, 3>>, tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x3xi1, #dhlo.shape<n, 3>>
  // CHECK-NEXT: dhlo.compare %{{.*}}, %{{.*}} {direction = "NE"} : (tensor<?x3xf32, #dhlo.shape<n, 3>>, tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x3xi1, #dhlo.shape<n, 3>>
  %1 = dhlo.compare %a, %b {direction = "NE"} : (tensor<?x3xf32, #dhlo.shape<n, 3>>, tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x3xi1, #dhlo.shape<n, 3>>
  // CHECK-NEXT: dhlo.compare %{{.*}}, %{{.*}} {direction = "LT"} : (tensor<?x3xf32, #dhlo.shape<n, 3>>, tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x3xi1, #dhlo.shape<n, 3>>
  %2 = dhlo.compare %a, %b {direction = "LT"} : (tensor<?x3xf32, #dhlo.shape<n, 3>>, tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x3xi1, #dhlo.shape<n, 3>>
  // CHECK-NEXT: dhlo.compare %{{.*}}, %{{.*}} {direction = "LE"} : (tensor<?x3xf32, #dhlo.shape<n, 3>>, tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x3xi1, #dhlo.shape<n, 3>>
  %3 = dhlo.compare %a, %b {direction = "LE"} : (tensor<?x3xf32, #dhlo.shape<n, 3>>, tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x3xi1, #dhlo.shape<n, 3>>
  // CHECK-NEXT: dhlo.compare %{{.*}}, %{{.*}} {direction = "GT"} : (tensor<?x3xf32, #dhlo.shape<n, 3>>, tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x3xi1, #dhlo.shape<n, 3>>
  %4 = dhlo.compare %a, %b {direction = "GT"} : (tensor<?x3xf32, #dhlo.shape<n, 3>>, tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x3xi1, #dhlo.shape<n, 3>>
  // CHECK-NEXT: dhlo.compare %{{.*}}, %{{.*}} {direction = "GE"} : (tensor<?x3xf32, #dhlo.shape<n, 3>>, tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x3xi1, #dhlo.shape<n, 3>>
  %5 = dhlo.compare %a, %b {direction = "GE"} : (tensor<?x3xf32, #dhlo.shape<n, 3>>, tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x3xi1, #dhlo.shape<n, 3>>
  return %0, %1, %2, %3, %4, %5 : tensor<?x3xi1, #dhlo.shape<n, 3>>, tensor<?x3xi1, #dhlo.shape<n, 3>>, tensor<?x3xi1, #dhlo.shape<n, 3>>, tensor<?x3xi1, #dhlo.shape<n, 3>>, tensor<?x3xi1, #dhlo.shape<n, 3>>, tensor<?x3xi1, #dhlo.shape<n, 3>>
}

// compare accepts every dtype, bool included.
// CHECK-LABEL: func.func @compare_dtypes
func.func @compare_dtypes(%i: tensor<4xi64>, %p: tensor<i1>, %h: tensor<?xbf16, #dhlo.shape<k>>) -> (tensor<4xi1>, tensor<i1>, tensor<?xi1, #dhlo.shape<k>>) {
  // CHECK-NEXT: dhlo.compare %{{.*}}, %{{.*}} {direction = "LT"} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %0 = dhlo.compare %i, %i {direction = "LT"} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  // CHECK-NEXT: dhlo.compare %{{.*}}, %{{.*}} {direction = "NE"} : (tensor<i1>, tensor<i1>) -> tensor<i1>
  %1 = dhlo.compare %p, %p {direction = "NE"} : (tensor<i1>, tensor<i1>) -> tensor<i1>
  // CHECK-NEXT: dhlo.compare %{{.*}}, %{{.*}} {direction = "GE"} : (tensor<?xbf16, #dhlo.shape<k>>, tensor<?xbf16, #dhlo.shape<k>>) -> tensor<?xi1, #dhlo.shape<k>>
  %2 = dhlo.compare %h, %h {direction = "GE"} : (tensor<?xbf16, #dhlo.shape<k>>, tensor<?xbf16, #dhlo.shape<k>>) -> tensor<?xi1, #dhlo.shape<k>>
  return %0, %1, %2 : tensor<4xi1>, tensor<i1>, tensor<?xi1, #dhlo.shape<k>>
}

// CHECK-LABEL: func.func @select_tensor_pred
// CHECK-SAME: (%[[P:.*]]: tensor<?x3xi1, #dhlo.shape<n, 3>>, %[[T:.*]]: tensor<?x3xf16, #dhlo.shape<n, 3>>, %[[F:.*]]: tensor<?x3xf16, #dhlo.shape<n, 3>>)
func.func @select_tensor_pred(%p: tensor<?x3xi1, #dhlo.shape<n, 3>>, %t: tensor<?x3xf16, #dhlo.shape<n, 3>>, %f: tensor<?x3xf16, #dhlo.shape<n, 3>>) -> tensor<?x3xf16, #dhlo.shape<n, 3>> {
  // CHECK-NEXT: %[[S:.*]] = dhlo.select %[[P]], %[[T]], %[[F]] : (tensor<?x3xi1, #dhlo.shape<n, 3>>, tensor<?x3xf16, #dhlo.shape<n, 3>>, tensor<?x3xf16, #dhlo.shape<n, 3>>) -> tensor<?x3xf16, #dhlo.shape<n, 3>>
  %0 = dhlo.select %p, %t, %f : (tensor<?x3xi1, #dhlo.shape<n, 3>>, tensor<?x3xf16, #dhlo.shape<n, 3>>, tensor<?x3xf16, #dhlo.shape<n, 3>>) -> tensor<?x3xf16, #dhlo.shape<n, 3>>
  // CHECK-NEXT: return %[[S]]
  return %0 : tensor<?x3xf16, #dhlo.shape<n, 3>>
}

// A scalar predicate picks a whole branch.
// CHECK-LABEL: func.func @select_scalar_pred
func.func @select_scalar_pred(%p: tensor<i1>, %t: tensor<?x?xi32, #dhlo.shape<batch, seq>>, %f: tensor<?x?xi32, #dhlo.shape<batch, seq>>) -> tensor<?x?xi32, #dhlo.shape<batch, seq>> {
  // CHECK-NEXT: dhlo.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i1>, tensor<?x?xi32, #dhlo.shape<batch, seq>>, tensor<?x?xi32, #dhlo.shape<batch, seq>>) -> tensor<?x?xi32, #dhlo.shape<batch, seq>>
  %0 = dhlo.select %p, %t, %f : (tensor<i1>, tensor<?x?xi32, #dhlo.shape<batch, seq>>, tensor<?x?xi32, #dhlo.shape<batch, seq>>) -> tensor<?x?xi32, #dhlo.shape<batch, seq>>
  return %0 : tensor<?x?xi32, #dhlo.shape<batch, seq>>
}

// A compare feeding a select, as a masked fill does.
// CHECK-LABEL: func.func @masked_fill
func.func @masked_fill(%x: tensor<?xf32, #dhlo.shape<n>>, %y: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>> {
  // CHECK-NEXT: %[[C:.*]] = dhlo.compare %{{.*}}, %{{.*}} {direction = "GT"} : (tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xi1, #dhlo.shape<n>>
  %0 = dhlo.compare %x, %y {direction = "GT"} : (tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xi1, #dhlo.shape<n>>
  // CHECK-NEXT: dhlo.select %[[C]], %{{.*}}, %{{.*}} : (tensor<?xi1, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>>
  %1 = dhlo.select %0, %x, %y : (tensor<?xi1, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<n>>
  return %1 : tensor<?xf32, #dhlo.shape<n>>
}

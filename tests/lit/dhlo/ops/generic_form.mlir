// RUN: %anyshape-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: %anyshape-opt %s -mlir-print-op-generic | %anyshape-opt | FileCheck %s
// Generic-form printing and re-parsing of dhlo ops.
// Attributes live in the attribute
// dictionary (not in properties), and the generic form parses back to the
// same custom form.

// GENERIC-LABEL: "func.func"
// GENERIC: "dhlo.constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
// GENERIC-NEXT: "dhlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xi64>
// GENERIC-NEXT: "dhlo.reshape"(%arg0) {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
// GENERIC-NEXT: "dhlo.convert"(%arg1) : (tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xf16, #dhlo.shape<n>>
// GENERIC-NEXT: "dhlo.compare"(%arg1, %arg1) {direction = "LT"} : (tensor<?xi32, #dhlo.shape<n>>, tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xi1, #dhlo.shape<n>>
// GENERIC-NEXT: "dhlo.select"(%{{.*}}, %arg1, %arg1) : (tensor<?xi1, #dhlo.shape<n>>, tensor<?xi32, #dhlo.shape<n>>, tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xi32, #dhlo.shape<n>>
// GENERIC-NEXT: "dhlo.concatenate"(%arg1, %arg1) {dimension = 0 : i64} : (tensor<?xi32, #dhlo.shape<n>>, tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xi32, #dhlo.shape<"2*n">>
// GENERIC-NEXT: "func.return"

// CHECK-LABEL: func.func @f
// CHECK-NEXT: dhlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: dhlo.iota {iota_dimension = 0 : i64} : tensor<4xi64>
// CHECK-NEXT: dhlo.reshape %arg0 {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
// CHECK-NEXT: dhlo.convert %arg1 : (tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xf16, #dhlo.shape<n>>
// CHECK-NEXT: %[[C:.*]] = dhlo.compare %arg1, %arg1 {direction = "LT"} : (tensor<?xi32, #dhlo.shape<n>>, tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xi1, #dhlo.shape<n>>
// CHECK-NEXT: dhlo.select %[[C]], %arg1, %arg1 : (tensor<?xi1, #dhlo.shape<n>>, tensor<?xi32, #dhlo.shape<n>>, tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xi32, #dhlo.shape<n>>
// CHECK-NEXT: dhlo.concatenate %arg1, %arg1 {dimension = 0 : i64} : (tensor<?xi32, #dhlo.shape<n>>, tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xi32, #dhlo.shape<"2*n">>
// CHECK-NEXT: return
func.func @f(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, %i: tensor<?xi32, #dhlo.shape<n>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>> {
  %c = dhlo.constant dense<1.0> : tensor<f32>
  %io = dhlo.iota {iota_dimension = 0 : i64} : tensor<4xi64>
  %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %1 = dhlo.convert %i : (tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xf16, #dhlo.shape<n>>
  %2 = dhlo.compare %i, %i {direction = "LT"} : (tensor<?xi32, #dhlo.shape<n>>, tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xi1, #dhlo.shape<n>>
  %3 = dhlo.select %2, %i, %i : (tensor<?xi1, #dhlo.shape<n>>, tensor<?xi32, #dhlo.shape<n>>, tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xi32, #dhlo.shape<n>>
  %4 = dhlo.concatenate %i, %i {dimension = 0 : i64} : (tensor<?xi32, #dhlo.shape<n>>, tensor<?xi32, #dhlo.shape<n>>) -> tensor<?xi32, #dhlo.shape<"2*n">>
  return %0 : tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
}

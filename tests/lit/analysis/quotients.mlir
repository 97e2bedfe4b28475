// RUN: %anyshape-opt %s -split-input-file --dhlo-test-print-shape-analysis -o /dev/null | FileCheck %s
// Floor divisions are atoms named by their definition ("((m + 1) floordiv
// 2)"): a quotient of equal dims is the same atom once the dividend is
// canonical, whether it came from a floordiv bound or a strided slice's
// extent; a quotient of static dims is a size.

// CHECK-LABEL: shape analysis of @static
func.func @static(%x: tensor<7xf32>) -> tensor<?xf32> {
  %c = dhlo.slice %x {start_indices = #dhlo.shape<0>, limit_indices = #dhlo.shape<7>, strides = array<i64: 3>} : (tensor<7xf32>) -> tensor<?xf32>
  return %c : tensor<?xf32>
}
// ceil(7 / 3):
// CHECK: dhlo.slice: [3]

// -----

// CHECK-LABEL: shape analysis of @halves
func.func @halves(%x: tensor<?xf32, #dhlo.shape<n>>, %y: tensor<?xf32, #dhlo.shape<m>>) -> tensor<?xf32> {
  %s = dhlo.add %x, %y : (tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<m>>) -> tensor<?xf32>
  %hx = dhlo.slice %x {start_indices = #dhlo.shape<0>, limit_indices = #dhlo.shape<"(n + 1) floordiv 2">, strides = array<i64: 1>} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32>
  %hy = dhlo.slice %y {start_indices = #dhlo.shape<0>, limit_indices = #dhlo.shape<m>, strides = array<i64: 2>} : (tensor<?xf32, #dhlo.shape<m>>) -> tensor<?xf32>
  %a = dhlo.add %hx, %hy : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %a : tensor<?xf32>
}
// The add makes n and m one class; both halves are then one quotient,
// which names its class (over the analysis' own atoms).
// CHECK: values:
// CHECK-NEXT: arg0: [m]
// CHECK-NEXT: arg1: [m]
// CHECK-NEXT: dhlo.add: [m]
// CHECK-NEXT: dhlo.slice: [((m + 1) floordiv 2)]
// CHECK-NEXT: dhlo.slice: [((m + 1) floordiv 2)]
// CHECK-NEXT: dhlo.add: [((m + 1) floordiv 2)]
// CHECK: contradictions: 0

// -----

// An equality of a dim with a quotient of itself (a U-Net's skip, h, meets
// its upsampled 2*(h floordiv 2)) defines nothing: h stays a symbol rather
// than being defined through itself.
// CHECK-LABEL: shape analysis of @skip
func.func @skip(%x: tensor<?xf32, #dhlo.shape<h>>) -> tensor<?xf32> {
  %half = dhlo.slice %x {start_indices = #dhlo.shape<0>, limit_indices = #dhlo.shape<h>, strides = array<i64: 2>} : (tensor<?xf32, #dhlo.shape<h>>) -> tensor<?xf32>
  %up = dhlo.concatenate %half, %half {dimension = 0 : i64} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %a = dhlo.add %up, %x : (tensor<?xf32>, tensor<?xf32, #dhlo.shape<h>>) -> tensor<?xf32>
  return %a : tensor<?xf32>
}
// CHECK: values:
// CHECK-NEXT: arg0: [h]
// CHECK: definitions:
// CHECK-NOT: h =
// CHECK: contradictions: 0

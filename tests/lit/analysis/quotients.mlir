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
// The add makes n and m one class; both halves are then one quotient.
// CHECK: values:
// CHECK-NEXT: arg0: {{\[}}[[M:m]]]
// CHECK-NEXT: arg1: {{\[}}[[M]]]
// CHECK-NEXT: dhlo.add: {{\[}}[[M]]]
// CHECK-NEXT: dhlo.slice: {{\[}}[[H:#[0-9]+]]]
// CHECK-NEXT: dhlo.slice: {{\[}}[[H]]]
// CHECK-NEXT: dhlo.add: {{\[}}[[H]]]
// CHECK: classes:
// CHECK: [[H]] = {{{.*}}((m + 1) floordiv 2)}
// CHECK: contradictions: 0

// RUN: %anyshape-opt %s --anyshape-size-checks-to-runtime-calls | FileCheck %s
// Each dhlo.check_sizes (a rule on a nonzero's count) becomes, where it
// stands, its condition's negation on i64 and one call of the runtime with
// that flag, the rule's index and both sides. One declaration.

// CHECK: func.func private @anyshapeCheckSizes(i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-NOT: func.func private @anyshapeCheckSizes
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[COUNT:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[A:.*]] = arith.index_cast %[[COUNT]] : index to i64
// CHECK: %[[B:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[NE:.*]] = arith.cmpi ne, %[[A]], %[[B]] : i64
// CHECK: %[[FLAG:.*]] = arith.extui %[[NE]] : i1 to i64
// CHECK: %[[RULE:.*]] = arith.constant 0 : i64
// CHECK: call @anyshapeCheckSizes(%[[FLAG]], %[[RULE]], %[[A]], %[[B]])
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK: arith.andi
// CHECK: arith.constant 1 : i64
// CHECK: call @anyshapeCheckSizes
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
// CHECK: arith.constant 2 : i64
// CHECK: call @anyshapeCheckSizes
// CHECK: arith.remsi
// CHECK: arith.ori
// CHECK: arith.constant 3 : i64
// CHECK: call @anyshapeCheckSizes
// CHECK: arith.cmpi eq
// CHECK: arith.andi
// CHECK: arith.constant 4 : i64
// CHECK: call @anyshapeCheckSizes
// CHECK-NOT: dhlo.check_sizes
func.func @main(%count: index, %n: index) {
  dhlo.check_sizes %count, %n {kind = "equal", check = 0 : i64}
  dhlo.check_sizes %n, %count {kind = "one_or_equal", check = 1 : i64}
  dhlo.check_sizes %count, %n {kind = "less_equal", check = 2 : i64}
  dhlo.check_sizes %count, %n {kind = "divides", check = 3 : i64}
  dhlo.check_sizes %count, %n {kind = "non_empty_unless_unused", check = 4 : i64}
  return
}

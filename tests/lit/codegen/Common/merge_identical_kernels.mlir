// RUN: %anyshape-opt %s -split-input-file -anyshape-merge-identical-kernels | FileCheck %s
// anyshape-merge-identical-kernels keeps one function of each set of
// kernels that are the same but for their names and locations, and every
// launch of the others launches it. Kernels that differ in a constant, a
// type, their kind or the order of their ops stay apart.

// Two layers' kernels: the second layer's are the first's under other
// names (and other locations). Both launches of each run the first.
// CHECK-LABEL: func.func private @main_kernel0
// CHECK-NOT: func.func private @main_kernel2
// CHECK-LABEL: func.func private @main_kernel1
// CHECK-NOT: func.func private @main_kernel3
// CHECK-LABEL: func.func @main
// CHECK: dhlo.launch @main_kernel0(%{{.*}}, %{{.*}}) "kLoop" 0
// CHECK-NEXT: dhlo.launch @main_kernel1(%{{.*}}, %{{.*}}) "kLoop" 1
// CHECK-NEXT: dhlo.launch @main_kernel0(%{{.*}}, %{{.*}}) "kLoop" 2
// CHECK-NEXT: dhlo.launch @main_kernel1(%{{.*}}, %{{.*}}) "kLoop" 3
func.func private @main_kernel0(%out: memref<?xf32>, %n: index) attributes {dhlo.kernel = "kLoop"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %one, %out[%i] : memref<?xf32>
  } loc("layer0/fill")
  return
}
func.func private @main_kernel1(%out: memref<?xf32>, %n: index) attributes {dhlo.kernel = "kLoop"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %out[%i] : memref<?xf32>
    %e = math.exp %v : f32
    memref.store %e, %out[%i] : memref<?xf32>
  }
  return
}
func.func private @main_kernel2(%out: memref<?xf32>, %n: index) attributes {dhlo.kernel = "kLoop"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %one, %out[%i] : memref<?xf32>
  } loc("layer1/fill")
  return
}
func.func private @main_kernel3(%out: memref<?xf32>, %n: index) attributes {dhlo.kernel = "kLoop"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %out[%i] : memref<?xf32>
    %e = math.exp %v : f32
    memref.store %e, %out[%i] : memref<?xf32>
  }
  return
}
func.func @main(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  dhlo.launch @main_kernel0(%a, %n) "kLoop" 0 : (memref<?xf32>, index) -> ()
  dhlo.launch @main_kernel1(%a, %n) "kLoop" 1 : (memref<?xf32>, index) -> ()
  dhlo.launch @main_kernel2(%b, %n) "kLoop" 2 : (memref<?xf32>, index) -> ()
  dhlo.launch @main_kernel3(%b, %n) "kLoop" 3 : (memref<?xf32>, index) -> ()
  return
}

// -----

// Near misses: another constant, another element type, another kind,
// the same ops with their operands swapped. Every kernel stays and every
// launch keeps its own.
// CHECK-LABEL: func.func private @fill_one
// CHECK-LABEL: func.func private @fill_two
// CHECK-LABEL: func.func private @fill_f64
// CHECK-LABEL: func.func private @fill_one_input_kind
// CHECK-LABEL: func.func private @sub_ab
// CHECK-LABEL: func.func private @sub_ba
// CHECK-LABEL: func.func @near_misses
// CHECK: dhlo.launch @fill_one(
// CHECK: dhlo.launch @fill_two(
// CHECK: dhlo.launch @fill_f64(
// CHECK: dhlo.launch @fill_one_input_kind(
// CHECK: dhlo.launch @sub_ab(
// CHECK: dhlo.launch @sub_ba(
func.func private @fill_one(%out: memref<?xf32>, %n: index) attributes {dhlo.kernel = "kLoop"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %out[%c0] : memref<?xf32>
  return
}
func.func private @fill_two(%out: memref<?xf32>, %n: index) attributes {dhlo.kernel = "kLoop"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 2.0 : f32
  memref.store %one, %out[%c0] : memref<?xf32>
  return
}
func.func private @fill_f64(%out: memref<?xf64>, %n: index) attributes {dhlo.kernel = "kLoop"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f64
  memref.store %one, %out[%c0] : memref<?xf64>
  return
}
func.func private @fill_one_input_kind(%out: memref<?xf32>, %n: index) attributes {dhlo.kernel = "kInput"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %out[%c0] : memref<?xf32>
  return
}
func.func private @sub_ab(%out: memref<?xf32>, %n: index) attributes {dhlo.kernel = "kLoop"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.load %out[%c0] : memref<?xf32>
  %b = memref.load %out[%c1] : memref<?xf32>
  %d = arith.subf %a, %b : f32
  memref.store %d, %out[%c0] : memref<?xf32>
  return
}
func.func private @sub_ba(%out: memref<?xf32>, %n: index) attributes {dhlo.kernel = "kLoop"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.load %out[%c0] : memref<?xf32>
  %b = memref.load %out[%c1] : memref<?xf32>
  %d = arith.subf %b, %a : f32
  memref.store %d, %out[%c0] : memref<?xf32>
  return
}
func.func @near_misses(%a: memref<?xf32>, %b: memref<?xf64>, %n: index) {
  dhlo.launch @fill_one(%a, %n) "kLoop" 0 : (memref<?xf32>, index) -> ()
  dhlo.launch @fill_two(%a, %n) "kLoop" 1 : (memref<?xf32>, index) -> ()
  dhlo.launch @fill_f64(%b, %n) "kLoop" 2 : (memref<?xf64>, index) -> ()
  dhlo.launch @fill_one_input_kind(%a, %n) "kInput" 3 : (memref<?xf32>, index) -> ()
  dhlo.launch @sub_ab(%a, %n) "kLoop" 4 : (memref<?xf32>, index) -> ()
  dhlo.launch @sub_ba(%a, %n) "kLoop" 5 : (memref<?xf32>, index) -> ()
  return
}

// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// A dhlo.fusion yields exactly its result types; a dhlo.yield stands only
// at the end of a fusion; a dhlo.launch names a kernel function taking its
// operands.

func.func @yields_another_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{yields 1 values whose types are not its result types}}
  %0 = dhlo.fusion "kLoop" 0 versions ["serial"] -> tensor<4xf32> {
    %1 = dhlo.convert %a : (tensor<4xf32>) -> tensor<4xf16>
    dhlo.yield %1 : tensor<4xf16>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @yields_too_few(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{yields 0 values whose types are not its result types}}
  %0 = dhlo.fusion "kLoop" 0 versions ["serial"] -> tensor<4xf32> {
    dhlo.yield
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @yield_outside_a_fusion(%a: tensor<4xf32>) {
  // expected-error @+1 {{expects parent op 'dhlo.fusion'}}
  dhlo.yield %a : tensor<4xf32>
}

// -----

// A launch names a kernel function of the module taking its operands.
func.func @launch_of_nothing(%a: memref<f32>) {
  // expected-error @+1 {{launches 'missing', which is not a function of the module}}
  dhlo.launch @missing(%a) "kLoop" 0 : (memref<f32>) -> ()
  return
}

// -----

func.func private @kernel(%a: memref<f32>)

func.func @launch_with_other_operands(%a: memref<2xf32>) {
  // expected-error @+1 {{operand types do not match kernel 'kernel'}}
  dhlo.launch @kernel(%a) "kLoop" 0 : (memref<2xf32>) -> ()
  return
}

// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// A dhlo.fusion yields exactly its result types; a dhlo.yield stands only
// at the end of a fusion.

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

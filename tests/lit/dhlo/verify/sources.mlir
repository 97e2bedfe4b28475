// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of constant and iota.
// Covers constant (value/type mismatch in
// shape or element type, a dynamic result, an unsupported element type, no
// value) and iota (iota_dimension out of range, rank 0, bool or unsupported
// element types, a missing iota_dimension).

// The value and the result must have the same type: ODS checks this before
// the op's own verifier.
func.func @constant_shape_mismatch() -> tensor<3xf32> {
  // expected-error @+1 {{'dhlo.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "dhlo.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @constant_dtype_mismatch() -> tensor<4xi32> {
  // expected-error @+1 {{'dhlo.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "dhlo.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @constant_dynamic_result() -> tensor<?xf32> {
  // expected-error @+1 {{'dhlo.constant' op result #0 must be statically shaped tensor of any type values, but got 'tensor<?xf32>'}}
  %0 = "dhlo.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @constant_f64() -> tensor<4xf64> {
  // expected-error @+1 {{'dhlo.constant' op has unsupported element type 'f64'}}
  %0 = dhlo.constant dense<1.0> : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @constant_unsigned() -> tensor<2x3xui8> {
  // expected-error @+1 {{'dhlo.constant' op has unsupported element type 'ui8'}}
  %0 = dhlo.constant dense<1> : tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

func.func @constant_without_value() -> tensor<4xf32> {
  // expected-error @+1 {{'dhlo.constant' op requires attribute 'value'}}
  %0 = "dhlo.constant"() : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @iota_dimension_out_of_range() -> tensor<4xi32> {
  // expected-error @+1 {{'dhlo.iota' op iota_dimension 1 is out of range for rank 1}}
  %0 = dhlo.iota {iota_dimension = 1 : i64} : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @iota_dimension_negative() -> tensor<?x4xi64, #dhlo.shape<n, 4>> {
  // expected-error @+1 {{'dhlo.iota' op iota_dimension -1 is out of range for rank 2}}
  %0 = dhlo.iota {iota_dimension = -1 : i64} : tensor<?x4xi64, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xi64, #dhlo.shape<n, 4>>
}

// -----

// Rank 0 has no dimension to count along.
func.func @iota_rank_0() -> tensor<i32> {
  // expected-error @+1 {{'dhlo.iota' op iota_dimension 0 is out of range for rank 0}}
  %0 = dhlo.iota {iota_dimension = 0 : i64} : tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @iota_bool() -> tensor<4xi1> {
  // expected-error @+1 {{'dhlo.iota' op needs a numeric element type, got 'i1'}}
  %0 = dhlo.iota {iota_dimension = 0 : i64} : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @iota_f64() -> tensor<4xf64> {
  // expected-error @+1 {{'dhlo.iota' op needs a numeric element type, got 'f64'}}
  %0 = dhlo.iota {iota_dimension = 0 : i64} : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @iota_without_dimension() -> tensor<4xi32> {
  // expected-error @+1 {{'dhlo.iota' op requires attribute 'iota_dimension'}}
  %0 = dhlo.iota : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @seeded_uniform_bounds() -> tensor<5000xf32> {
  // expected-error @+1 {{needs finite low <= high, got [2.000000e+00, 1.000000e+00]}}
  %0 = dhlo.seeded_uniform {seed = 1 : ui64, low = 2.0 : f64, high = 1.0 : f64} : tensor<5000xf32>
  return %0 : tensor<5000xf32>
}

// -----

func.func @seeded_uniform_static(%n: index) -> tensor<?xf32> {
  // expected-error @+1 {{must be statically shaped tensor}}
  %0 = dhlo.seeded_uniform {seed = 1 : ui64, low = 0.0 : f64, high = 1.0 : f64} : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// RUN: %anyshape-opt %s -split-input-file -verify-diagnostics
// Verifier errors of the unary ops and convert.
// Covers float-only ops
// on non-floats, not on floats, abs/neg on bool, unsupported element types,
// a result type contradicting the operand, and convert's own checks.
func.func @exp_on_i32(%x: tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<?x4xi32, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{'dhlo.exp' exp(i32[n, 4]): exp needs a float operand, got i32[n, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.exp %x : (tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<?x4xi32, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xi32, #dhlo.shape<n, 4>>
}

// -----

func.func @log_on_i64(%x: tensor<?x4xi64, #dhlo.shape<n, 4>>) -> tensor<?x4xi64, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{'dhlo.log' log(i64[n, 4]): log needs a float operand, got i64[n, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.log %x : (tensor<?x4xi64, #dhlo.shape<n, 4>>) -> tensor<?x4xi64, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xi64, #dhlo.shape<n, 4>>
}

// -----

func.func @tanh_on_i1(%x: tensor<?x4xi1, #dhlo.shape<n, 4>>) -> tensor<?x4xi1, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{'dhlo.tanh' tanh(bool[n, 4]): tanh needs a float operand, got bool[n, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.tanh %x : (tensor<?x4xi1, #dhlo.shape<n, 4>>) -> tensor<?x4xi1, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xi1, #dhlo.shape<n, 4>>
}

// -----

func.func @logistic_on_i32(%x: tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<?x4xi32, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{'dhlo.logistic' logistic(i32[n, 4]): logistic needs a float operand, got i32[n, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.logistic %x : (tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<?x4xi32, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xi32, #dhlo.shape<n, 4>>
}

// -----

func.func @sqrt_on_i64(%x: tensor<?x4xi64, #dhlo.shape<n, 4>>) -> tensor<?x4xi64, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{'dhlo.sqrt' sqrt(i64[n, 4]): sqrt needs a float operand, got i64[n, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.sqrt %x : (tensor<?x4xi64, #dhlo.shape<n, 4>>) -> tensor<?x4xi64, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xi64, #dhlo.shape<n, 4>>
}

// -----

func.func @rsqrt_on_i32(%x: tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<?x4xi32, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{'dhlo.rsqrt' rsqrt(i32[n, 4]): rsqrt needs a float operand, got i32[n, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.rsqrt %x : (tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<?x4xi32, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xi32, #dhlo.shape<n, 4>>
}

// -----

func.func @erf_on_i1(%x: tensor<?x4xi1, #dhlo.shape<n, 4>>) -> tensor<?x4xi1, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{'dhlo.erf' erf(bool[n, 4]): erf needs a float operand, got bool[n, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.erf %x : (tensor<?x4xi1, #dhlo.shape<n, 4>>) -> tensor<?x4xi1, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xi1, #dhlo.shape<n, 4>>
}

// -----

func.func @sin_on_i32(%x: tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<?x4xi32, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{'dhlo.sin' sin(i32[n, 4]): sin needs a float operand, got i32[n, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.sin %x : (tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<?x4xi32, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xi32, #dhlo.shape<n, 4>>
}

// -----

func.func @cos_on_i64(%x: tensor<?x4xi64, #dhlo.shape<n, 4>>) -> tensor<?x4xi64, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{'dhlo.cos' cos(i64[n, 4]): cos needs a float operand, got i64[n, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.cos %x : (tensor<?x4xi64, #dhlo.shape<n, 4>>) -> tensor<?x4xi64, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xi64, #dhlo.shape<n, 4>>
}

// -----

func.func @floor_on_i32(%x: tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<?x4xi32, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{'dhlo.floor' floor(i32[n, 4]): floor needs a float operand, got i32[n, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.floor %x : (tensor<?x4xi32, #dhlo.shape<n, 4>>) -> tensor<?x4xi32, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xi32, #dhlo.shape<n, 4>>
}

// -----

func.func @ceil_on_i1(%x: tensor<?x4xi1, #dhlo.shape<n, 4>>) -> tensor<?x4xi1, #dhlo.shape<n, 4>> {
  // expected-error @+2 {{'dhlo.ceil' ceil(bool[n, 4]): ceil needs a float operand, got bool[n, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.ceil %x : (tensor<?x4xi1, #dhlo.shape<n, 4>>) -> tensor<?x4xi1, #dhlo.shape<n, 4>>
  return %0 : tensor<?x4xi1, #dhlo.shape<n, 4>>
}

// -----

func.func @not_on_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'dhlo.not' not(f32[4]): not needs bool or integer, got f32[4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.not %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @not_on_bf16(%x: tensor<bf16>) -> tensor<bf16> {
  // expected-error @+2 {{not needs bool or integer, got bf16[]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.not %x : (tensor<bf16>) -> tensor<bf16>
  return %0 : tensor<bf16>
}

// -----

func.func @abs_on_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+2 {{'dhlo.abs' abs(bool[4]): abs needs a numeric operand, got bool[4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.abs %x : (tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @neg_on_bool(%x: tensor<?xi1>) -> tensor<?xi1> {
  // expected-error @+2 {{neg needs a numeric operand, got bool[}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.neg %x : (tensor<?xi1>) -> tensor<?xi1>
  return %0 : tensor<?xi1>
}

// -----

// Element types outside the wire format's six.
func.func @unsupported_operand(%x: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+2 {{'dhlo.exp' operand has unsupported type 'tensor<4xf64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.exp %x : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @unsupported_unsigned(%x: tensor<4xui32>) -> tensor<4xui32> {
  // expected-error @+2 {{'dhlo.neg' operand has unsupported type 'tensor<4xui32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.neg %x : (tensor<4xui32>) -> tensor<4xui32>
  return %0 : tensor<4xui32>
}

// -----

// The result keeps the operand's dtype.
func.func @result_dtype_differs(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+2 {{'dhlo.tanh' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.tanh %x : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @result_size_differs(%x: tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x5xf32, #dhlo.shape<n, 5>> {
  // expected-error @+2 {{'dhlo.sqrt' op inferred type(s) 'tensor<?x4xf32, #dhlo.shape<n, 4>>' are incompatible with return type(s) of operation 'tensor<?x5xf32, #dhlo.shape<n, 5>>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.sqrt %x : (tensor<?x4xf32, #dhlo.shape<n, 4>>) -> tensor<?x5xf32, #dhlo.shape<n, 5>>
  return %0 : tensor<?x5xf32, #dhlo.shape<n, 5>>
}

// -----

func.func @result_rank_differs(%x: tensor<4xf32>) -> tensor<4x1xf32> {
  // expected-error @+2 {{'dhlo.floor' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dhlo.floor %x : (tensor<4xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// convert: only the element type may change (a custom verifier, so one
// diagnostic).
func.func @convert_changes_size(%x: tensor<4xf32>) -> tensor<5xi32> {
  // expected-error @+1 {{'dhlo.convert' op changes the shape: 'tensor<4xf32>' to 'tensor<5xi32>'}}
  %0 = dhlo.convert %x : (tensor<4xf32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

func.func @convert_changes_rank(%x: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x1xi32, #dhlo.shape<n, 1>> {
  // expected-error @+1 {{'dhlo.convert' op changes the shape: 'tensor<?xf32, #dhlo.shape<n>>' to 'tensor<?x1xi32, #dhlo.shape<n, 1>>'}}
  %0 = dhlo.convert %x : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?x1xi32, #dhlo.shape<n, 1>>
  return %0 : tensor<?x1xi32, #dhlo.shape<n, 1>>
}

// -----

func.func @convert_to_unsupported(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{'dhlo.convert' op converts between unsupported element types 'f32' and 'f64'}}
  %0 = dhlo.convert %x : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @convert_from_unsupported(%x: tensor<4xi8>) -> tensor<4xf32> {
  // expected-error @+1 {{'dhlo.convert' op converts between unsupported element types 'i8' and 'f32'}}
  %0 = dhlo.convert %x : (tensor<4xi8>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

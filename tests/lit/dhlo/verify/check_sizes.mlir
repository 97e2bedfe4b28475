// RUN: %anyshape-opt %s --split-input-file --verify-diagnostics
// dhlo.check_sizes takes a condition on two sizes, and a rule's index.

func.func @defines(%a: index, %b: index) {
  // expected-error @+1 {{kind 'define_quotient' is not a condition on two sizes}}
  dhlo.check_sizes %a, %b {kind = "define_quotient", check = 0 : i64}
  return
}

// -----

func.func @unknown(%a: index, %b: index) {
  // expected-error @+1 {{kind 'bigger' is not a condition on two sizes}}
  dhlo.check_sizes %a, %b {kind = "bigger", check = 0 : i64}
  return
}

// -----

func.func @negative(%a: index, %b: index) {
  // expected-error @+1 {{check -1 is negative}}
  dhlo.check_sizes %a, %b {kind = "equal", check = -1 : i64}
  return
}

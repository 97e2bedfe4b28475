// RUN: %anyshape-opt %s | %anyshape-opt | FileCheck %s
// Round trip of the #dhlo.shape attribute.
// Covers static sizes, bare symbols,
// quoted polynomials, fresh "?N" symbols, unknown ?, rank 0, and its use
// both as a tensor encoding and as a free-standing attribute.

// CHECK-LABEL: func.func @encodings
// Symbols print bare; anything that is not a plain symbol name stays quoted.
// CHECK-SAME: %{{.*}}: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
// CHECK-SAME: %{{.*}}: tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
// CHECK-SAME: %{{.*}}: tensor<?xf32, #dhlo.shape<"?3">>
// CHECK-SAME: %{{.*}}: tensor<?x?xf32, #dhlo.shape<?, n>>
// CHECK-SAME: %{{.*}}: tensor<f32, #dhlo.shape<>>
// CHECK-SAME: %{{.*}}: tensor<?x?xi64, #dhlo.shape<"2*?3 + n*n - 1", "seq + 1">>
// CHECK-SAME: %{{.*}}: tensor<3x?xi1, #dhlo.shape<3, x_1>>
func.func @encodings(
    %a: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>,
    %b: tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>,
    %c: tensor<?xf32, #dhlo.shape<"?3">>,
    %d: tensor<?x?xf32, #dhlo.shape<?, n>>,
    %e: tensor<f32, #dhlo.shape<>>,
    %f: tensor<?x?xi64, #dhlo.shape<"2*?3 + n*n - 1", "seq + 1">>,
    %g: tensor<3x?xi1, #dhlo.shape<3, x_1>>) {
  return
}

// A quoted plain symbol is the symbol: it prints bare. Quoted text is kept
// verbatim otherwise (spacing is not normalised).
// CHECK-LABEL: func.func @quoting
// CHECK-SAME: %{{.*}}: tensor<?xf16, #dhlo.shape<seq>>
// CHECK-SAME: %{{.*}}: tensor<?xbf16, #dhlo.shape<"batch * seq">>
// CHECK-SAME: %{{.*}}: tensor<768xf32, #dhlo.shape<"768">>
func.func @quoting(%a: tensor<?xf16, #dhlo.shape<"seq">>, %b: tensor<?xbf16, #dhlo.shape<"batch * seq">>, %c: tensor<768xf32, #dhlo.shape<"768">>) {
  return
}

// Outside a tensor type the attribute may hold -1 (a reshape target) and
// fresh symbols.
// CHECK-LABEL: func.func @free_standing()
// CHECK-SAME: attributes {empty = #dhlo.shape<>, target = #dhlo.shape<-1, 0, a, "?1", ?, "x + 1">}
func.func @free_standing() attributes {target = #dhlo.shape<-1, 0, a, "?1", ?, "x + 1">, empty = #dhlo.shape<>} {
  return
}

// Encodings flow through ops unchanged.
// CHECK-LABEL: func.func @through_ops
func.func @through_ops(%x: tensor<?xf32, #dhlo.shape<"?3">>, %y: tensor<?xf32, #dhlo.shape<"?3">>) -> tensor<?xf32, #dhlo.shape<"?3">> {
  // CHECK-NEXT: dhlo.add %{{.*}}, %{{.*}} : (tensor<?xf32, #dhlo.shape<"?3">>, tensor<?xf32, #dhlo.shape<"?3">>) -> tensor<?xf32, #dhlo.shape<"?3">>
  %0 = dhlo.add %x, %y : (tensor<?xf32, #dhlo.shape<"?3">>, tensor<?xf32, #dhlo.shape<"?3">>) -> tensor<?xf32, #dhlo.shape<"?3">>
  return %0 : tensor<?xf32, #dhlo.shape<"?3">>
}

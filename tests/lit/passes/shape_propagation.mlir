// RUN: %anyshape-opt %s -split-input-file -dhlo-shape-propagation | FileCheck %s
// RUN: %anyshape-opt %s -split-input-file -dhlo-shape-propagation | %anyshape-opt -split-input-file -dhlo-shape-propagation | FileCheck %s
// RUN: %anyshape import %examples/bert_encoder_layer.pbtxt > %t.bert
// RUN: %anyshape-opt %t.bert -dhlo-shape-propagation | diff %t.bert -
// The dhlo-shape-propagation pass.
// Result types written with plain ? dims get every
// dim the shape rules derive, in program order (so later ops see refined
// operands), and the function's result types follow. Running it twice
// changes nothing more, and the importer's fully typed BERT layer is a
// fixed point.

// A broadcast's shape attribute gives its result a #dhlo.shape; the add,
// the reshape with -1 and the exp downstream pick it up.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
func.func @chain(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, %bias: tensor<768xf32>) -> tensor<?x?xf32> {
  // CHECK-NEXT: %[[B:.*]] = dhlo.broadcast_in_dim %{{.*}} {{.*}} : (tensor<768xf32>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
  %0 = dhlo.broadcast_in_dim %bias {broadcast_dimensions = array<i64: 2>, shape = #dhlo.shape<batch, seq, 768>} : (tensor<768xf32>) -> tensor<?x?x?xf32>
  // CHECK-NEXT: %[[A:.*]] = dhlo.add %{{.*}}, %[[B]] : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
  %1 = dhlo.add %x, %0 : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  // CHECK-NEXT: %[[R:.*]] = dhlo.reshape %[[A]] {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %2 = dhlo.reshape %1 {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x?xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: %[[E:.*]] = dhlo.exp %[[R]] : (tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>) -> tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  %3 = dhlo.exp %2 : (tensor<?x?xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: return %[[E]] : tensor<?x768xf32, #dhlo.shape<"batch*seq", 768>>
  return %3 : tensor<?x?xf32>
}

// -----

// No encodings anywhere: static dims are derived (a -1 of a static tensor
// becomes static; a static size beats an unknown one); unknowns stay ?.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%{{.*}}: tensor<?x?xf32>, %{{.*}}: tensor<?x4xf32>, %{{.*}}: tensor<6x4xf32>)
// CHECK-SAME: -> (tensor<?x4xf32>, tensor<3x8xf32>, tensor<2x6x2xf32>)
func.func @plain(%a: tensor<?x?xf32>, %b: tensor<?x4xf32>, %s: tensor<6x4xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>) {
  // CHECK-NEXT: dhlo.add %{{.*}}, %{{.*}} : (tensor<?x?xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %0 = dhlo.add %a, %b : (tensor<?x?xf32>, tensor<?x4xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: dhlo.reshape %{{.*}} {shape = #dhlo.shape<-1, 8>} : (tensor<6x4xf32>) -> tensor<3x8xf32>
  %1 = dhlo.reshape %s {shape = #dhlo.shape<-1, 8>} : (tensor<6x4xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: dhlo.reshape %{{.*}} {shape = #dhlo.shape<2, -1, 2>} : (tensor<6x4xf32>) -> tensor<2x6x2xf32>
  %2 = dhlo.reshape %s {shape = #dhlo.shape<2, -1, 2>} : (tensor<6x4xf32>) -> tensor<?x?x?xf32>
  // CHECK-NEXT: return
  return %0, %1, %2 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>
}

// -----

// Transpose and concatenate carry symbols and build polynomials.
// CHECK-LABEL: func.func @transpose_concat
// CHECK-SAME: -> tensor<3x?xf32, #dhlo.shape<3, "2*n">>
func.func @transpose_concat(%x: tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x?xf32> {
  // CHECK-NEXT: %[[T:.*]] = dhlo.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<3x?xf32, #dhlo.shape<3, n>>
  %0 = dhlo.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x3xf32, #dhlo.shape<n, 3>>) -> tensor<?x?xf32>
  // CHECK-NEXT: dhlo.concatenate %[[T]], %[[T]] {dimension = 1 : i64} : (tensor<3x?xf32, #dhlo.shape<3, n>>, tensor<3x?xf32, #dhlo.shape<3, n>>) -> tensor<3x?xf32, #dhlo.shape<3, "2*n">>
  %1 = dhlo.concatenate %0, %0 {dimension = 1 : i64} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// Reduce, dot_general, gather, slice, pad and select: every inferable op.
// CHECK-LABEL: func.func @structural
func.func @structural(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, %w: tensor<768x64xf32>, %ids: tensor<?xi32, #dhlo.shape<n>>, %p: tensor<f32>, %c: tensor<i1>) -> (tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  // CHECK-NEXT: dhlo.reduce {{.*}} -> tensor<?x?xf32, #dhlo.shape<batch, seq>>
  %0 = dhlo.reduce %x {dimensions = array<i64: 2>, kind = "sum"} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?xf32>
  // CHECK-NEXT: dhlo.dot_general {{.*}} -> tensor<?x?x64xf32, #dhlo.shape<batch, seq, 64>>
  %1 = dhlo.dot_general %x, %w {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, tensor<768x64xf32>) -> tensor<?x?x?xf32>
  // CHECK-NEXT: dhlo.gather {{.*}} -> tensor<?x64xf32, #dhlo.shape<n, 64>>
  %2 = dhlo.gather %w, %ids {axis = 0 : i64} : (tensor<768x64xf32>, tensor<?xi32, #dhlo.shape<n>>) -> tensor<?x?xf32>
  // CHECK-NEXT: dhlo.slice {{.*}} -> tensor<?x?x768xf32, #dhlo.shape<batch, "seq - 1", 768>>
  %3 = dhlo.slice %x {start_indices = #dhlo.shape<0, 1, 0>, limit_indices = #dhlo.shape<batch, seq, 768>, strides = array<i64>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x?xf32>
  // CHECK-NEXT: dhlo.pad {{.*}} -> tensor<?x?x770xf32, #dhlo.shape<batch, "seq + 2", 770>>
  %4 = dhlo.pad %x, %p {edge_padding_low = array<i64: 0, 1, 1>, edge_padding_high = array<i64: 0, 1, 1>, interior_padding = array<i64>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, tensor<f32>) -> tensor<?x?x?xf32>
  // CHECK-NEXT: dhlo.select {{.*}} -> tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>
  %5 = dhlo.select %c, %x, %x : (tensor<i1>, tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>, tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x?x?xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// -----

// The declared type wins ties: a declared symbol is kept even where the
// rules would give another (the declaration may know more).
// CHECK-LABEL: func.func @declared_symbol_kept
// CHECK-SAME: -> tensor<?xf32, #dhlo.shape<m>>
func.func @declared_symbol_kept(%x: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<m>> {
  // CHECK-NEXT: dhlo.exp %{{.*}} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<m>>
  %0 = dhlo.exp %x : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<m>>
  return %0 : tensor<?xf32, #dhlo.shape<m>>
}

// -----

// A declared static size is kept over an inferred symbol, and an inferred
// static size replaces a declared symbol.
// CHECK-LABEL: func.func @static_beats_symbolic
// CHECK-SAME: -> (tensor<5xf32>, tensor<4x?xf32, #dhlo.shape<4, n>>)
func.func @static_beats_symbolic(%x: tensor<?xf32, #dhlo.shape<n>>, %y: tensor<4x?xf32, #dhlo.shape<4, n>>) -> (tensor<5xf32>, tensor<?x?xf32, #dhlo.shape<k, n>>) {
  // CHECK-NEXT: dhlo.exp %{{.*}} : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<5xf32>
  %0 = dhlo.exp %x : (tensor<?xf32, #dhlo.shape<n>>) -> tensor<5xf32>
  // CHECK-NEXT: dhlo.neg %{{.*}} : (tensor<4x?xf32, #dhlo.shape<4, n>>) -> tensor<4x?xf32, #dhlo.shape<4, n>>
  %1 = dhlo.neg %y : (tensor<4x?xf32, #dhlo.shape<4, n>>) -> tensor<?x?xf32, #dhlo.shape<k, n>>
  return %0, %1 : tensor<5xf32>, tensor<?x?xf32, #dhlo.shape<k, n>>
}

// -----

// Sources and dim_size are not re-inferred; an unknown stays unknown.
// CHECK-LABEL: func.func @unknowns
// CHECK-SAME: -> (tensor<?x?xf32, #dhlo.shape<n, ?>>, tensor<?xi64>, tensor<i64>)
func.func @unknowns(%x: tensor<?x?xf32, #dhlo.shape<n, ?>>) -> (tensor<?x?xf32>, tensor<?xi64>, tensor<i64>) {
  // CHECK-NEXT: %[[E:.*]] = dhlo.exp %{{.*}} : (tensor<?x?xf32, #dhlo.shape<n, ?>>) -> tensor<?x?xf32, #dhlo.shape<n, ?>>
  %0 = dhlo.exp %x : (tensor<?x?xf32, #dhlo.shape<n, ?>>) -> tensor<?x?xf32>
  // CHECK-NEXT: dhlo.iota {iota_dimension = 0 : i64} : tensor<?xi64>
  %1 = dhlo.iota {iota_dimension = 0 : i64} : tensor<?xi64>
  // CHECK-NEXT: dhlo.dim_size %[[E]] {dimension = 0 : i64} : (tensor<?x?xf32, #dhlo.shape<n, ?>>) -> tensor<i64>
  %2 = dhlo.dim_size %0 {dimension = 0 : i64} : (tensor<?x?xf32>) -> tensor<i64>
  return %0, %1, %2 : tensor<?x?xf32>, tensor<?xi64>, tensor<i64>
}

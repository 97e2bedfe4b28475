// The example graphs of examples/*.pbtxt as builder functions, so programs
// (anyshape-make-examples, the client examples) build them from code rather
// than load files. Weights are SeededUniform constants: a few bytes on the
// wire, the same values everywhere.
#pragma once

#include "anyshape/client/GraphBuilder.h"

#include <vector>

namespace anyshape::examples {

/// A two-layer perceptron classifier: [batch, 256] -> [batch, 10] probs.
void mlp(client::GraphBuilder &b);
/// One BERT-base encoder layer (post-norm): inputs x f32[batch, seq, 768]
/// and mask f32[batch, seq] (1 keeps a token), output y f32[batch, seq, 768].
void bertEncoderLayer(client::GraphBuilder &b);
/// `layers` encoder layers stacked (BERT-base has 12), each with its own
/// weights; not an example file, for compile-time benchmarks.
void bertEncoder(client::GraphBuilder &b, int layers);
/// An elementwise chain into reductions over x f32[rows, cols], y f32[cols].
void elementwiseReduce(client::GraphBuilder &b);
/// Token embedding plus positions, then layer norm: ids i32[batch, seq] ->
/// f32[batch, seq, 64].
void embedding(client::GraphBuilder &b);

struct ExampleGraph {
  const char *name; // the file name under examples/, without .pbtxt
  void (*build)(client::GraphBuilder &);
};
/// Every example, in the order anyshape-make-examples writes them.
const std::vector<ExampleGraph> &exampleGraphs();

} // namespace anyshape::examples

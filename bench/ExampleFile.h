// The benchmarks' one way to load a graph of examples/ by name:
// $ANYSHAPE_EXAMPLES_DIR when set (a binary run away from its tree, as
// scripts/gpu-check runs anyshape-bench-cuda), else the source tree's.
// Exits with the reason when the graph does not load. Also the encoder
// layer and its inputs at a length, which several benchmarks run.
#pragma once

#include "ir/graph/Bindings.h"
#include "ir/graph/GraphText.h"
#include "ir/reference/Literal.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace anyshape::bench {

inline v1::Graph loadExampleOrDie(const std::string &name) {
  const char *moved = std::getenv("ANYSHAPE_EXAMPLES_DIR");
  std::string dir = moved && *moved
                        ? std::string(moved)
                        : std::string(ANYSHAPE_SOURCE_DIR) + "/examples";
  auto graph = loadGraphFile(dir + "/" + name + ".pbtxt");
  if (!graph) {
    std::fprintf(stderr, "%s\n", graph.status().toString().c_str());
    std::exit(1);
  }
  return *graph;
}

/// examples/bert_encoder_layer, loaded once.
inline const v1::Graph &encoderLayer() {
  static const v1::Graph graph = loadExampleOrDie("bert_encoder_layer");
  return graph;
}

/// Random inputs of the encoder layer at `batch` and `seq` (seeded by
/// input index: the same for every run).
inline std::vector<v1::Tensor> encoderInputs(int64_t seq, int64_t batch = 1) {
  const v1::Graph &graph = encoderLayer();
  auto shapes = inputShapesFor(graph, {{"batch", batch}, {"seq", seq}});
  std::vector<v1::Tensor> tensors;
  for (int k = 0; k < graph.inputs_size(); ++k)
    tensors.push_back(literalToTensor(
        randomLiteral(graph.inputs(k).type().dtype(), (*shapes)[k], k)));
  return tensors;
}

} // namespace anyshape::bench

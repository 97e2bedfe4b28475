// Random inputs for a graph at given input shapes, both as literals (for
// the reference evaluator) and as wire tensors (for executables): the one
// way the JIT tests make inputs. Input k uses seed `seedBase + k`.
#pragma once

#include "ir/reference/Literal.h"

#include <vector>

namespace anyshape::test {

struct RandomInputs {
  std::vector<Literal> literals;
  std::vector<v1::Tensor> tensors;
};

inline RandomInputs
randomInputs(const v1::Graph &graph,
             const std::vector<std::vector<int64_t>> &shapes,
             uint64_t seedBase) {
  RandomInputs inputs;
  for (int k = 0; k < graph.inputs_size(); ++k) {
    inputs.literals.push_back(
        randomLiteral(graph.inputs(k).type().dtype(), shapes[k], seedBase + k));
    inputs.tensors.push_back(literalToTensor(inputs.literals.back()));
  }
  return inputs;
}

} // namespace anyshape::test

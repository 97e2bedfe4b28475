// Robustness against graphs nobody wrote by hand: the example graphs are
// mutated at random through protobuf reflection (any field of any message:
// extreme integers, foreign names, unknown enum numbers, NaNs, dropped or
// duplicated list entries), then validated and, when valid, evaluated at
// small sizes. The assertions are that nothing crashes or hangs, that every
// failure is a clean INVALID_ARGUMENT / RESOURCE_EXHAUSTED / NOT_FOUND with
// a message, and that a graph which validates also evaluates or fails with
// a message naming a node or input. Deterministic: fixed seeds.
#include "../support/ExampleGraph.h"
#include "ir/graph/GraphText.h"
#include "ir/graph/Validate.h"
#include "ir/reference/Evaluator.h"

#include "GraphMutator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

using namespace anyshape;

namespace {

bool isCleanError(const Status &s) {
  return !s.message().empty() && (s.code() == StatusCode::InvalidArgument ||
                                  s.code() == StatusCode::ResourceExhausted ||
                                  s.code() == StatusCode::NotFound);
}

void fuzzExample(const std::string &example, int iterations,
                 std::map<std::string, int64_t> dims,
                 int64_t maxElements = 1 << 16) {
  auto original = loadGraphFile(test::examplePath(example));
  ASSERT_TRUE(original.isOk()) << original.status().toString();
  std::vector<std::string> names;
  for (const auto &input : original->inputs())
    names.push_back(input.name());
  for (const auto &node : original->nodes())
    names.push_back(node.name());

  EvalOptions options;
  // Small enough to keep evaluation quick, large enough for the weights.
  options.limits.maxElementsPerTensor = maxElements;
  int validated = 0, evaluated = 0;
  for (int it = 0; it < iterations; ++it) {
    test::GraphMutator mutator(0x5eed0000u + it);
    v1::Graph graph = *original;
    for (int m = 0; m <= it % 3; ++m)
      mutator.mutate(graph, names);
    auto info = validateGraph(graph, options.limits);
    if (!info) {
      EXPECT_TRUE(isCleanError(info.status())) << info.status().toString();
      continue;
    }
    ++validated;
    auto shapes = inputShapesFor(graph, dims, options.limits);
    if (!shapes) {
      EXPECT_TRUE(isCleanError(shapes.status()));
      continue;
    }
    std::vector<Literal> inputs;
    for (int k = 0; k < graph.inputs_size(); ++k)
      inputs.push_back(
          randomLiteral(graph.inputs(k).type().dtype(), (*shapes)[k], k));
    auto outputs = evaluateGraph(graph, inputs, options);
    if (outputs)
      ++evaluated;
    else
      EXPECT_TRUE(isCleanError(outputs.status()))
          << outputs.status().toString();
  }
  // The mutations must leave some graphs valid, or the test exercises
  // validation alone.
  EXPECT_GT(validated, iterations / 20) << example;
  EXPECT_GT(evaluated, 0) << example;
}

} // namespace

TEST(MutationFuzz, ElementwiseReduce) {
  fuzzExample("elementwise_reduce", 1500, {{"rows", 3}, {"cols", 5}});
}

TEST(MutationFuzz, Mlp) { fuzzExample("mlp", 600, {{"batch", 2}}, 1 << 18); }

TEST(MutationFuzz, Embedding) {
  fuzzExample("embedding", 800, {{"batch", 2}, {"seq", 3}});
}

TEST(MutationFuzz, BertEncoderLayer) {
  fuzzExample("bert_encoder_layer", 150, {{"batch", 1}, {"seq", 2}}, 1 << 22);
}

// The CPU backend on graphs nobody wrote: mutated examples that still
// validate are compiled and run at drawn shapes. Nothing may crash; a
// validated graph must compile; and each run must agree with the reference
// evaluator, both on whether the shapes are acceptable and on the values;
// and at shapes with one dim changed, most of which break a rule, the
// executable must reject exactly what the concrete shape walk rejects.
// A validated graph may fail to compile only with a user-facing error (a
// stored-tensor constant without a tensor store), never INTERNAL.
#include "../support/ExampleGraph.h"
#include "../unit/GraphMutator.h"

#include "compiler/Compiler.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/GraphText.h"
#include "ir/graph/Validate.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"

#include "RandomInputs.h"

#include <gtest/gtest.h>

using namespace anyshape;

namespace {

/// Each input dim in turn set to 0, 1 and one more than drawn: the
/// executable's generated shape checks must accept and reject exactly what
/// the concrete shape walk does, with the same status code.
void checkPerturbedShapes(const v1::Graph &graph,
                          const std::vector<std::vector<int64_t>> &drawn,
                          const jit::Executable &executable, int iteration) {
  auto info = validateGraph(graph);
  ASSERT_TRUE(info.isOk());
  for (size_t k = 0; k < drawn.size(); ++k)
    for (size_t d = 0; d < drawn[k].size(); ++d)
      for (int64_t size : {int64_t(0), int64_t(1), drawn[k][d] + 1}) {
        std::vector<std::vector<int64_t>> shapes = drawn;
        shapes[k][d] = size;
        Status expected = checkConcreteShapes(graph, *info, shapes);
        auto actual =
            executable.run(test::randomInputs(graph, shapes, 1).tensors);
        ASSERT_EQ(expected.code(), actual.status().code())
            << "iteration " << iteration << ", input " << k << " dim " << d
            << " = " << size << ": walk " << expected.toString()
            << ", executable " << actual.status().toString();
      }
}

void fuzzCompiled(const std::string &example, int graphs,
                  std::map<std::string, int64_t> dims) {
  auto original = loadGraphFile(test::examplePath(example));
  ASSERT_TRUE(original.isOk());
  std::vector<std::string> names;
  for (const auto &input : original->inputs())
    names.push_back(input.name());
  for (const auto &node : original->nodes())
    names.push_back(node.name());
  EvalOptions eval;
  eval.limits.maxElementsPerTensor = 1 << 22;
  int compiled = 0;
  for (int it = 0; compiled < graphs && it < 40 * graphs; ++it) {
    test::GraphMutator mutator(0xc0de0000u + it);
    v1::Graph graph = *original;
    for (int m = 0; m <= it % 2; ++m)
      mutator.mutate(graph, names);
    if (!validateGraph(graph, eval.limits).isOk())
      continue;
    auto executable = compiler::Compiler::compile(graph);
    if (!executable.isOk()) {
      // Only a user's mistake may stop a validated graph (a constant that
      // names a stored tensor, with no store); never a compiler failure.
      EXPECT_NE(executable.status().code(), StatusCode::Internal)
          << "iteration " << it << ": " << executable.status().toString();
      continue;
    }
    ++compiled;
    auto shapes = inputShapesFor(graph, dims, eval.limits);
    if (!shapes.isOk())
      continue;
    auto [inputs, tensors] = test::randomInputs(graph, *shapes, 0);
    auto expected = evaluateGraph(graph, inputs, eval);
    auto actual = (*executable)->run(tensors);
    ASSERT_EQ(expected.isOk(), actual.isOk())
        << "iteration " << it << ": reference " << expected.status().toString()
        << ", compiled " << actual.status().toString();
    checkPerturbedShapes(graph, *shapes, **executable, it);
    if (!expected.isOk())
      continue;
    for (size_t o = 0; o < actual->size(); ++o) {
      auto literal = literalFromTensor((*actual)[o]);
      ASSERT_TRUE(literal.isOk());
      NumericDiff d = compareLiterals(*literal, (*expected)[o]);
      EXPECT_TRUE(d.ok()) << "iteration " << it << " output " << o << ": "
                          << d.firstMismatch;
    }
  }
  EXPECT_EQ(compiled, graphs) << example;
}

} // namespace

TEST(CompiledFuzz, ElementwiseReduce) {
  fuzzCompiled("elementwise_reduce", 40, {{"rows", 3}, {"cols", 5}});
}

TEST(CompiledFuzz, Embedding) {
  fuzzCompiled("embedding", 25, {{"batch", 2}, {"seq", 3}});
}

TEST(CompiledFuzz, Mlp) { fuzzCompiled("mlp", 25, {{"batch", 2}}); }

// Random graphs over the op set (RandomGraph.h), each compiled once by the
// CPU backend and run at 50 drawn shapes against the reference evaluator.
// Each graph also runs with every kernel in its parallel versions.
#include "../support/ScopedTeamSize.h"
#include "anyshape/client/GraphBuilder.h"
#include "compiler/Compiler.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/GraphText.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"

#include "RandomGraph.h"
#include "RandomInputs.h"

#include <gtest/gtest.h>

#include <random>

using namespace anyshape;
using namespace anyshape::client;

namespace {

void checkRandomGraph(uint64_t seed,
                      const compiler::CompileOptions &options = {}) {
  v1::Graph graph = test::RandomGraph(seed).build(12);
  if (const char *dump = std::getenv("ANYSHAPE_DUMP_RANDOM_GRAPH"))
    (void)writeGraphFile(graph, dump);
  ASSERT_GT(graph.nodes_size(), 0);
  int64_t before = compiler::Compiler::compileCount();
  auto executable = compiler::Compiler::compile(graph, options);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  std::mt19937_64 rng(seed * 7919);
  std::uniform_int_distribution<int64_t> size(1, 37);
  for (int run = 0; run < 50; ++run) {
    std::map<std::string, int64_t> symbols{{"a", run == 0 ? 1 : size(rng)},
                                           {"b", run == 1 ? 1 : size(rng)}};
    auto shapes = inputShapesFor(graph, symbols);
    ASSERT_TRUE(shapes.isOk());
    auto [inputs, tensors] = test::randomInputs(graph, *shapes, run * 31);
    auto expected = evaluateGraph(graph, inputs);
    ASSERT_TRUE(expected.isOk()) << expected.status().toString();
    auto actual = (*executable)->run(tensors);
    ASSERT_TRUE(actual.isOk()) << actual.status().toString();
    for (size_t o = 0; o < actual->size(); ++o) {
      NumericDiff c =
          compareLiterals(*literalFromTensor((*actual)[o]), (*expected)[o]);
      ASSERT_TRUE(c.ok()) << "seed " << seed << " a=" << symbols["a"]
                          << " b=" << symbols["b"] << " output " << o << ": "
                          << c.firstMismatch << "\n"
                          << graph.DebugString().substr(0, 4000);
    }
  }
  EXPECT_EQ(compiler::Compiler::compileCount() - before, 1);
}

} // namespace

class RandomGraphs : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RandomGraphs, CompiledOnceMatchesReferenceAt50Shapes) {
  checkRandomGraph(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomGraphs,
                         ::testing::Range<uint64_t>(1, 121));

/// The same graphs with every kernel in its parallel versions at every
/// size: a team of 8 has more threads than most drawn rows, so the row
/// reductions take their split-row versions, and column reductions their
/// row blocks.
class RandomGraphsInParallel : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RandomGraphsInParallel, CompiledOnceMatchesReferenceAt50Shapes) {
  test::ScopedTeamSize team(8);
  compiler::CompileOptions options;
  options.pipeline.parallelMinWork = 0;
  options.pipeline.splitRowMinWork = 0;
  checkRandomGraph(GetParam(), options);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomGraphsInParallel,
                         ::testing::Range<uint64_t>(1, 121));

/// The same graphs through the CUDA pipeline, its launches emulated on the
/// CPU: with small blocks, so grid-stride loops stride and row kernels
/// choose their version per run; with each shared row version forced; and
/// with column reductions in tiles at every size.
class RandomGraphsOnEmulatedCuda
    : public ::testing::TestWithParam<std::tuple<uint64_t, std::string>> {};

TEST_P(RandomGraphsOnEmulatedCuda, CompiledOnceMatchesReferenceAt50Shapes) {
  auto [seed, rows] = GetParam();
  compiler::CompileOptions options;
  options.backend = compiler::KernelBackend::kCudaEmulated;
  if (rows == "tile")
    options.cuda.columnSchedule = "tile";
  else
    options.cuda.rowSchedule = rows;
  if (rows == "auto") {
    options.cuda.target.blockSize = 64;
    options.cuda.target.maxBlocks = 5;
    options.cuda.target.warpMaxRow = 16; // both shared versions at b <= 37
  }
  checkRandomGraph(seed, options);
}

INSTANTIATE_TEST_SUITE_P(
    Seeds, RandomGraphsOnEmulatedCuda,
    ::testing::Combine(::testing::Range<uint64_t>(1, 101),
                       ::testing::Values(std::string("auto"),
                                         std::string("warp"),
                                         std::string("block"),
                                         std::string("tile"))),
    [](const auto &info) {
      return std::get<1>(info.param) + "_" +
             std::to_string(std::get<0>(info.param));
    });

// Differential tests of the CPU backend against the reference evaluator:
// every example and a generator of random graphs over the op set, each
// compiled exactly once and run at many randomly drawn shapes (dims of 1,
// sizes that are not multiples of 8 or 16, and zero-sized dims where the
// graph allows), within the tolerances of ir/reference/Compare.h.
#include "../support/DrawShapes.h"
#include "../support/ExampleGraph.h"
#include "../support/ScopedTeamSize.h"
#include "anyshape/client/GraphBuilder.h"
#include "compiler/Compiler.h"
#include "examples/ExampleGraphs.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/GraphText.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"
#include "runtime/PackedGemm.h"

#include "MatchesReference.h"
#include "RandomInputs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>
#include <thread>

using namespace anyshape;
using namespace anyshape::client;

namespace {

using test::checkAcrossShapes;
using test::drawShapes;

/// The bytes of `count` f32 values uniform in [-1, 1), drawn with `seed`:
/// a dense constant's contents.
std::string randomF32Bytes(size_t count, unsigned seed) {
  std::string bytes(count * sizeof(float), '\0');
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (size_t i = 0; i < bytes.size(); i += sizeof(float)) {
    float v = uniform(random);
    std::memcpy(&bytes[i], &v, sizeof v);
  }
  return bytes;
}

} // namespace

TEST(Differential, ElementwiseReduceExample) {
  checkAcrossShapes(test::exampleGraph("elementwise_reduce"),
                    drawShapes({{"rows", {0, 70}}, {"cols", {0, 70}}}, 60, 1),
                    "ewr");
}

TEST(Differential, MlpExample) {
  checkAcrossShapes(test::exampleGraph("mlp"),
                    drawShapes({{"batch", {1, 37}}}, 50, 2), "mlp");
}

TEST(Differential, EmbeddingExample) {
  checkAcrossShapes(test::exampleGraph("embedding"),
                    drawShapes({{"batch", {1, 5}}, {"seq", {1, 45}}}, 50, 3),
                    "embedding");
}

TEST(Differential, BertEncoderLayerExample) {
  checkAcrossShapes(test::exampleGraph("bert_encoder_layer"),
                    drawShapes({{"batch", {1, 2}}, {"seq", {1, 19}}}, 50, 4),
                    "bert");
}

TEST(Differential, StackedEncoderLayersShareTheirKernels) {
  // Layers with their own weights outline the same kernels; each is
  // emitted once (anyshape-merge-identical-kernels) and every layer's
  // launches run it: three layers compile to one layer's kernel functions
  // and still match the reference.
  auto encoder = [](int layers) {
    client::GraphBuilder builder("bert_encoder");
    examples::bertEncoder(builder, layers);
    return *builder.build();
  };
  compiler::CompileReport one, three;
  ASSERT_TRUE(compiler::Compiler::compile(encoder(1), {}, &one).isOk());
  v1::Graph stacked = encoder(3);
  ASSERT_TRUE(compiler::Compiler::compile(stacked, {}, &three).isOk());
  EXPECT_GT(one.kernelFunctions, 0);
  EXPECT_EQ(three.kernelFunctions, one.kernelFunctions);
  EXPECT_GE(three.kernelCount, 3 * one.kernelFunctions);
  checkAcrossShapes(stacked,
                    drawShapes({{"batch", {1, 2}}, {"seq", {1, 13}}}, 6, 5),
                    "3 layers");
}

TEST(Differential, WideConcatenatesMatchAtEveryShape) {
  // Over 64 operands, a concatenate is split into chunks
  // (dhlo-split-wide-concatenations): 150 inputs of five different sizes
  // along dim 0 (empty ones included), feeding an elementwise consumer;
  // and 134 copies of one input along dim 1, whose two chunks of 64
  // copies are one kernel function.
  GraphBuilder rows("wide_rows");
  std::vector<Value> parts;
  for (int i = 0; i < 150; ++i)
    parts.push_back(rows.parameter("x" + std::to_string(i), v1::DTYPE_F32,
                                   {"s" + std::to_string(i % 5), 3}));
  rows.output(rows.exp(rows.concatenate(parts, 0)), "y");
  checkAcrossShapes(*rows.build(),
                    drawShapes({{"s0", {0, 4}},
                                {"s1", {0, 4}},
                                {"s2", {1, 3}},
                                {"s3", {0, 6}},
                                {"s4", {1, 2}}},
                               8, 6),
                    "150 inputs");

  GraphBuilder columns("wide_columns");
  Value x = columns.parameter("x", v1::DTYPE_F32, {"rows", "cols"});
  columns.output(columns.concatenate(std::vector<Value>(134, x), 1), "y");
  compiler::CompileReport report;
  v1::Graph graph = *columns.build();
  ASSERT_TRUE(compiler::Compiler::compile(graph, {}, &report).isOk());
  EXPECT_EQ(report.kernelFunctions, 3); // chunks of 64 and of 6, the join
  checkAcrossShapes(graph,
                    drawShapes({{"rows", {0, 9}}, {"cols", {1, 5}}}, 8, 7),
                    "134 copies");
}

TEST(Differential, ReshapesThatInsertUnitDimsStayViews) {
  // [seq, batch, 96] + bias -> [1, seq, batch, 3, 32] -> transpose (what
  // torch.onnx writes for a packed QKV projection): a unit dim before a
  // symbolic one is still a split of dims, so the add, the reshape and the
  // transpose are the one kernel the plan has. As a copy through memory
  // order, codegen made two kernels and the compile failed.
  GraphBuilder b("unit_dims");
  Value x = b.parameter("x", v1::DTYPE_F32, {"seq", "batch", 96});
  Value bias = b.parameter("bias", v1::DTYPE_F32, {96});
  Value split = b.reshape(b.add(x, bias), {1, "seq", "batch", 3, 32});
  b.output(b.transpose(split, {3, 1, 2, 0, 4}), "qkv");
  Value y = b.parameter("y", v1::DTYPE_F32, {"seq", "batch"});
  b.output(b.exp(b.reshape(b.neg(y), {"seq", 1, "batch"})), "unit_between");
  checkAcrossShapes(*b.build(),
                    drawShapes({{"seq", {0, 9}}, {"batch", {1, 3}}}, 6, 8),
                    "unit dims");
}

TEST(Differential, WideWeightsStoredTransposedAgreeAtEveryShape) {
  // anyshape-transpose-wide-weights on and off, whatever this host's
  // default: a seeded weight [24, 200] (generated transposed at load), a
  // dense one [8, 40] (transposed by the compiler) that another op also
  // reads, and the encoder layer (its FFN weight [768, 3072]). A weight
  // read in the wrong order, or generated untransposed, gives other sums.
  GraphBuilder b("wide_weights");
  Value x = b.parameter("x", v1::DTYPE_F32, {"rows", 24});
  b.output(b.matmul(x, b.seededUniform(v1::DTYPE_F32, {24, 200}, 5, -1, 1)),
           "seeded");
  Value dense = b.constant(v1::DTYPE_F32, {8, 40}, randomF32Bytes(8 * 40, 3));
  Value y = b.parameter("y", v1::DTYPE_F32, {"rows", 8});
  b.output(b.matmul(y, dense), "dense");
  b.output(b.add(dense, dense), "dense_twice");
  v1::Graph graph = *b.build();
  for (bool transpose : {true, false}) {
    compiler::CompileOptions options;
    options.pipeline.target.transposeWideWeights = transpose;
    std::string label = transpose ? " transposed" : " as given";
    checkAcrossShapes(graph, drawShapes({{"rows", {0, 70}}}, 6, 4),
                      "wide weights" + label, options);
    checkAcrossShapes(test::exampleGraph("bert_encoder_layer"),
                      drawShapes({{"batch", {1, 2}}, {"seq", {1, 40}}}, 4, 5),
                      "encoder" + label, options);
  }
}

TEST(Differential, PackedWeightsAgreeAtEveryShapeAndAreFreedWithThem) {
  // anyshape-pack-constant-weights on and off: a seeded weight read by a
  // product and by a batched one (two views of it: two packs), a dense
  // weight read by two products (one view: one pack) and an add, a weight
  // contracted on its second dim (read transposed), and the encoder layer.
  // On, the products run from packs, which each executable frees when it
  // goes; off, none is made.
  GraphBuilder b("packed_weights");
  Value x = b.parameter("x", v1::DTYPE_F32, {"rows", 24});
  Value seeded = b.seededUniform(v1::DTYPE_F32, {24, 200}, 5, -1, 1);
  b.output(b.matmul(x, seeded), "seeded");
  Value t = b.parameter("t", v1::DTYPE_F32, {2, "rows", 24});
  b.output(b.matmul(t, seeded), "batched");
  Value dense = b.constant(v1::DTYPE_F32, {24, 40}, randomF32Bytes(24 * 40, 4));
  b.output(b.matmul(x, dense), "dense");
  b.output(b.matmul(b.neg(x), dense), "dense_again");
  b.output(b.add(dense, dense), "dense_twice");
  Value rowsOfK = b.seededUniform(v1::DTYPE_F32, {70, 24}, 6, -1, 1);
  b.output(b.dotGeneral(x, rowsOfK, {}, {}, {1}, {1}), "contracted_second");
  v1::Graph graph = *b.build();
  for (bool packed : {true, false}) {
    compiler::CompileOptions options;
    options.pipeline.packConstantWeights = packed;
    std::string label = packed ? " packed" : " unpacked";
    runtime::PackedGemmCounts before = runtime::packedGemmCounts();
    checkAcrossShapes(graph, drawShapes({{"rows", {0, 70}}}, 6, 4),
                      "constant weights" + label, options);
    checkAcrossShapes(test::exampleGraph("bert_encoder_layer"),
                      drawShapes({{"batch", {1, 2}}, {"seq", {1, 40}}}, 4, 5),
                      "encoder" + label, options);
    runtime::PackedGemmCounts after = runtime::packedGemmCounts();
    int64_t packs = after.packs - before.packs;
    if (packed && runtime::packedGemmAvailable()) {
      // 4 of the small graph's views, 6 of the encoder's weights.
      EXPECT_EQ(packs, 10) << label;
      EXPECT_GT(after.packedCalls - before.packedCalls, 0) << label;
    } else {
      EXPECT_EQ(packs, 0) << label;
      EXPECT_EQ(after.packedCalls - before.packedCalls, 0) << label;
    }
    EXPECT_EQ(after.releases - before.releases, packs) << label;
  }
}

TEST(Differential, WarmUpPaysTheFirstRunsCostsAtLoad) {
  // Executable::warmUp runs at small sizes: the encoder's six weight packs
  // are made then, and no later run makes one (a first request would
  // otherwise pack 28 MB of weights). Results are unchanged. A graph it
  // cannot size (an anonymous dim) says so and still runs.
  v1::Graph graph = test::exampleGraph("bert_encoder_layer");
  auto executable = compiler::Compiler::compile(graph);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  runtime::PackedGemmCounts before = runtime::packedGemmCounts();
  Status warm = (*executable)->warmUp();
  ASSERT_TRUE(warm.isOk()) << warm.toString();
  runtime::PackedGemmCounts warmed = runtime::packedGemmCounts();
  if (runtime::packedGemmAvailable())
    EXPECT_EQ(warmed.packs - before.packs, 6);
  for (int64_t seq : {1, 2, 37})
    test::expectMatchesReference(**executable, graph,
                                 {{"batch", 1}, {"seq", seq}}, seq, "warm");
  EXPECT_EQ(runtime::packedGemmCounts().packs, warmed.packs);

  GraphBuilder b("anonymous");
  b.output(b.exp(b.parameter("x", v1::DTYPE_F32, {"?"})), "y");
  v1::Graph anonymous = *b.build();
  auto unsized = compiler::Compiler::compile(anonymous);
  ASSERT_TRUE(unsized.isOk()) << unsized.status().toString();
  EXPECT_FALSE((*unsized)->warmUp().isOk());
  v1::Tensor x;
  x.set_dtype(v1::DTYPE_F32);
  x.add_shape(3);
  x.mutable_data()->assign(3 * sizeof(float), '\0');
  EXPECT_TRUE((*unsized)->run({x}).isOk());
}

TEST(Differential, ReshapesToAScalarCompile) {
  // [n] -> [] (n is 1 at run time; the shape checks say so otherwise):
  // the TorchScript exporter reshapes sizes that way. Lowered through
  // memory order with no dims to build its shape from, the compile
  // crashed the process.
  GraphBuilder b("to_scalar");
  Value x = b.parameter("x", v1::DTYPE_F32, {"n"});
  Value y = b.parameter("y", v1::DTYPE_F32, {"m", 2});
  b.output(b.add(b.reshape(b.exp(x), {}), y), "sum");
  checkAcrossShapes(*b.build(),
                    drawShapes({{"n", {1, 1}}, {"m", {0, 5}}}, 4, 9),
                    "to a scalar");
}

TEST(Differential, StaticSpecialisationMatchesAndRejectsOtherShapes) {
  v1::Graph graph = test::exampleGraph("bert_encoder_layer");
  compiler::CompileOptions options;
  options.staticSymbols = {{"batch", 1}, {"seq", 6}};
  auto executable = compiler::Compiler::compile(graph, options);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  for (int64_t seq : {6, 7}) {
    auto shapes = inputShapesFor(graph, {{"batch", 1}, {"seq", seq}});
    auto [inputs, tensors] = test::randomInputs(graph, *shapes, 0);
    auto actual = (*executable)->run(tensors);
    if (seq == 7) {
      ASSERT_FALSE(actual.isOk());
      EXPECT_NE(actual.status().message().find("input 'x' dim 1 is 7, "
                                               "expected 6"),
                std::string::npos)
          << actual.status().message();
      continue;
    }
    ASSERT_TRUE(actual.isOk()) << actual.status().toString();
    auto expected = evaluateGraph(graph, inputs);
    NumericDiff d =
        compareLiterals(*literalFromTensor((*actual)[0]), (*expected)[0]);
    EXPECT_TRUE(d.ok()) << d.firstMismatch;
  }
}

TEST(Differential, ConcurrentRunsOfOneExecutable) {
  // One executable, four threads, each with its own shapes: every result
  // must match the reference (run() keeps no per-call state in the object).
  v1::Graph graph = test::exampleGraph("embedding");
  auto executable = compiler::Compiler::compile(graph);
  ASSERT_TRUE(executable.isOk());
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0}, runs{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        int64_t seq = 1 + (t * 10 + i) % 23;
        auto shapes =
            inputShapesFor(graph, {{"batch", 1 + t % 2}, {"seq", seq}});
        auto [inputs, tensors] =
            test::randomInputs(graph, *shapes, t * 100 + i);
        auto actual = (*executable)->run(tensors);
        auto expected = evaluateGraph(graph, inputs);
        if (!actual.isOk() || !expected.isOk() ||
            !compareLiterals(*literalFromTensor((*actual)[0]), (*expected)[0])
                 .ok())
          ++mismatches;
        ++runs;
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(runs.load(), 40);
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(Differential, EveryKernelInParallelAgreesAtEveryShape) {
  // Parallel versions at every size: empty loops, one iteration, fewer
  // iterations than threads, remainders of the static split.
  compiler::CompileOptions options;
  options.pipeline.parallelMinWork = 0;
  checkAcrossShapes(test::exampleGraph("elementwise_reduce"),
                    drawShapes({{"rows", {0, 70}}, {"cols", {1, 70}}}, 20, 7),
                    "ewr parallel", options);
  // Chunks of 16 columns: rows split into whole and partial chunks.
  compiler::CompileOptions chunked = options;
  chunked.pipeline.parallelChunk = 16;
  checkAcrossShapes(test::exampleGraph("elementwise_reduce"),
                    drawShapes({{"rows", {0, 5}}, {"cols", {1, 70}}}, 20, 9),
                    "ewr parallel chunks of 16", chunked);
  checkAcrossShapes(test::exampleGraph("bert_encoder_layer"),
                    drawShapes({{"batch", {1, 2}}, {"seq", {1, 40}}}, 8, 8),
                    "encoder parallel", options);
}

TEST(Differential, SplitRowVersionsAgreeAtEveryShape) {
  // Rows shared among the threads at every size (the split-row versions):
  // a team of 8 has more threads than the drawn rows, row work has no
  // minimum, and rows run from 0 to several chunks of at least 1024 with a
  // partial last one. Float sums and maxima, integer sums and minima fold
  // their chunks' partials; softmax and layer norm are stitched; a sum
  // over a middle dim shares blocks of its reduced dim (or column chunks);
  // a whole 1-D value is one row.
  test::ScopedTeamSize team(8);
  compiler::CompileOptions options;
  options.pipeline.parallelMinWork = 0;
  options.pipeline.splitRowMinWork = 0;
  GraphBuilder b("row_reductions");
  Value x = b.parameter("x", v1::DTYPE_F32, {"rows", "n"});
  Value k = b.parameter("k", v1::DTYPE_I32, {"rows", "n"});
  Value gamma = b.parameter("gamma", v1::DTYPE_F32, {"n"});
  // Scaled, so that a few elements of each row dominate it: unscaled,
  // every probability of a long row is below the absolute tolerance.
  b.output(b.softmax(b.mul(x, b.scalar(16)), 1), "softmax");
  b.output(b.layerNorm(x, gamma, gamma), "layer_norm");
  b.output(b.reduce(b.abs(x), {1}, Reduction::Max), "max");
  b.output(b.reduce(k, {1}, Reduction::Sum), "int_sum");
  b.output(b.reduce(k, {1}, Reduction::Min), "int_min");
  // A middle dim: each row's columns are shared.
  Value cube = b.parameter("cube", v1::DTYPE_F32, {"rows", 23, "n"});
  b.output(b.reduce(cube, {1}, Reduction::Sum), "middle_sum");
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto shapes = drawShapes({{"rows", {0, 7}}, {"n", {0, 3500}}}, 20, 10);
  checkAcrossShapes(*graph, shapes, "split rows", options);
  // The middle sum's columns in chunks rather than its reduced dim in
  // blocks (no room for per-thread partials).
  compiler::CompileOptions chunked = options;
  chunked.pipeline.maxColumnPartials = 0;
  checkAcrossShapes(*graph, shapes, "split rows, column chunks", chunked);
  // Whole 1-D values are one row: softmax's reductions and a max.
  GraphBuilder v("vector_reductions");
  Value y = v.parameter("y", v1::DTYPE_F32, {"n"});
  v.output(v.softmax(v.mul(y, v.scalar(16)), 0), "softmax");
  v.output(v.reduce(y, {0}, Reduction::Max), "max");
  auto vector = v.build();
  ASSERT_TRUE(vector.isOk()) << vector.status().toString();
  checkAcrossShapes(*vector, drawShapes({{"n", {0, 3500}}}, 20, 12),
                    "split vector", options);
  checkAcrossShapes(test::exampleGraph("bert_encoder_layer"),
                    drawShapes({{"batch", {1, 1}}, {"seq", {1, 7}}}, 4, 11),
                    "encoder split rows", options);
}

TEST(Differential, ColumnReductionsAgreeAtEveryShape) {
  // Column reductions in their parallel versions at every size (no work
  // minimum): blocks of rows with private partials, and column chunks
  // whole and partial; one row, none; a 3-D value reduced over its first
  // dim has two column dims. A team of 4: up to 4 blocks of rows.
  test::ScopedTeamSize team(4);
  compiler::CompileOptions options;
  options.pipeline.parallelMinWork = 0;
  GraphBuilder b("column_reductions");
  Value x = b.parameter("x", v1::DTYPE_F32, {"rows", "n"});
  Value k = b.parameter("k", v1::DTYPE_I32, {"rows", "n"});
  Value cube = b.parameter("cube", v1::DTYPE_F32, {"rows", 3, "n"});
  b.output(b.reduce(b.exp(x), {0}, Reduction::Sum), "sum_exp");
  b.output(b.reduce(x, {0}, Reduction::Max), "max");
  b.output(b.reduce(k, {0}, Reduction::Sum), "int_sum");
  b.output(b.reduce(cube, {0}, Reduction::Min), "cube_min");
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto shapes = drawShapes({{"rows", {0, 40}}, {"n", {0, 2500}}}, 20, 13);
  checkAcrossShapes(*graph, shapes, "column reductions", options);
  // Without room for per-thread partials: the threads share column chunks.
  options.pipeline.maxColumnPartials = 0;
  checkAcrossShapes(*graph, shapes, "column chunks", options);
}

TEST(Differential, LargeShapesTakeTheParallelVersions) {
  // Above the default threshold, so the parallel kernels run.
  checkAcrossShapes(
      test::exampleGraph("elementwise_reduce"),
      drawShapes({{"rows", {300, 701}}, {"cols", {200, 333}}}, 4, 9),
      "ewr large");
}

TEST(Differential, UnfusedPipelineAgrees) {
  // Fusion changes kernels, never results.
  v1::Graph graph = test::exampleGraph("embedding");
  compiler::CompileOptions options;
  options.pipeline.fuse = false;
  auto unfused = compiler::Compiler::compile(graph, options);
  ASSERT_TRUE(unfused.isOk()) << unfused.status().toString();
  auto shapes = inputShapesFor(graph, {{"batch", 2}, {"seq", 7}});
  auto [inputs, tensors] = test::randomInputs(graph, *shapes, 0);
  auto actual = (*unfused)->run(tensors);
  ASSERT_TRUE(actual.isOk());
  auto expected = evaluateGraph(graph, inputs);
  EXPECT_TRUE(
      compareLiterals(*literalFromTensor((*actual)[0]), (*expected)[0]).ok());
}

// The CUDA kernels' numerics without a GPU: the same examples compiled by
// the CUDA pipeline with its launches emulated on the CPU
// (anyshape-emulate-gpu-launches), against the reference, at 25 shapes
// each: with the target's launch shapes (row kernels choose their version
// per run), with blocks of 32 and at most 3 of them (every grid-stride
// loop strides and ends in a partial round), with each row version
// forced (one row per thread, per warp, per block), with column
// reductions in tiles at every size, and with no 4-wide versions (the
// examples' fixed hidden sizes would otherwise always take them).
namespace {

compiler::CompileOptions emulatedCuda(int64_t blockSize = 256,
                                      int64_t maxBlocks = 4096,
                                      std::string rowSchedule = "auto") {
  compiler::CompileOptions options;
  options.backend = compiler::KernelBackend::kCudaEmulated;
  options.cuda.target.blockSize = blockSize;
  options.cuda.target.maxBlocks = maxBlocks;
  options.cuda.rowSchedule = std::move(rowSchedule);
  return options;
}

void checkEmulated(
    const std::string &example,
    const std::map<std::string, std::pair<int64_t, int64_t>> &ranges,
    uint64_t seed) {
  v1::Graph graph = test::exampleGraph(example);
  auto shapes = drawShapes(ranges, 25, seed);
  checkAcrossShapes(graph, shapes, example + " (emulated CUDA)",
                    emulatedCuda());
  checkAcrossShapes(graph, shapes, example + " (emulated CUDA, striding)",
                    emulatedCuda(32, 3));
  for (const char *rows : {"thread", "warp", "block"})
    checkAcrossShapes(graph, shapes,
                      example + " (emulated CUDA, rows per " + rows + ")",
                      emulatedCuda(256, 4096, rows));
  compiler::CompileOptions tiles = emulatedCuda();
  tiles.cuda.columnSchedule = "tile";
  checkAcrossShapes(graph, shapes, example + " (emulated CUDA, column tiles)",
                    tiles);
  compiler::CompileOptions scalar = emulatedCuda();
  scalar.cuda.vectorAccesses = false;
  checkAcrossShapes(graph, shapes, example + " (emulated CUDA, scalar only)",
                    scalar);
}

} // namespace

TEST(EmulatedCuda, ElementwiseReduceExample) {
  checkEmulated("elementwise_reduce", {{"rows", {0, 70}}, {"cols", {0, 70}}},
                21);
}

TEST(EmulatedCuda, MlpExample) {
  checkEmulated("mlp", {{"batch", {1, 37}}}, 22);
}

TEST(EmulatedCuda, EmbeddingExample) {
  checkEmulated("embedding", {{"batch", {1, 5}}, {"seq", {1, 45}}}, 23);
}

TEST(EmulatedCuda, BertEncoderLayerExample) {
  checkEmulated("bert_encoder_layer", {{"batch", {1, 2}}, {"seq", {1, 19}}},
                24);
}

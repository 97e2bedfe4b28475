// convolution, on the CPU (oneDNN, called from the host flow) and through
// the emulated CUDA path (slices and one contraction): 1-, 2- and 3-D
// geometries with strides, dilations, uneven padding, groups and
// depthwise filters, a strided input view, and a convolution between two
// kernels, each compiled once and matched against the reference at many
// sizes, 1 and the smallest the window allows included; a new size
// creates one oneDNN primitive and the same size reuses it; what
// validation refuses, with its reason; a window longer than the padded
// input at run time fails that run only; the plan a compile reports is
// the one its target follows (CUDA's expanded convolution included).
#include "../support/DrawShapes.h"

#include "MatchesReference.h"
#include "anyshape/client/GraphBuilder.h"
#include "runtime/Convolution.h"

#include <gtest/gtest.h>

#include <thread>

using namespace anyshape;

namespace {

struct Geometry {
  const char *name;
  std::vector<client::Dim> input; // [N, C, S...]
  std::vector<int64_t> weights;   // [O, C / groups, K...]
  std::vector<int64_t> strides, dilations, low, high;
  int64_t groups;
};

v1::Graph convolutionGraph(const Geometry &g) {
  client::GraphBuilder b(g.name);
  client::Value x = b.parameter("x", v1::DTYPE_F32, g.input);
  client::Value w = b.seededUniform(v1::DTYPE_F32, g.weights, 7, -1.0, 1.0);
  b.output(
      b.convolution(x, w, g.strides, g.dilations, g.low, g.high, g.groups));
  auto graph = b.build();
  EXPECT_TRUE(graph.isOk()) << graph.status().toString();
  return graph.isOk() ? *graph : v1::Graph();
}

/// [n, 3, h, w] convolved 3x3 by 4 filters, padded to the same size.
v1::Graph sameSize3x3(const char *name) {
  return convolutionGraph({name,
                           {"n", 3, "h", "w"},
                           {4, 3, 3, 3},
                           {1, 1},
                           {1, 1},
                           {1, 1},
                           {1, 1},
                           1});
}

std::string refusal(client::GraphBuilder &b) {
  auto graph = b.build();
  EXPECT_FALSE(graph.isOk());
  return graph.isOk() ? "" : graph.status().message();
}

} // namespace

TEST(Convolution, MatchesTheReferenceAtEveryShapeWithOneCompile) {
  const Geometry geometries[] = {
      // wav2vec2's subsampling: 1-D, stride 5, kernel 10.
      {"subsample1d", {"n", 2, "t"}, {4, 2, 10}, {5}, {1}, {0}, {0}, 1},
      // a ResNet stem: 7x7 stride 2, padded 3.
      {"stem2d",
       {"n", 3, "h", "w"},
       {4, 3, 7, 7},
       {2, 2},
       {1, 1},
       {3, 3},
       {3, 3},
       1},
      // uneven padding, dilation, grouped.
      {"grouped2d",
       {"n", 4, "h", "w"},
       {6, 2, 3, 2},
       {1, 3},
       {2, 1},
       {0, 1},
       {2, 0},
       2},
      // depthwise 3x3, same size.
      {"depthwise2d",
       {"n", 5, "h", "w"},
       {5, 1, 3, 3},
       {1, 1},
       {1, 1},
       {1, 1},
       {1, 1},
       5},
      // 1x1 projection, stride 2.
      {"pointwise2d",
       {"n", 6, "h", "w"},
       {3, 6, 1, 1},
       {2, 2},
       {1, 1},
       {0, 0},
       {0, 0},
       1},
      {"volume3d",
       {"n", 2, "d", "h", 4},
       {3, 2, 2, 3, 2},
       {1, 2, 1},
       {1, 1, 2},
       {0, 1, 0},
       {1, 1, 1},
       1},
      // Wide and grouped: 0.2-12 M multiply-adds over the sizes drawn, on
      // either side of where oneDNN's own layouts (and reorders) start.
      {"wide2d",
       {"n", 32, "h", "w"},
       {64, 8, 3, 3},
       {1, 1},
       {1, 1},
       {1, 1},
       {1, 1},
       4},
  };
  for (const Geometry &g : geometries) {
    v1::Graph graph = convolutionGraph(g);
    std::vector<std::map<std::string, int64_t>> shapes;
    if (g.input.size() == 3) {
      shapes = test::drawShapes({{"n", {1, 3}}, {"t", {10, 90}}}, 6, 3);
      shapes.push_back({{"n", 2}, {"t", 10}}); // one window
    } else if (g.input.size() == 4) {
      shapes = test::drawShapes({{"n", {1, 3}}, {"h", {7, 30}}, {"w", {7, 30}}},
                                6, 5);
      shapes.push_back({{"n", 1}, {"h", 7}, {"w", 7}});
    } else {
      shapes =
          test::drawShapes({{"n", {1, 2}}, {"d", {2, 9}}, {"h", {3, 9}}}, 5, 9);
    }
    for (compiler::KernelBackend backend : test::kHostBackends)
      test::checkAcrossShapes(graph, shapes, g.name, test::onBackend(backend));
  }
}

TEST(Convolution, BetweenKernelsAndOnAStridedView) {
  // Every second input channel (a strided view), convolved, then a bias
  // and tanh kernel: the host-flow call sits between two kernels.
  client::GraphBuilder b("between_kernels");
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"n", 6, "l"});
  client::Value picked = b.slice(x, {0, 0, 0}, {"n", 6, "l"}, {1, 2, 1});
  client::Value w = b.seededUniform(v1::DTYPE_F32, {4, 3, 3}, 3, -1.0, 1.0);
  client::Value y = b.convolution(b.exp(picked), w, {1}, {1}, {1}, {1});
  b.output(b.tanh(b.add(y, b.scalar(0.5))));
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto shapes = test::drawShapes({{"n", {1, 4}}, {"l", {1, 40}}}, 8, 17);
  for (compiler::KernelBackend backend : test::kHostBackends)
    test::checkAcrossShapes(*graph, shapes, "between_kernels",
                            test::onBackend(backend));
}

TEST(Convolution, ANewSizeCreatesOnePrimitiveAndTheSameSizeReusesIt) {
  v1::Graph graph = sameSize3x3("cached");
  auto executable = compiler::Compiler::compile(graph);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  auto run = [&](int64_t h) {
    Literal x = Literal::zeros(v1::DTYPE_F32, {1, 3, h, 101});
    auto out = (*executable)->run({literalToTensor(x)});
    ASSERT_TRUE(out.isOk()) << out.status().toString();
  };
  runtime::ConvolutionCacheCounts before = runtime::convolutionCacheCounts();
  run(37);
  runtime::ConvolutionCacheCounts first = runtime::convolutionCacheCounts();
  EXPECT_EQ(first.created, before.created + 1);
  run(37);
  run(37);
  runtime::ConvolutionCacheCounts again = runtime::convolutionCacheCounts();
  EXPECT_EQ(again.created, first.created);
  EXPECT_EQ(again.reused, first.reused + 2);
  run(38);
  EXPECT_EQ(runtime::convolutionCacheCounts().created, first.created + 1);
}

TEST(Convolution, ImpossibleFormsAreRefusedWithTheirReason) {
  using namespace client;
  auto check = [](const std::string &message, const std::string &part) {
    EXPECT_NE(message.find(part), std::string::npos) << message;
  };
  auto refused = [&](std::vector<Dim> input, std::vector<int64_t> weights,
                     std::vector<int64_t> strides, int64_t groups,
                     const std::string &part, v1::DType dtype = v1::DTYPE_F32,
                     std::vector<int64_t> low = {}) {
    GraphBuilder b("refused");
    Value x = b.parameter("x", dtype, input);
    Value w = b.seededUniform(dtype, weights, 1, -1.0, 1.0);
    size_t r = strides.size();
    if (low.empty())
      low.assign(r, 0);
    b.output(b.convolution(x, w, strides, std::vector<int64_t>(r, 1), low,
                           std::vector<int64_t>(r, 0), groups));
    check(refusal(b), part);
  };
  refused({1, 4, 9}, {6, 2, 3}, {0}, 2,
          "convolution strides 0 is not in [1, 2^20]");
  refused({1, 4, 9}, {6, 2, 3}, {1}, 4, "convolution groups 4 must divide");
  refused({1, 3, 9}, {6, 2, 3}, {1}, 2, "input's 3 channels must be");
  refused({1, 4, 2}, {6, 4, 5}, {1}, 1,
          "convolution window of 5 is longer than spatial dim 0 padded (2)");
  refused({1, 4, 9}, {6, 4, 3}, {1, 1}, 1,
          "convolution strides has 2 entries for 1 spatial dims");
  refused({1, 4, 9}, {6, 4, 3}, {1}, 1, "convolution padding_low -1",
          v1::DTYPE_F32, {-1});
  refused({1, "c", 9}, {6, 4, 3}, {1}, 1,
          "convolution needs static weights and input channels");
  refused({1, 4}, {6, 4}, {}, 1, "with 1 to 3 spatial dims");
  refused({1, 4, 9}, {6, 4, 3}, {1}, 1,
          "convolution takes f32 input and weights", v1::DTYPE_F16);
}

TEST(Convolution, AWindowLongerThanThePaddedInputFailsThatRunOnly) {
  v1::Graph graph = convolutionGraph(
      {"short", {"n", 2, "l"}, {3, 2, 5}, {1}, {1}, {1}, {0}, 1});
  for (compiler::KernelBackend backend : test::kHostBackends) {
    auto executable =
        compiler::Compiler::compile(graph, test::onBackend(backend));
    ASSERT_TRUE(executable.isOk()) << executable.status().toString();
    auto run = [&](int64_t l) {
      return (*executable)
          ->run({literalToTensor(Literal::zeros(v1::DTYPE_F32, {1, 2, l}))});
    };
    auto tooShort = run(3);
    ASSERT_FALSE(tooShort.isOk());
    EXPECT_EQ(tooShort.status().code(), StatusCode::InvalidArgument);
    EXPECT_NE(tooShort.status().message().find(
                  "convolution window of 5 must fit spatial dim 0 padded"),
              std::string::npos)
        << tooShort.status().message();
    EXPECT_TRUE(run(4).isOk());
  }
}

TEST(Convolution, RunsOnServerThreadsAtEveryTeamSize) {
  // As the server runs it: from threads of its own, at the team size each
  // request is given, a primitive made at one team size used at another.
  v1::Graph graph = convolutionGraph({"threads",
                                      {"n", 3, "h", "w"},
                                      {8, 3, 7, 7},
                                      {2, 2},
                                      {1, 1},
                                      {3, 3},
                                      {3, 3},
                                      1});
  auto executable = compiler::Compiler::compile(graph);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  for (int64_t size : {1, 5, 19}) {
    Literal x = Literal::zeros(v1::DTYPE_F32, {1, 3, size, size});
    for (int64_t team : {1, 2, 1, 2}) {
      std::thread worker([&] {
        jit::RunOptions options;
        options.teamSize = team;
        auto out = (*executable)->run({literalToTensor(x)}, options);
        EXPECT_TRUE(out.isOk()) << out.status().toString();
      });
      worker.join();
    }
  }
}

TEST(Convolution, ConstantWeightsAreReorderedOnceAndInputWeightsEveryRun) {
  // Weights of the executable: reordered into the primitive's layout on
  // the first run only. Weights sent as an input may change between runs:
  // never kept, so each run reads the values it was given.
  // Large enough (38 M multiply-adds) for oneDNN to pick its own layouts.
  v1::Graph constant = convolutionGraph({"constant_weights",
                                         {"n", 64, "h", "w"},
                                         {64, 64, 3, 3},
                                         {1, 1},
                                         {1, 1},
                                         {1, 1},
                                         {1, 1},
                                         1});
  auto executable = compiler::Compiler::compile(constant);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  Literal x = Literal::zeros(v1::DTYPE_F32, {1, 64, 32, 32});
  int64_t before = runtime::convolutionWeightReorders();
  for (int run = 0; run < 3; ++run)
    ASSERT_TRUE((*executable)->run({literalToTensor(x)}).isOk());
  int64_t reorders = runtime::convolutionWeightReorders() - before;
  // oneDNN's JIT convolutions (AVX2 and up) block the filters.
  EXPECT_EQ(reorders, 1);

  client::GraphBuilder b("input_weights");
  client::Value in = b.parameter("x", v1::DTYPE_F32, {"n", 64, "h", "w"});
  client::Value w = b.parameter("w", v1::DTYPE_F32, {64, 64, 3, 3});
  b.output(b.convolution(in, w, {1, 1}, {1, 1}, {1, 1}, {1, 1}));
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto inputWeights = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(inputWeights.isOk()) << inputWeights.status().toString();
  before = runtime::convolutionWeightReorders();
  for (int64_t seed = 1; seed <= 3; ++seed)
    test::expectMatchesReference(**inputWeights, *graph,
                                 {{"n", 1}, {"h", 32}, {"w", 32}}, seed,
                                 "input_weights");
  EXPECT_EQ(runtime::convolutionWeightReorders(), before);
}

TEST(Convolution, TheReportedPlanIsTheOneTheTargetFollows) {
  // The CPU calls oneDNN (the convolution is in no kernel); CUDA expands
  // it into slices and a contraction before planning, and the report of
  // a CUDA compile shows that contraction's kernel.
  v1::Graph graph = sameSize3x3("reported");
  auto planOn = [&](compiler::KernelBackend backend) {
    compiler::CompileReport report;
    auto executable =
        compiler::Compiler::compile(graph, test::onBackend(backend), &report);
    EXPECT_TRUE(executable.isOk()) << executable.status().toString();
    return report.fusionPlan;
  };
  std::string cpu = planOn(compiler::KernelBackend::kCpu);
  std::string cuda = planOn(compiler::KernelBackend::kCudaEmulated);
  EXPECT_EQ(cpu.find("dot_general"), std::string::npos) << cpu;
  EXPECT_NE(cuda.find("kLibrary root dhlo.dot_general"), std::string::npos)
      << cuda;
}

// The geometry of Conv, ConvTranspose, the pools and Resize that the
// importer does not take: each is refused at import naming the node, or,
// where it depends on a size known only at run time, fails that run
// naming the node (OnnxConvOps.cpp, OnnxConvTransposeOps.cpp,
// OnnxResizeOps.cpp). Their values are checked against ONNX Runtime in
// tests/graphs/onnx/ops (anyshape-zoo-check).
#include "ModelBuilder.h"
#include "OnnxRefusals.h"

#include <gtest/gtest.h>

using namespace anyshape;
using test::expectRefused;
using test::ModelBuilder;
using test::runOn;
using test::setInt;
using test::setInts;
using test::setString;

TEST(OnnxConvGeometry, ConvAndPoolGeometryIsRefusedNamingTheNode) {
  // x: f32[n, 4, t], weights [6, 4, 3] unless a case says otherwise.
  auto conv = [](std::vector<int64_t> weights) {
    ModelBuilder m(18);
    m.input("x", {"n", "4", "t"});
    int64_t count = 1;
    for (int64_t d : weights)
      count *= d;
    m.floats("w", weights, std::vector<float>(count, 0.5f));
    m.node("Conv", {"x", "w"}, {"y"});
    m.output("y");
    return m;
  };
  ModelBuilder channels = conv({6, 3, 3});
  expectRefused(channels, "input channels 4 do not match the 3 of the weights");
  ModelBuilder groups = conv({6, 2, 3});
  setInt(groups.graph->mutable_node(0), "group", 4);
  expectRefused(groups, "group 4 does not divide the 6 channels");
  ModelBuilder kernel = conv({6, 4, 3});
  setInts(kernel.graph->mutable_node(0), "kernel_shape", {5});
  expectRefused(kernel, "kernel_shape does not match the weights");
  ModelBuilder samePad = conv({6, 4, 3});
  setString(samePad.graph->mutable_node(0), "auto_pad", "SAME_UPPER");
  setInts(samePad.graph->mutable_node(0), "strides", {2});
  expectRefused(samePad, "depends on the size of the dynamic dim t");
  ModelBuilder pads = conv({6, 4, 3});
  setInts(pads.graph->mutable_node(0), "pads", {1});
  expectRefused(pads, "pads has 1 entries for 1 spatial dims");
  ModelBuilder negative = conv({6, 4, 3});
  setInts(negative.graph->mutable_node(0), "pads", {-1, 0});
  expectRefused(negative, "are not in [0, 2^20]");
  ModelBuilder stride = conv({6, 4, 3});
  setInts(stride.graph->mutable_node(0), "strides", {0});
  expectRefused(stride, "strides entry 0 is not in [1, 2^20]");
  // Weights computed at run time have no kernel size to slice by.
  ModelBuilder dynamicWeights(18);
  dynamicWeights.input("x", {"n", "4", "t"});
  dynamicWeights.input("w", {"6", "4", "k"});
  dynamicWeights.node("Conv", {"x", "w"}, {"y"});
  dynamicWeights.output("y");
  expectRefused(dynamicWeights, "the weights must have static sizes, not k");
  ModelBuilder huge = conv({1, 4, 5000});
  expectRefused(huge, "kernel size 5000 is not in [1, 4096]");

  // An input shorter than the kernel: that run fails naming the Conv's
  // convolution (the graph's output, so named after it), the next runs.
  auto graph = anyshape::onnx::importOnnx(conv({6, 4, 3}).bytes());
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  Status shorter = runOn(**compiled, {1, 4, 2});
  EXPECT_EQ(shorter.code(), StatusCode::InvalidArgument);
  EXPECT_NE(shorter.message().find("node 'y' (convolution): convolution "
                                   "window of 3 must fit spatial dim 0"),
            std::string::npos)
      << shorter.message();
  EXPECT_TRUE(runOn(**compiled, {2, 4, 3}).isOk());

  auto pool = [](const std::string &op) {
    ModelBuilder m(18);
    m.input("x", {"n", "4", "t"});
    m.node(op, {"x"}, {"y"});
    m.output("y");
    return m;
  };
  expectRefused(pool("MaxPool"), "needs a kernel_shape");
  ModelBuilder indices = pool("MaxPool");
  setInts(indices.graph->mutable_node(0), "kernel_shape", {2});
  indices.graph->mutable_node(0)->add_output("i");
  expectRefused(indices, "the Indices output of MaxPool is not supported");
  // ceil_mode with high padding: whether the last window is dropped
  // depends on t.
  ModelBuilder ceil = pool("AveragePool");
  setInts(ceil.graph->mutable_node(0), "kernel_shape", {2});
  setInts(ceil.graph->mutable_node(0), "strides", {2});
  setInts(ceil.graph->mutable_node(0), "pads", {1, 1});
  setInt(ceil.graph->mutable_node(0), "ceil_mode", 1);
  expectRefused(ceil, "may drop a last window");
  ModelBuilder training(18);
  training.input("x", {"n", "4", "t"});
  for (const char *p : {"g", "b", "m", "v"})
    training.floats(p, {4}, {1, 1, 1, 1});
  training.node("BatchNormalization", {"x", "g", "b", "m", "v"}, {"y"});
  setInt(training.graph->mutable_node(0), "training_mode", 1);
  training.output("y");
  expectRefused(training, "training_mode is not supported");
}

TEST(OnnxConvGeometry, ResizeFormsNotTakenAreRefusedNamingTheNode) {
  // x: f32[n, 2, h, w] resized by constant scales [1, 1, s, s].
  auto resize = [](float scale) {
    ModelBuilder m(19);
    m.input("x", {"n", "2", "h", "w"});
    m.floats("s", {4}, {1, 1, scale, scale});
    m.node("Resize", {"x", "", "s"}, {"y"});
    m.output("y");
    return m;
  };
  ModelBuilder antialias = resize(0.5f);
  setInt(antialias.graph->mutable_node(0), "antialias", 1);
  expectRefused(antialias, "antialias is not supported");
  ModelBuilder exclude = resize(2);
  setInt(exclude.graph->mutable_node(0), "exclude_outside", 1);
  expectRefused(exclude, "exclude_outside is not supported");
  ModelBuilder crop = resize(2);
  setString(crop.graph->mutable_node(0), "coordinate_transformation_mode",
            "tf_crop_and_resize");
  expectRefused(crop, "'tf_crop_and_resize' is not supported");
  ModelBuilder mode = resize(2);
  setString(mode.graph->mutable_node(0), "mode", "area");
  expectRefused(mode, "mode 'area' is not nearest, linear or cubic");
  expectRefused(resize(0.001f), "is not a ratio of integers up to 256");
  // A NaN scale once reached a float-to-int conversion (fuzz.onnx_import).
  expectRefused(resize(std::numeric_limits<float>::quiet_NaN()),
                "is not a ratio of integers up to 256");
  expectRefused(resize(std::numeric_limits<float>::infinity()),
                "is not a ratio of integers up to 256");
  // Scales computed at run time give no output size to compile for.
  ModelBuilder computed(19);
  computed.input("x", {"n", "2", "h", "w"});
  computed.input("s", {"4"});
  computed.node("Resize", {"x", "", "s"}, {"y"});
  computed.output("y");
  expectRefused(computed, "scales must be a constant");
  ModelBuilder neither(19);
  neither.input("x", {"n", "2", "h", "w"});
  neither.node("Resize", {"x"}, {"y"});
  neither.output("y");
  expectRefused(neither, "needs scales or sizes");
}

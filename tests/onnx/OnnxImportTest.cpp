// The ONNX importer on models built here with ONNX's own schema classes
// (so no model file or Python is needed): dim_params become symbols and
// the import compiles once for every size; the ops mean what ONNX says
// (an MLP checked against values computed by hand, a transformer-style
// block against the reference evaluator at many shapes); and malformed
// models are refused with an error naming what is wrong.
#include "frontend/onnx/OnnxImport.h"
#include "ModelBuilder.h"
#include "compiler/Compiler.h"
#include "ir/graph/Bindings.h"
#include "tests/jit/MatchesReference.h"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace anyshape;

using test::ModelBuilder;
using test::setInt;
using test::setInts;

namespace {

/// y = softmax(relu(x @ W + B)) (Gemm with transB: W is given as [3, 4]).
ModelBuilder mlp() {
  ModelBuilder m;
  m.input("x", {"batch", "4"});
  m.floats("W", {3, 4},
           {0.5f, -1, 0.25f, 2, 1, 0, -0.5f, 0.75f, -1, 1, 1, -0.25f});
  m.floats("B", {3}, {0.1f, -0.2f, 0.3f}, /*raw=*/true);
  setInt(m.node("Gemm", {"x", "W", "B"}, {"h"}), "transB", 1);
  m.node("Relu", {"h"}, {"r"});
  setInt(m.node("Softmax", {"r"}, {"y"}), "axis", -1);
  m.output("y");
  return m;
}

TEST(OnnxImport, AnMlpMeansWhatOnnxSaysAtEveryBatchSize) {
  auto graph = anyshape::onnx::importOnnx(mlp().bytes());
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  ASSERT_EQ(graph->inputs_size(), 1);
  EXPECT_EQ(graph->inputs(0).type().dims(0).symbol(), "batch");
  auto compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const float w[3][4] = {
      {0.5f, -1, 0.25f, 2}, {1, 0, -0.5f, 0.75f}, {-1, 1, 1, -0.25f}};
  const float bias[3] = {0.1f, -0.2f, 0.3f};
  for (int64_t batch : {1, 3, 17}) {
    auto shapes = inputShapesFor(*graph, {{"batch", batch}});
    ASSERT_TRUE(shapes.isOk());
    auto inputs = test::randomInputs(*graph, *shapes, 7 + batch);
    auto out = (*compiled)->run(inputs.tensors);
    ASSERT_TRUE(out.isOk()) << out.status().toString();
    auto y = literalFromTensor((*out)[0]);
    ASSERT_TRUE(y.isOk());
    ASSERT_EQ(y->shape, (std::vector<int64_t>{batch, 3}));
    const Literal &x = inputs.literals[0];
    for (int64_t r = 0; r < batch; ++r) {
      double h[3], sum = 0, peak = -1e30;
      for (int j = 0; j < 3; ++j) {
        h[j] = bias[j];
        for (int k = 0; k < 4; ++k)
          h[j] += x.f[r * 4 + k] * w[j][k];
        h[j] = std::max(h[j], 0.0);
        peak = std::max(peak, h[j]);
      }
      for (double &v : h)
        sum += (v = std::exp(v - peak));
      for (int j = 0; j < 3; ++j)
        EXPECT_NEAR(y->f[r * 3 + j], h[j] / sum, 1e-5)
            << "batch " << batch << " row " << r << " col " << j;
    }
  }
}

/// A transformer-style block on x[batch, seq, 8]: LayerNormalization, a
/// projection, heads split by Reshape (0 copies a dim) and Transpose, a
/// mean over the last axis kept (ReduceMean), Unsqueeze/Squeeze, GELU from
/// Erf, and a mask built from Equal/Where/Cast.
ModelBuilder block(int64_t opset = 17) {
  ModelBuilder m(opset);
  m.input("x", {"batch", "seq", "8"});
  m.input("mask", {"batch", "seq"}, ::onnx::TensorProto::INT64);
  std::vector<float> gamma, beta, w;
  for (int i = 0; i < 8; ++i) {
    gamma.push_back(1.0f + 0.1f * i);
    beta.push_back(0.05f * i - 0.2f);
  }
  for (int i = 0; i < 64; ++i)
    w.push_back(std::sin(0.37f * i));
  m.floats("gamma", {8}, gamma);
  m.floats("beta", {8}, beta);
  m.floats("w", {8, 8}, w, /*raw=*/true);
  m.floats("half", {}, {0.5f});
  m.floats("one", {}, {1.0f});
  m.floats("rsqrt2", {}, {0.70710678f});
  m.floats("neg", {}, {-1e4f});
  m.floats("zero", {}, {0.0f});
  m.ints("heads", {0, 0, 2, 4});
  m.ints("axes_last", {-1});
  m.ints("axes_1", {1});
  m.ints("zero_i", {});
  m.graph->mutable_initializer()->rbegin()->clear_dims(); // a scalar 0
  m.graph->mutable_initializer()->rbegin()->add_int64_data(0);
  auto *ln = m.node("LayerNormalization", {"x", "gamma", "beta"}, {"n"});
  auto *eps = ln->add_attribute();
  eps->set_name("epsilon");
  eps->set_type(::onnx::AttributeProto::FLOAT);
  eps->set_f(1e-5f);
  m.node("MatMul", {"n", "w"}, {"p"});
  m.node("Reshape", {"p", "heads"}, {"h"}); // [batch, seq, 2, 4]
  setInts(m.node("Transpose", {"h"}, {"t"}), "perm", {0, 2, 1, 3});
  auto *mean = m.node("ReduceMean", {"t"}, {"m"}); // [batch, 2, seq, 1]
  setInts(mean, "axes", {-1});
  m.node("Sub", {"t", "m"}, {"c"});
  m.node("Mul", {"c", "rsqrt2"}, {"s"});
  m.node("Erf", {"s"}, {"e"});
  m.node("Add", {"e", "one"}, {"e1"});
  m.node("Mul", {"c", "e1"}, {"g0"});
  m.node("Mul", {"g0", "half"}, {"g"}); // GELU(c)
  // The additive mask [batch, 1, seq, 1]: -1e4 where mask == 0.
  m.node("Equal", {"mask", "zero_i"}, {"pad"});
  m.node("Where", {"pad", "neg", "zero"}, {"add"});
  m.node("Unsqueeze", {"add", "axes_1"}, {"add1"});
  m.node("Unsqueeze", {"add1", "axes_last"}, {"add2"});
  m.node("Add", {"g", "add2"}, {"masked"});
  m.node("Squeeze", {"m", "axes_last"}, {"msq"}); // [batch, 2, seq]
  setInt(m.node("Cast", {"mask"}, {"maskf"}), "to", ::onnx::TensorProto::FLOAT);
  m.output("masked");
  m.output("msq");
  m.output("maskf");
  return m;
}

/// Runs `executable` (compiled from `graph`) at each (batch, seq) against
/// the reference evaluator; each must run, not merely be refused by both.
void expectRunsMatchReference(
    const jit::Executable &executable, const v1::Graph &graph,
    const std::vector<std::pair<int64_t, int64_t>> &sizes,
    const std::string &label) {
  for (auto [batch, seq] : sizes) {
    bool ran = false;
    test::expectMatchesReference(executable, graph,
                                 {{"batch", batch}, {"seq", seq}},
                                 100 * batch + seq, label, &ran);
    EXPECT_TRUE(ran) << label << ": batch " << batch << " seq " << seq;
  }
}

TEST(OnnxImport, ATransformerBlockCompilesOnceAndMatchesTheReference) {
  auto graph = anyshape::onnx::importOnnx(block().bytes());
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  int64_t before = compiler::Compiler::compileCount();
  expectRunsMatchReference(**compiled, *graph,
                           {{1, 1}, {2, 7}, {1, 33}, {3, 5}}, "onnx block");
  EXPECT_EQ(compiler::Compiler::compileCount(), before);
}

/// What PyTorch's exporter writes for shapes of dynamic sizes, on
/// x[batch, seq, 8]: Shape -> Gather -> Unsqueeze -> Concat -> Reshape
/// (heads split; batch*seq rows through Mul), ConstantOfShape, Range and
/// Expand (position ids), Slice with a computed end (seq - 1), with
/// INT64_MAX for "to the end" and of a shape from INT64_MIN, a size
/// reshaped to a vector, and Clip.
ModelBuilder exportedShapes() {
  ModelBuilder m;
  m.input("x", {"batch", "seq", "8"});
  m.ints("i0", {0});
  m.graph->mutable_initializer()->rbegin()->clear_dims(); // scalar 0
  m.ints("i1", {1});
  m.graph->mutable_initializer()->rbegin()->clear_dims(); // scalar 1
  m.ints("axes0", {0});
  m.ints("axes1", {1});
  m.ints("axes2", {2});
  m.ints("two_four", {2, 4});
  m.ints("eight", {8});
  m.ints("big", {INT64_MAX});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "i0"}, {"b"});
  m.node("Gather", {"s", "i1"}, {"q"});
  m.node("Unsqueeze", {"b", "axes0"}, {"ub"});
  m.node("Unsqueeze", {"q", "axes0"}, {"uq"});
  setInt(m.node("Concat", {"ub", "uq", "two_four"}, {"heads"}), "axis", 0);
  m.node("Reshape", {"x", "heads"}, {"split"}); // [batch, seq, 2, 4]
  m.node("Mul", {"b", "q"}, {"rows"});
  m.node("Unsqueeze", {"rows", "axes0"}, {"urows"});
  setInt(m.node("Concat", {"urows", "eight"}, {"flat_shape"}), "axis", 0);
  m.node("Reshape", {"x", "flat_shape"}, {"flat"}); // [batch*seq, 8]
  // [batch, seq] two more ways: Slice(Shape(x), INT64_MIN, -1), and
  // batch as a 1-element vector (Reshape) joined with seq.
  m.ints("from_start", {INT64_MIN});
  m.ints("minus1", {-1});
  m.ints("one_vec", {1});
  m.node("Slice", {"s", "from_start", "minus1"}, {"s_front"});
  m.node("Reshape", {"b", "one_vec"}, {"b_vec"});
  setInt(m.node("Concat", {"b_vec", "uq"}, {"bq"}), "axis", 0);
  auto *ones = m.node("ConstantOfShape", {"s_front"}, {"ones"});
  auto *fill = ones->add_attribute();
  fill->set_name("value");
  fill->set_type(::onnx::AttributeProto::TENSOR);
  fill->mutable_t()->set_data_type(::onnx::TensorProto::FLOAT);
  fill->mutable_t()->add_dims(1);
  fill->mutable_t()->add_float_data(2.0f);
  m.node("Range", {"i0", "q", "i1"}, {"pos"}); // [seq]
  m.node("Unsqueeze", {"pos", "axes0"}, {"pos1"});
  m.node("Expand", {"pos1", "bq"}, {"posb"}); // [batch, seq]
  setInt(m.node("Cast", {"posb"}, {"posf"}), "to", ::onnx::TensorProto::FLOAT);
  m.node("Mul", {"ones", "posf"}, {"weighted"});
  m.floats("lo", {}, {1.0f});
  m.floats("hi", {}, {5.0f});
  m.node("Clip", {"weighted", "lo", "hi"}, {"clipped"});
  m.node("Sub", {"q", "i1"}, {"q1"});
  m.node("Unsqueeze", {"q1", "axes0"}, {"uq1"});
  m.node("Slice", {"x", "axes0", "uq1", "axes1"}, {"head"});  // [b, seq-1, 8]
  m.node("Slice", {"x", "i1_vec", "big", "axes2"}, {"tail"}); // [b, seq, 7]
  m.ints("i1_vec", {1});
  m.output("split");
  m.output("flat");
  m.output("weighted");
  m.output("head");
  m.output("tail");
  m.output("clipped");
  return m;
}

TEST(OnnxImport, ShapeComputationsBecomeDimExpressions) {
  auto graph = anyshape::onnx::importOnnx(exportedShapes().bytes());
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  int64_t before = compiler::Compiler::compileCount();
  const std::vector<std::pair<int64_t, int64_t>> sizes = {
      {1, 2}, {2, 7}, {3, 33}};
  expectRunsMatchReference(**compiled, *graph, sizes, "exported shapes");
  for (auto [batch, seq] : sizes) {
    auto shapes = inputShapesFor(*graph, {{"batch", batch}, {"seq", seq}});
    auto inputs = test::randomInputs(*graph, *shapes, 1);
    auto out = (*compiled)->run(inputs.tensors);
    ASSERT_TRUE(out.isOk()) << out.status().toString();
    auto shapeOf = [&](int k) {
      auto literal = literalFromTensor((*out)[k]);
      return literal.isOk() ? literal->shape : std::vector<int64_t>{};
    };
    EXPECT_EQ(shapeOf(0), (std::vector<int64_t>{batch, seq, 2, 4}));
    EXPECT_EQ(shapeOf(1), (std::vector<int64_t>{batch * seq, 8}));
    EXPECT_EQ(shapeOf(2), (std::vector<int64_t>{batch, seq}));
    EXPECT_EQ(shapeOf(3), (std::vector<int64_t>{batch, seq - 1, 8}));
    EXPECT_EQ(shapeOf(4), (std::vector<int64_t>{batch, seq, 7}));
    // weighted = 2 * position: the row of every batch is 0, 2, 4, ...
    auto weighted = literalFromTensor((*out)[2]);
    ASSERT_TRUE(weighted.isOk());
    auto clipped = literalFromTensor((*out)[5]);
    ASSERT_TRUE(clipped.isOk());
    for (int64_t r = 0; r < batch; ++r)
      for (int64_t c = 0; c < seq; ++c) {
        EXPECT_EQ(weighted->f[r * seq + c], 2.0 * c);
        EXPECT_EQ(clipped->f[r * seq + c], std::clamp(2.0 * c, 1.0, 5.0));
      }
  }
  EXPECT_EQ(compiler::Compiler::compileCount(), before);
}

TEST(OnnxImport, TheTorchScriptExpandOfAComputedShapeStaysSymbolic) {
  // The TorchScript exporter writes expand(x, shape) as Expand(x,
  // Where(Equal(shape, -1), ones, shape)). A size is never negative, so a
  // dim such as past + seq never equals -1: the Where picks the shape,
  // which stays the dims [batch, past + seq].
  ModelBuilder m;
  m.input("x", {"batch", "1"});
  m.input("past", {"past"});
  m.input("new", {"seq"});
  m.ints("zero", {0});
  m.ints("minus_one", {-1});
  m.node("Shape", {"x"}, {"xs"});
  m.node("Gather", {"xs", "zero"}, {"b"});
  m.node("Shape", {"past"}, {"ps"});
  m.node("Shape", {"new"}, {"ns"});
  m.node("Add", {"ps", "ns"}, {"total"});
  setInt(m.node("Concat", {"b", "total"}, {"shape"}), "axis", 0);
  m.node("Equal", {"shape", "minus_one"}, {"unknown"});
  m.ints("two", {2});
  auto *ones = m.node("ConstantOfShape", {"two"}, {"ones"});
  auto *value = ones->add_attribute();
  value->set_name("value");
  value->set_type(::onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(::onnx::TensorProto::INT64);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_int64_data(1);
  m.node("Where", {"unknown", "ones", "shape"}, {"target"});
  m.node("Expand", {"x", "target"}, {"y"});
  m.output("y");
  auto graph = anyshape::onnx::importOnnx(m.bytes());
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto shapes = inputShapesFor(*graph, {{"batch", 2}, {"past", 3}, {"seq", 4}});
  ASSERT_TRUE(shapes.isOk());
  auto compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  auto inputs = test::randomInputs(*graph, *shapes, 1);
  auto out = (*compiled)->run(inputs.tensors);
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  auto y = literalFromTensor((*out)[0]);
  ASSERT_TRUE(y.isOk());
  EXPECT_EQ(y->shape, (std::vector<int64_t>{2, 7}));
}

void expectRefusedHere(const StatusOr<v1::Graph> &graph,
                       const std::string &expected) {
  ASSERT_FALSE(graph.isOk());
  EXPECT_NE(graph.status().message().find(expected), std::string::npos)
      << graph.status().message();
}

std::vector<float> runMlp(const v1::Graph &graph, int64_t batch) {
  auto compiled = compiler::Compiler::compile(graph);
  EXPECT_TRUE(compiled.isOk()) << compiled.status().toString();
  if (!compiled.isOk())
    return {};
  auto shapes = inputShapesFor(graph, {{"batch", batch}});
  auto inputs = test::randomInputs(graph, *shapes, 3);
  auto out = (*compiled)->run(inputs.tensors);
  EXPECT_TRUE(out.isOk());
  auto y = literalFromTensor((*out)[0]);
  return std::vector<float>(y->f.begin(), y->f.end());
}

TEST(OnnxImport, ModelFilesAndTheirExternalDataAreRead) {
  // W moved out of the model into w.bin beside it, at an offset, as
  // exporters do for large weights: the same results as inline.
  std::string dir = ::testing::TempDir() + "/anyshape_onnx_external";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ModelBuilder external = mlp();
  ::onnx::TensorProto *w = external.graph->mutable_initializer(0);
  std::string data(8, 'x'); // the offset
  for (float v : w->float_data())
    data.append(reinterpret_cast<const char *>(&v), sizeof v);
  w->clear_float_data();
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto entry = [&](const char *key, const std::string &value) {
    auto *e = w->add_external_data();
    e->set_key(key);
    e->set_value(value);
  };
  entry("location", "w.bin");
  entry("offset", "8");
  entry("length", "48");
  std::ofstream(dir + "/w.bin", std::ios::binary) << data;
  std::ofstream(dir + "/model.onnx", std::ios::binary) << external.bytes();

  auto fromFile = anyshape::onnx::importOnnxFile(dir + "/model.onnx");
  ASSERT_TRUE(fromFile.isOk()) << fromFile.status().toString();
  auto inline_ = anyshape::onnx::importOnnx(mlp().bytes());
  ASSERT_TRUE(inline_.isOk());
  EXPECT_EQ(runMlp(*fromFile, 5), runMlp(*inline_, 5));
  // From bytes alone, or with the data file gone, it is an error.
  expectRefusedHere(anyshape::onnx::importOnnx(external.bytes()),
                    "is stored outside the model");
  ModelBuilder badOffset = external;
  badOffset.graph->mutable_initializer(0)->mutable_external_data(1)->set_value(
      "8x");
  std::ofstream(dir + "/bad.onnx", std::ios::binary) << badOffset.bytes();
  expectRefusedHere(anyshape::onnx::importOnnxFile(dir + "/bad.onnx"),
                    "external data offset '8x' is not a byte count");
  std::filesystem::remove(dir + "/w.bin");
  expectRefusedHere(anyshape::onnx::importOnnxFile(dir + "/model.onnx"),
                    "cannot read external data file 'w.bin'");
  std::filesystem::remove_all(dir);
}

TEST(OnnxImport, TheCliFixtureIsTheMlpBuiltHere) {
  // tests/graphs/onnx/mlp.onnx (what the CLI tests run) is exactly mlp():
  // regenerate it with ANYSHAPE_WRITE_ONNX_FIXTURE=1 after changing mlp().
  std::string path =
      std::string(ANYSHAPE_SOURCE_DIR) + "/tests/graphs/onnx/mlp.onnx";
  if (std::getenv("ANYSHAPE_WRITE_ONNX_FIXTURE"))
    std::ofstream(path, std::ios::binary) << mlp().bytes();
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  EXPECT_EQ(bytes.str(), mlp().bytes());
}

void expectRefused(const std::string &bytes, const std::string &expected) {
  auto graph = anyshape::onnx::importOnnx(bytes);
  ASSERT_FALSE(graph.isOk());
  EXPECT_NE(graph.status().message().find(expected), std::string::npos)
      << graph.status().message();
}

TEST(OnnxImport, MalformedModelsAreClearErrors) {
  std::string good = mlp().bytes();
  expectRefused(good.substr(0, good.size() / 2), "not an ONNX model");
  expectRefused("this is not protobuf", "not an ONNX model");
  expectRefused(block(7).bytes(), "opset 7 is not supported (9-28");
  ModelBuilder mlOnly = mlp(); // only ONNX-ML's domain imported
  mlOnly.model.mutable_opset_import(0)->set_domain("ai.onnx.ml");
  mlOnly.model.mutable_opset_import(0)->set_version(3);
  expectRefused(mlOnly.bytes(), "imports no opset of the default domain "
                                "(ai.onnx, whose ops anyshape runs); it "
                                "imports ai.onnx.ml 3");

  ModelBuilder unknown = mlp();
  unknown.graph->mutable_node(1)->set_op_type("FancyRelu");
  expectRefused(unknown.bytes(), "node 'r_Relu' (FancyRelu): op 'FancyRelu'");

  ModelBuilder attribute = mlp();
  setInt(attribute.graph->mutable_node(1), "alpha", 2);
  expectRefused(attribute.bytes(), "(Relu): attribute 'alpha'");

  ModelBuilder cyclic = mlp(); // Relu reads y, which Softmax computes later
  cyclic.graph->mutable_node(1)->set_input(0, "y");
  expectRefused(cyclic.bytes(), "input 'y' is not defined before the node");

  ModelBuilder size = mlp();
  size.graph->mutable_initializer(0)->add_float_data(1.0f);
  expectRefused(size.bytes(), "tensor 'W': 52 bytes of data for 12 elements");

  ModelBuilder floating = block(); // a shape of floats
  floating.graph->mutable_node(2)->set_input(1, "x");
  expectRefused(floating.bytes(), "input 'x' must be int64");

  ModelBuilder computed = block(); // a shape only the caller knows
  computed.input("s", {"3"}, ::onnx::TensorProto::INT64);
  computed.graph->mutable_node(2)->set_input(1, "s");
  expectRefused(computed.bytes(), "input 's' must be known at import time");
}

TEST(OnnxImport, AnIfIsImportedOnlyWhereTheShapesPickItsBranch) {
  // If(c, then: Identity(x), else: Neg(x)); the numerics of the branch
  // the shapes pick are the op fixtures' (if_squeeze_of_*).
  auto withCondition = [](const std::string &condition) {
    ModelBuilder m;
    m.input("x", {"n"});
    m.input("c", {"1"}, ::onnx::TensorProto::BOOL);
    ::onnx::NodeProto *branch = m.node("If", {condition}, {"y"});
    for (const char *name : {"then_branch", "else_branch"}) {
      auto *attribute = branch->add_attribute();
      attribute->set_name(name);
      attribute->set_type(::onnx::AttributeProto::GRAPH);
      ::onnx::GraphProto *g = attribute->mutable_g();
      auto *n = g->add_node();
      n->set_op_type(std::string(name) == "then_branch" ? "Identity" : "Neg");
      n->add_input("x");
      n->add_output(std::string(name) + "_y");
      g->add_output()->set_name(std::string(name) + "_y");
    }
    m.output("y");
    return m;
  };
  // A condition only the run knows (a graph input) would pick a branch
  // per request: refused, naming it.
  expectRefused(withCondition("c").bytes(),
                "node 'y_If' (If): its condition 'c' is not known at import "
                "time");
  // n == n + 1 follows from the shapes (false): the else branch, a Neg,
  // is all the graph holds; the then branch is never translated.
  ModelBuilder known = withCondition("k");
  known.graph->mutable_node()->Clear();
  known.ints("zero", {0});
  known.ints("one", {1});
  known.node("Shape", {"x"}, {"s"});
  known.node("Gather", {"s", "zero"}, {"n"});
  known.node("Add", {"n", "one"}, {"n1"});
  known.node("Equal", {"n", "n1"}, {"k"});
  *known.graph->add_node() = withCondition("k").graph->node(0);
  auto opsOf = [](const std::string &bytes) {
    auto graph = anyshape::onnx::importOnnx(bytes);
    EXPECT_TRUE(graph.isOk()) << graph.status().toString();
    std::vector<std::string> ops;
    for (const auto &node : graph->nodes())
      ops.push_back(node.op());
    return ops;
  };
  std::vector<std::string> ops = opsOf(known.bytes());
  EXPECT_NE(std::find(ops.begin(), ops.end(), "neg"), ops.end());

  // A constant condition (true): the then branch, and no Neg.
  ModelBuilder constant = withCondition("t");
  auto *t = constant.graph->add_initializer();
  t->set_name("t");
  t->set_data_type(::onnx::TensorProto::BOOL);
  t->add_int32_data(1);
  ops = opsOf(constant.bytes());
  EXPECT_EQ(std::find(ops.begin(), ops.end(), "neg"), ops.end());
}

TEST(OnnxImport, EveryValueIsDefinedOnce) {
  // ONNX graphs are SSA: a second definition of a name is refused, naming
  // the name and both definitions, whichever kinds they are.
  ModelBuilder twice = mlp(); // Softmax writes h, which Gemm wrote
  twice.graph->mutable_node(2)->set_output(0, "h");
  twice.output("h");
  expectRefused(twice.bytes(), "node 'y_Softmax' (Softmax) defines 'h', which "
                               "node 'h_Gemm' (Gemm) already defines");

  ModelBuilder unnamed = mlp();
  unnamed.graph->mutable_node(0)->clear_name();
  unnamed.graph->mutable_node(1)->clear_name();
  unnamed.graph->mutable_node(1)->set_output(0, "h");
  expectRefused(unnamed.bytes(),
                "node #1 (Relu) defines 'h', which node #0 (Gemm) already");

  ModelBuilder input = mlp(); // Relu overwrites the graph input
  input.graph->mutable_node(1)->set_output(0, "x");
  expectRefused(input.bytes(), "defines 'x', which graph input 'x' already");

  ModelBuilder initializer = mlp();
  initializer.graph->mutable_node(1)->set_output(0, "B");
  expectRefused(initializer.bytes(), "defines 'B', which initializer 'B'");

  ModelBuilder twoOutputs = mlp();
  twoOutputs.graph->mutable_node(1)->add_output("r");
  expectRefused(twoOutputs.bytes(), "defines 'r', which node 'r_Relu'");

  ModelBuilder inputs = mlp();
  *inputs.graph->add_input() = inputs.graph->input(0);
  expectRefused(inputs.bytes(), "graph input 'x' defines 'x', which graph "
                                "input 'x' already defines");
}

TEST(OnnxImport, BadGraphInputsAreNamedNotTheirReaders) {
  // The input at fault is named, not the first node reading it (which
  // found the input missing and took the blame).
  auto withInput = [](std::vector<std::string> dims) {
    ModelBuilder m = mlp();
    m.graph->clear_input();
    m.input("x", std::move(dims));
    return m;
  };
  ModelBuilder negative = withInput({"batch", "4"});
  negative.graph->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(-3);
  expectRefused(negative.bytes(), "graph input 'x' dim 1 is -3: a size must "
                                  "be non-negative");
  expectRefused(withInput(std::vector<std::string>(10000, "4")).bytes(),
                "graph input 'x' has rank 10000 (at most 8)");
  expectRefused(withInput({std::string(1 << 20, 'b'), "4"}).bytes(),
                "graph input 'x' dim 0: dim_param of 1048576 characters");
  for (const std::string &message :
       {std::string("node ''"), std::string("input 0 is missing")}) {
    auto graph = anyshape::onnx::importOnnx(negative.bytes());
    ASSERT_FALSE(graph.isOk());
    EXPECT_EQ(graph.status().message().find(message), std::string::npos)
        << graph.status().message();
  }

  // A node without a name is named by its position and op.
  ModelBuilder unnamed = mlp();
  unnamed.graph->mutable_node(1)->clear_name();
  unnamed.graph->mutable_node(1)->set_op_type("FancyRelu");
  expectRefused(unnamed.bytes(), "node #1 (FancyRelu): op 'FancyRelu'");
}

} // namespace

// What the ops translated by composition (OnnxMathOps, OnnxLayoutOps,
// OnnxSelectionOps) do with inputs ONNX forbids or this importer cannot
// hold: each is refused at import naming the node, or, when it depends on
// a size known only at run time, fails that run naming the node while the
// executable keeps serving other shapes. Their values are checked against
// ONNX Runtime in tests/graphs/onnx/ops (anyshape-zoo-check).
#include "ModelBuilder.h"
#include "OnnxRefusals.h"
#include "compiler/Compiler.h"
#include "frontend/onnx/OnnxImport.h"
#include "ir/reference/Literal.h"

#include <gtest/gtest.h>

#include <limits>

using namespace anyshape;
using test::compileModel;
using test::expectRefused;
using test::ModelBuilder;
using test::oneNode;
using test::ones;
using test::runOn;
using test::setInt;
using test::setInts;
using test::setString;

TEST(OnnxComposedOps, ImpossibleFormsAreRefusedNamingTheNode) {
  ModelBuilder topk = oneNode("TopK", {"x", "k"}, {"v", "i"}, {"rows", "4"});
  topk.ints("k", {5});
  expectRefused(topk, "node 'v_TopK' (TopK): k = 5 exceeds the axis size 4");

  ModelBuilder toSpace =
      oneNode("DepthToSpace", {"x"}, {"y"}, {"n", "3", "h", "w"});
  setInt(toSpace.graph->mutable_node(0), "blocksize", 2);
  expectRefused(toSpace, "channels 3 are not a multiple of blocksize^2 = 4");

  ModelBuilder groups =
      oneNode("GroupNormalization", {"x", "s", "b"}, {"y"}, {"n", "6", "t"});
  setInt(groups.graph->mutable_node(0), "num_groups", 4);
  groups.floats("s", {6}, std::vector<float>(6, 1.0f));
  groups.floats("b", {6}, std::vector<float>(6, 0.0f));
  expectRefused(groups, "num_groups 4 must divide the static channel count 6");

  ModelBuilder computedK = oneNode("TopK", {"x", "k"}, {"v", "i"});
  computedK.input("k", {"1"}, ::onnx::TensorProto::INT64);
  expectRefused(computedK, "input 'k' must be known at import time");

  ModelBuilder split = oneNode("Split", {"x", "s"}, {"a", "b"}, {"rows", "5"});
  setInt(split.graph->mutable_node(0), "axis", 1);
  split.ints("s", {2, 2});
  expectRefused(split, "the parts add up to 4, but the dim is 5");

  ModelBuilder splitCount =
      oneNode("Split", {"x", "s"}, {"a", "b"}, {"rows", "5"});
  setInt(splitCount.graph->mutable_node(0), "axis", 1);
  splitCount.ints("s", {1, 1, 3});
  expectRefused(splitCount, "splits into 3 parts but has 2 outputs");

  // Halves of a symbolic dim import (ceil and the rest, opset 18's rule);
  // thirds would need a clamp.
  ModelBuilder symbolicSplit = oneNode("Split", {"x"}, {"a", "b", "c"});
  setInt(symbolicSplit.graph->mutable_node(0), "axis", 1);
  expectRefused(symbolicSplit, "cannot split the dim cols into 3 equal parts");

  ModelBuilder diagonal = oneNode("Einsum", {"x"});
  setString(diagonal.graph->mutable_node(0), "equation", "ii->i");
  expectRefused(diagonal, "(a diagonal) is not supported");

  ModelBuilder einsumArity = oneNode("Einsum", {"x"});
  setString(einsumArity.graph->mutable_node(0), "equation", "ij,jk->ik");
  expectRefused(einsumArity, "equation has 2 operands but the node has 1");

  ModelBuilder pad = oneNode("Pad", {"x", "p"});
  setString(pad.graph->mutable_node(0), "mode", "mirror");
  pad.ints("p", {0, 0, 0, 0});
  expectRefused(pad, "mode 'mirror' is not constant, edge, reflect or wrap");

  ModelBuilder pads = oneNode("Pad", {"x", "p"});
  pads.ints("p", {1, 1});
  expectRefused(pads, "has 2 pads for 2 axes");

  ModelBuilder floatMod = oneNode("Mod", {"x", "x"});
  expectRefused(floatMod, "floating-point inputs need fmod = 1");

  ModelBuilder tile = oneNode("Tile", {"x", "r"});
  tile.ints("r", {2});
  expectRefused(tile, "has 1 repeats for rank 2");

  ModelBuilder sinOfInts(18);
  sinOfInts.input("i", {"n"}, ::onnx::TensorProto::INT64);
  sinOfInts.node("Sin", {"i"}, {"y"});
  sinOfInts.output("y");
  expectRefused(sinOfInts, "(Sin): needs a floating-point input");

  ModelBuilder gelu = oneNode("Gelu", {"x"});
  setString(gelu.graph->mutable_node(0), "approximate", "erf");
  expectRefused(gelu, "approximate 'erf' is not 'none' or 'tanh'");

  ModelBuilder dropout = oneNode("Dropout", {"x", "", "t"});
  dropout.ints("t", {0});
  expectRefused(dropout, "training_mode input is not supported");

  ModelBuilder scalarNonZero = oneNode("NonZero", {"x"}, {"y"}, {});
  scalarNonZero.graph
      ->mutable_input(0) // rank 0: a shape with no dims
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape();
  expectRefused(scalarNonZero, "NonZero of a scalar is refused");
}

/// `values` as f32[n].
Literal vector(std::vector<float> values) {
  Literal l = Literal::zeros(v1::DTYPE_F32, {int64_t(values.size())});
  for (size_t k = 0; k < values.size(); ++k)
    l.setDouble(int64_t(k), values[k]);
  return l;
}

TEST(OnnxComposedOps, RulesOnANonZerosCountAreCheckedWhenItIsKnown) {
  // The count of a NonZero meets an input's size (count == rows), and a
  // Split takes the coordinates in as many parts as a trace saw (the
  // TorchScript export of transformers' Mixtral splits the experts a
  // batch hits into the count it saw): only the run decides. A run that
  // breaks the rule stops there with INVALID_ARGUMENT naming the node,
  // as ONNX Runtime fails it; the next run succeeds.
  ModelBuilder countMeetsRows(18);
  countMeetsRows.input("x", {"rows"});
  countMeetsRows.node("NonZero", {"x"}, {"nz"});
  countMeetsRows.node("Squeeze", {"nz", "zero"}, {"i"});
  countMeetsRows.ints("zero", {0});
  countMeetsRows.node("Gather", {"x", "i"}, {"g"});
  countMeetsRows.node("Add", {"g", "x"}, {"y"});
  countMeetsRows.output("y");
  auto meets = anyshape::onnx::importOnnx(countMeetsRows.bytes());
  ASSERT_TRUE(meets.isOk()) << meets.status().toString();
  auto added = compiler::Compiler::compile(*meets);
  ASSERT_TRUE(added.isOk()) << added.status().toString();
  for (int round = 0; round < 2; ++round) {
    auto sum = (*added)->run({literalToTensor(vector({1, 2, 3}))});
    ASSERT_TRUE(sum.isOk()) << sum.status().toString();
    EXPECT_EQ(literalFromTensor((*sum)[0])->f, (std::vector<double>{2, 4, 6}));
    auto short_ = (*added)->run({literalToTensor(vector({0, 2, 3}))});
    ASSERT_FALSE(short_.isOk());
    EXPECT_EQ(short_.status().code(), StatusCode::InvalidArgument);
    EXPECT_NE(short_.status().message().find("node 'y_Add/"), std::string::npos)
        << short_.status().message();
  }

  ModelBuilder splitCount(18);
  splitCount.input("x", {"n"});
  splitCount.node("NonZero", {"x"}, {"nz"});
  splitCount.node("Transpose", {"nz"}, {"rows"});
  splitCount.node("Split", {"rows", "parts"}, {"a", "b"});
  splitCount.ints("parts", {1, 1});
  splitCount.output("a");
  splitCount.output("b");
  auto split = anyshape::onnx::importOnnx(splitCount.bytes());
  ASSERT_TRUE(split.isOk()) << split.status().toString();
  auto parts = compiler::Compiler::compile(*split);
  ASSERT_TRUE(parts.isOk()) << parts.status().toString();
  for (int round = 0; round < 2; ++round) {
    auto two = (*parts)->run({literalToTensor(vector({0, 5, 0, 7}))});
    ASSERT_TRUE(two.isOk()) << two.status().toString();
    EXPECT_EQ(literalFromTensor((*two)[0])->i, (std::vector<int64_t>{1}));
    EXPECT_EQ(literalFromTensor((*two)[1])->i, (std::vector<int64_t>{3}));
    for (std::vector<float> other :
         {std::vector<float>{1, 2, 3}, std::vector<float>{0, 4}, {}}) {
      auto wrong = (*parts)->run({literalToTensor(vector(other))});
      ASSERT_FALSE(wrong.isOk()) << other.size() << " elements";
      EXPECT_EQ(wrong.status().code(), StatusCode::InvalidArgument);
      EXPECT_NE(wrong.status().message().find("'a_Split"), std::string::npos)
          << wrong.status().message();
      EXPECT_NE(wrong.status().message().find("in this run"), std::string::npos)
          << wrong.status().message();
    }
  }
}

TEST(OnnxComposedOps, SizesKnownOnlyAtRunTimeFailThatRunNamingTheNode) {
  // TopK's k against a symbolic axis, and ArgMax over an axis that may be
  // empty: compiled once, a run whose size cannot hold them fails with
  // INVALID_ARGUMENT naming the node; the next run succeeds.
  ModelBuilder topk = oneNode("TopK", {"x", "k"}, {"v", "i"});
  topk.ints("k", {3});
  auto graph = anyshape::onnx::importOnnx(topk.bytes());
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_TRUE(runOn(**compiled, {2, 3}).isOk());
  Status shorter = runOn(**compiled, {2, 2});
  EXPECT_EQ(shorter.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(shorter.message(), "node 'v_TopK' (TopK) with k = 3: index 2 is "
                               "out of range [0, 2) for axis 1 of size 2");
  EXPECT_TRUE(runOn(**compiled, {1, 7}).isOk());

  // A k past the unrolled rounds takes the first k of an argsort: a slice
  // (named by the node, or here by the output it defines) checks it.
  ModelBuilder sorted = oneNode("TopK", {"x", "k"}, {"v", "i"});
  sorted.ints("k", {6});
  graph = anyshape::onnx::importOnnx(sorted.bytes());
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_TRUE(runOn(**compiled, {2, 6}).isOk());
  shorter = runOn(**compiled, {2, 5});
  EXPECT_EQ(shorter.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(shorter.message(),
            "node 'i' (slice): slice limit 6 must not exceed the dim at dim 1 "
            "of i64[rows, cols] (cols = 5 from input 'x' dim 1)");
  EXPECT_TRUE(runOn(**compiled, {3, 70}).isOk());

  ModelBuilder argmax = oneNode("ArgMax", {"x"});
  setInt(argmax.graph->mutable_node(0), "axis", 1);
  graph = anyshape::onnx::importOnnx(argmax.bytes());
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  Status empty = runOn(**compiled, {2, 0});
  EXPECT_EQ(empty.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(empty.message(), "node 'y_ArgMax' (ArgMax) over an empty axis: "
                             "index 0 is out of range [0, 0) for axis 1 of "
                             "size 0");
  EXPECT_TRUE(runOn(**compiled, {2, 5}).isOk());
  EXPECT_TRUE(runOn(**compiled, {0, 5}).isOk()); // nothing to pick from

  // Einsum whose operands give one subscript's size two symbols (as an
  // exporter names each input's dims): a run where they differ fails
  // naming the node; static sizes that differ are refused at import.
  ModelBuilder einsum(18);
  einsum.input("a", {"n", "k"});
  einsum.input("b", {"k2", "m"});
  setString(einsum.node("Einsum", {"a", "b"}, {"y"}), "equation", "ij,jk->ik");
  einsum.output("y");
  std::shared_ptr<jit::Executable> contraction = compileModel(einsum);
  ASSERT_TRUE(contraction);
  auto product = [&](int64_t k, int64_t k2) {
    auto out = contraction->run(
        {literalToTensor(ones({2, k})), literalToTensor(ones({k2, 3}))});
    return out.isOk() ? Status::ok() : out.status();
  };
  EXPECT_TRUE(product(4, 4).isOk());
  Status apart = product(4, 1);
  EXPECT_EQ(apart.code(), StatusCode::InvalidArgument);
  EXPECT_NE(apart.message().find("node 'y' (dot_general)"), std::string::npos)
      << apart.message();
  EXPECT_NE(apart.message().find("(k and k2) must be equal"), std::string::npos)
      << apart.message();
  ModelBuilder staticApart(18);
  staticApart.input("a", {"2", "4"});
  staticApart.input("b", {"3", "5"});
  setString(staticApart.node("Einsum", {"a", "b"}, {"y"}), "equation",
            "ij,jk->ik");
  staticApart.output("y");
  expectRefused(staticApart, "subscript 'j' has sizes 4 and 3");
}

TEST(OnnxComposedOps, GatherNDBatchDimsMustAgree) {
  // batch_dims 1 with the batch named apart in data and indices: equal
  // sizes run, others fail naming the node and both sizes; static ones
  // that differ are refused at import.
  ModelBuilder m(18);
  m.input("x", {"b", "n"});
  m.input("at", {"b2", "k", "1"}, ::onnx::TensorProto::INT64);
  setInt(m.node("GatherND", {"x", "at"}, {"y"}), "batch_dims", 1);
  m.output("y");
  std::shared_ptr<jit::Executable> compiled = compileModel(m);
  ASSERT_TRUE(compiled);
  auto run = [&](int64_t b, int64_t b2) {
    Literal at = Literal::zeros(v1::DTYPE_I64, {b2, 2, 1});
    auto out =
        compiled->run({literalToTensor(ones({b, 3})), literalToTensor(at)});
    return out.isOk() ? Status::ok() : out.status();
  };
  EXPECT_TRUE(run(2, 2).isOk());
  Status apart = run(2, 3);
  EXPECT_EQ(apart.code(), StatusCode::InvalidArgument);
  EXPECT_NE(
      apart.message().find("node 'y_GatherND (batch dim 0 is b in data and b2 "
                           "in indices, which must be equal)"),
      std::string::npos)
      << apart.message();
  ModelBuilder fixed(18);
  fixed.input("x", {"2", "n"});
  fixed.input("at", {"3", "k", "1"}, ::onnx::TensorProto::INT64);
  setInt(fixed.node("GatherND", {"x", "at"}, {"y"}), "batch_dims", 1);
  fixed.output("y");
  expectRefused(fixed, "batch dim 0 is 2 in data and 3 in indices");
}

TEST(OnnxComposedOps, AnEmptyPadsMatrixIsRefusedNotACrash) {
  // F.pad's pattern on an empty shape part: [] reshaped to [-1, 2],
  // transposed and reshaped back. No pads are known from it, which Pad
  // refuses (followed as a matrix, the transposed empty one had no
  // columns, and the next reshape divided by zero).
  ModelBuilder m(18);
  m.input("x", {"rows", "cols"});
  m.node("Shape", {"x"}, {"s"});
  m.ints("zero", {0});
  m.ints("pairs", {-1, 2});
  m.ints("flat", {-1});
  m.node("Slice", {"s", "zero", "zero"}, {"none"});
  m.node("Reshape", {"none", "pairs"}, {"matrix"});
  ::onnx::NodeProto *t = m.node("Transpose", {"matrix"}, {"t"});
  setInts(t, "perm", {1, 0});
  m.node("Reshape", {"t", "flat"}, {"pads"});
  m.node("Pad", {"x", "pads"}, {"y"});
  m.output("y");
  expectRefused(m, "input 'pads' must be known at import time");
}

TEST(OnnxComposedOps, SizesTakenForValidInputsFailOtherRunsNamingTheNode) {
  // (cols - 1) / 2 + 1, a strided convolution's output size as exported:
  // the floor quotient where cols >= 1. At cols = 0 ONNX's truncation
  // gives 1 and the floor 0, so that run fails naming the Div.
  ModelBuilder quotient(18);
  quotient.input("x", {"rows", "cols"});
  ::onnx::NodeProto *shape = quotient.node("Shape", {"x"}, {"s"});
  setInt(shape, "start", 1);
  setInt(shape, "end", 2);
  quotient.ints("one", {1});
  quotient.ints("two", {2});
  quotient.ints("zero", {0});
  quotient.node("Sub", {"s", "one"}, {"m1"});
  quotient.node("Div", {"m1", "two"}, {"h"});
  quotient.node("Add", {"h", "one"}, {"c"});
  quotient.node("Slice", {"x", "zero", "c", "one"}, {"y"});
  quotient.output("y");
  std::shared_ptr<jit::Executable> halves = compileModel(quotient);
  ASSERT_TRUE(halves);
  EXPECT_TRUE(runOn(*halves, {2, 5}).isOk());
  Status empty = runOn(*halves, {2, 0});
  EXPECT_EQ(empty.code(), StatusCode::InvalidArgument);
  EXPECT_NE(empty.message().find("node 'h_Div/"), std::string::npos)
      << empty.message();
  EXPECT_NE(empty.message().find("cols - 1 must not be negative"),
            std::string::npos)
      << empty.message();
  EXPECT_TRUE(runOn(*halves, {3, 1}).isOk());

  // x[:, -3::-1] on a row shorter than 3, where ONNX clamps the start.
  ModelBuilder backward = oneNode("Slice", {"x", "st", "en", "ax", "sp"});
  backward.ints("st", {-3});
  backward.ints("en", {std::numeric_limits<int64_t>::min()});
  backward.ints("ax", {1});
  backward.ints("sp", {-1});
  std::shared_ptr<jit::Executable> reversed = compileModel(backward);
  ASSERT_TRUE(reversed);
  EXPECT_TRUE(runOn(*reversed, {2, 5}).isOk());
  Status shorter = runOn(*reversed, {2, 2});
  EXPECT_EQ(shorter.code(), StatusCode::InvalidArgument);
  EXPECT_NE(shorter.message().find("node 'y_Slice/"), std::string::npos)
      << shorter.message();
  EXPECT_TRUE(runOn(*reversed, {1, 3}).isOk());

  // x[:, -n:] with n a size (here x's own columns): cols - n from the
  // end. At n = 0 ONNX takes the whole axis (-0 is 0), which cols - n is
  // not, so that run fails naming the Slice instead of slicing otherwise.
  ModelBuilder tail(18);
  tail.input("x", {"rows", "cols"});
  ::onnx::NodeProto *cols = tail.node("Shape", {"x"}, {"s"});
  setInt(cols, "start", 1);
  setInt(cols, "end", 2);
  tail.ints("end", {std::numeric_limits<int64_t>::max()});
  tail.ints("one", {1});
  tail.node("Neg", {"s"}, {"minus"});
  tail.node("Slice", {"x", "minus", "end", "one"}, {"y"});
  tail.output("y");
  std::shared_ptr<jit::Executable> last = compileModel(tail);
  ASSERT_TRUE(last);
  EXPECT_TRUE(runOn(*last, {2, 5}).isOk());
  Status none = runOn(*last, {2, 0});
  EXPECT_EQ(none.code(), StatusCode::InvalidArgument);
  EXPECT_NE(none.message().find("node 'y_Slice/"), std::string::npos)
      << none.message();
  EXPECT_NE(none.message().find("cols - 1 must not be negative"),
            std::string::npos)
      << none.message();
}

TEST(OnnxComposedOps, OutOfRangeScatterIndicesFailTheRunNamingTheNode) {
  // ONNX refuses a scatter index outside [-n, n); the composition would
  // drop such an update silently, so each index is checked first.
  ModelBuilder m(18);
  m.input("data", {"n", "2"});
  m.input("idx", {"s", "1"}, ::onnx::TensorProto::INT64);
  m.input("upd", {"s", "2"});
  m.node("ScatterND", {"data", "idx", "upd"}, {"y"});
  m.output("y");
  auto graph = anyshape::onnx::importOnnx(m.bytes());
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  auto run = [&](std::vector<int64_t> idx) {
    Literal at =
        Literal::zeros(v1::DTYPE_I64, {static_cast<int64_t>(idx.size()), 1});
    at.i = idx;
    auto out = (*compiled)->run(
        {literalToTensor(ones({3, 2})), literalToTensor(at),
         literalToTensor(ones({static_cast<int64_t>(idx.size()), 2}))});
    return out.isOk() ? Status::ok() : out.status();
  };
  EXPECT_TRUE(run({2, -3}).isOk());
  Status bad = run({1, 5});
  EXPECT_EQ(bad.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(bad.message(), "node 'y_ScatterND' (ScatterND): index 5 is out "
                           "of range [-3, 3) for axis 0 of size 3");
  EXPECT_TRUE(run({}).isOk()); // no updates: the data as it was
}

TEST(OnnxComposedOps, HugeSizesAreRefusedBeforeAnythingIsAllocated) {
  // Sizes that overflow or pass every limit are import errors naming the
  // node, never an allocation attempt.
  const int64_t big = int64_t{1} << 62;
  ModelBuilder tile = oneNode("Tile", {"x", "r"}, {"y"}, {"n", "4"});
  tile.ints("r", {big, big});
  expectRefused(tile, "(Tile): cannot multiply n by 4611686018427387904");

  ModelBuilder pad = oneNode("Pad", {"x", "p"}, {"y"}, {"n", "4"});
  setString(pad.graph->mutable_node(0), "mode", "reflect");
  pad.ints("p", {0, big, 0, big});
  expectRefused(pad, "(Pad): cannot pad the dim 4");

  ModelBuilder range(18);
  range.input("x", {"n"});
  range.ints("limit", {big});
  range.ints("start", {0});
  range.ints("step", {1});
  range.node("Range", {"start", "limit", "step"}, {"y"});
  range.output("y");
  auto graph = anyshape::onnx::importOnnx(range.bytes());
  ASSERT_FALSE(graph.isOk());
  EXPECT_NE(graph.status().message().find("node 'y_Range' (Range)"),
            std::string::npos)
      << graph.status().message();

  ModelBuilder oneHot(18);
  oneHot.input("i", {"n"}, ::onnx::TensorProto::INT64);
  oneHot.ints("depth", {big});
  oneHot.floats("values", {2}, {0.0f, 1.0f});
  oneHot.node("OneHot", {"i", "depth", "values"}, {"y"});
  oneHot.output("y");
  graph = anyshape::onnx::importOnnx(oneHot.bytes());
  ASSERT_FALSE(graph.isOk());
  EXPECT_NE(graph.status().message().find("(OneHot)"), std::string::npos)
      << graph.status().message();
}

TEST(OnnxComposedOps, DimsThatDifferAsWrittenBroadcastWithACheck) {
  // x[n] expanded to y's shape [m]: n and m differ as written but may be
  // equal (an export that assumed so: Mistral's window). The import takes
  // the target's size and the broadcast checks n at run time: n = m and
  // n = 1 run, any other n fails naming the node (its output, e), and the
  // executable keeps serving.
  ModelBuilder m(18);
  m.input("x", {"n"});
  m.input("y", {"m"});
  m.node("Shape", {"y"}, {"s"});
  m.node("Expand", {"x", "s"}, {"e"});
  m.output("e");
  auto graph = anyshape::onnx::importOnnx(m.bytes());
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  auto run = [&](int64_t n, int64_t size) {
    auto out = (*compiled)->run(
        {literalToTensor(ones({n})), literalToTensor(ones({size}))});
    return out.isOk() ? Status::ok() : out.status();
  };
  EXPECT_TRUE(run(5, 5).isOk());
  EXPECT_TRUE(run(1, 5).isOk());
  Status apart = run(3, 5);
  EXPECT_EQ(apart.code(), StatusCode::InvalidArgument);
  EXPECT_NE(apart.message().find("node 'e' (broadcast_in_dim): operand dim "
                                 "0 (n) must be 1 or result dim 0 (m)"),
            std::string::npos)
      << apart.message();
  EXPECT_TRUE(run(4, 4).isOk());
  // Two numbers that differ are still refused at import.
  ModelBuilder fixed(18);
  fixed.input("x", {"3"});
  fixed.input("y", {"5"});
  fixed.node("Shape", {"y"}, {"s"});
  fixed.node("Expand", {"x", "s"}, {"e"});
  fixed.output("e");
  expectRefused(fixed, "(Expand): cannot broadcast dim 5 to 3");
}

TEST(OnnxComposedOps, AMaskBehindALongChainTakesANonZeroOfItsOwn) {
  // A mask's nonzeros are derived from its producers' (OnnxMaskCounts.cpp)
  // a bounded number of steps back: 5,000 Identity nodes before a NonZero
  // import (no recursion as deep as the model) and compile, and the
  // nonzero counts what the mask selects.
  ModelBuilder chain(18);
  chain.input("m", {"n"}, ::onnx::TensorProto::BOOL);
  std::string last = "m";
  for (int k = 0; k < 5000; ++k) {
    std::string next = "m" + std::to_string(k);
    chain.node("Identity", {last}, {next});
    last = next;
  }
  chain.node("NonZero", {last}, {"y"});
  chain.output("y");
  auto graph = anyshape::onnx::importOnnx(chain.bytes());
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  Literal mask = Literal::zeros(v1::DTYPE_BOOL, {5});
  mask.i[1] = mask.i[4] = 1;
  v1::Tensor input = literalToTensor(mask);
  auto out = (*compiled)->run({&input});
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  EXPECT_EQ(
      std::vector<int64_t>((*out)[0].shape().begin(), (*out)[0].shape().end()),
      (std::vector<int64_t>{1, 2}));
}

TEST(OnnxComposedOps, ConstantOfShapeTakesOneFillElement) {
  // The fill was read from whatever the value held: the first raw byte of
  // an int32 (300 filled 44), or nothing at all (0). Its values per type
  // are checked against ONNX Runtime (constant_of_shape_* fixtures).
  auto fill = [](::onnx::TensorProto value) {
    ModelBuilder m(18);
    m.input("x", {"n"});
    m.node("Shape", {"x"}, {"s"});
    m.node("ConstantOfShape", {"s"}, {"y"});
    auto *attribute = m.graph->mutable_node(1)->add_attribute();
    attribute->set_name("value");
    attribute->set_type(::onnx::AttributeProto::TENSOR);
    *attribute->mutable_t() = std::move(value);
    m.output("y");
    return m;
  };
  ::onnx::TensorProto two;
  two.set_data_type(::onnx::TensorProto::INT32);
  two.add_dims(2);
  two.add_int32_data(1);
  two.add_int32_data(2);
  expectRefused(fill(two), "(ConstantOfShape): value must hold one element");
  ::onnx::TensorProto shortRaw;
  shortRaw.set_data_type(::onnx::TensorProto::INT64);
  shortRaw.add_dims(1);
  shortRaw.set_raw_data(std::string(4, '\1'));
  expectRefused(fill(shortRaw), "value must hold one element");
  ::onnx::TensorProto empty;
  empty.set_data_type(::onnx::TensorProto::FLOAT);
  expectRefused(fill(empty), "value must hold one element");
}

TEST(OnnxComposedOps, UniqueKeepsEachNaNAndRefusesAnAxis) {
  // ONNX does not say how Unique treats NaN, and ONNX Runtime merges it
  // into another value; this importer follows torch.unique: each NaN is
  // a value of its own, sorted last. Both orders, one compile.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t sorted : {1, 0}) {
    ModelBuilder m = oneNode("Unique", {"x"}, {"y", "i", "inv", "c"});
    setInt(m.graph->mutable_node(0), "sorted", sorted);
    auto graph = anyshape::onnx::importOnnx(m.bytes());
    ASSERT_TRUE(graph.isOk()) << graph.status().toString();
    auto compiled = compiler::Compiler::compile(*graph);
    ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
    Literal x = Literal::zeros(v1::DTYPE_F32, {1, 6});
    x.f = {2.0, nan, 1.0, 2.0, nan, -0.0};
    auto out = (*compiled)->run({literalToTensor(x)});
    ASSERT_TRUE(out.isOk()) << out.status().toString();
    std::vector<Literal> got;
    for (const v1::Tensor &t : *out)
      got.push_back(*literalFromTensor(t));
    ASSERT_EQ(got[0].numElements(), 5);
    std::vector<int64_t> first = sorted ? std::vector<int64_t>{5, 2, 0, 1, 4}
                                        : std::vector<int64_t>{0, 1, 2, 4, 5};
    std::vector<int64_t> counts = sorted ? std::vector<int64_t>{1, 1, 2, 1, 1}
                                         : std::vector<int64_t>{2, 1, 1, 1, 1};
    std::vector<int64_t> inverse = sorted
                                       ? std::vector<int64_t>{2, 3, 1, 2, 4, 0}
                                       : std::vector<int64_t>{0, 1, 2, 0, 3, 4};
    EXPECT_EQ(got[1].i, first) << "sorted " << sorted;
    EXPECT_EQ(got[2].i, inverse) << "sorted " << sorted;
    EXPECT_EQ(got[3].i, counts) << "sorted " << sorted;
    for (int64_t k = 0; k < 5; ++k) // the values are x at the first positions
      EXPECT_TRUE(std::isnan(x.f[first[k]]) ? std::isnan(got[0].f[k])
                                            : got[0].f[k] == x.f[first[k]]);
  }
  ModelBuilder slices = oneNode("Unique", {"x"});
  setInt(slices.graph->mutable_node(0), "axis", 0);
  expectRefused(slices, "Unique along an axis (unique slices) is not "
                        "supported, only over the flattened tensor");
}

TEST(OnnxComposedOps, SqueezeWithoutAxesFailsWhereAKeptDimIsOne) {
  // Squeeze without axes drops the dims of size 1; the rank cannot follow
  // a symbolic size, so a symbolic dim is kept and must not be 1 when the
  // graph runs (it gave [1, 3] for ONNX's [3] before, without an error).
  ModelBuilder m = oneNode("Squeeze", {"x"}, {"y"}, {"rows", "1", "cols"});
  auto graph = anyshape::onnx::importOnnx(m.bytes());
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto executable = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  v1::Tensor input = literalToTensor(ones({2, 1, 3}));
  auto kept = (*executable)->run({&input});
  ASSERT_TRUE(kept.isOk()) << kept.status().toString();
  EXPECT_EQ(std::vector<int64_t>((*kept)[0].shape().begin(),
                                 (*kept)[0].shape().end()),
            (std::vector<int64_t>{2, 3}));
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{1, 1, 3}, {2, 1, 1}}) {
    Status one = runOn(**executable, shape);
    EXPECT_EQ(one.code(), StatusCode::InvalidArgument);
    EXPECT_NE(one.message().find("Squeeze without axes keeps dim"),
              std::string::npos)
        << one.message();
  }
}

TEST(OnnxComposedOps, ASizeCastThroughFloat16IsNotAShapeUnchanged) {
  // float16 holds whole numbers exactly only to 2048: a size cast to it
  // and back is not the size (4097 comes back 4096), so no shape is read
  // from it; it was read as the size itself before.
  for (std::string dim : {"n", "4097"}) {
    ModelBuilder m = oneNode("Shape", {"x"}, {"s"}, {dim});
    auto *half = m.node("Cast", {"s"}, {"h"});
    setInt(half, "to", ::onnx::TensorProto::FLOAT16);
    setInt(m.node("Cast", {"h"}, {"back"}), "to", ::onnx::TensorProto::INT64);
    m.node("ConstantOfShape", {"back"}, {"z"});
    m.output("z");
    expectRefused(m, "input 'back' must be known at import time");
  }
}

TEST(OnnxComposedOps, AnIfTheSizesDoNotDecideTakesTheDeclaredBranch) {
  // TorchScript's x.squeeze(1) of a dim it cannot see: If(w == 1,
  // Squeeze, Identity) on a symbolic w. The model's declared output rank
  // picks the branch the exporter traced (op_fixtures_heldout.py runs
  // each against ONNX's meaning); a run whose w picks the other branch
  // fails naming a node (the Squeeze's, whose own check runs first, or
  // the If's), where it computed nothing else before.
  const std::string ops =
      std::string(ANYSHAPE_SOURCE_DIR) + "/tests/graphs/onnx/ops/";
  struct Case {
    const char *model;
    std::vector<int64_t> otherBranch;
    const char *named;
  };
  for (const Case &c :
       {Case{"if_squeeze_of_an_unseen_dim_traced_at_one",
             {2, 3, 4},
             "node 'squeezed/"},
        Case{"if_squeeze_of_an_unseen_dim_traced_wide",
             {2, 1, 4},
             "(If taken as false at import: its else branch)"}}) {
    auto graph = anyshape::onnx::importOnnxFile(ops + c.model + ".onnx");
    ASSERT_TRUE(graph.isOk()) << c.model << ": " << graph.status().toString();
    auto executable = compiler::Compiler::compile(*graph);
    ASSERT_TRUE(executable.isOk()) << executable.status().toString();
    Status other = runOn(**executable, c.otherBranch);
    EXPECT_EQ(other.code(), StatusCode::InvalidArgument) << c.model;
    EXPECT_NE(other.message().find(c.named), std::string::npos)
        << c.model << ": " << other.message();
  }
}

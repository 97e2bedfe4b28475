// The ONNX ops transformers' BERT export needs beyond the basic set, each
// checked against values computed here from ONNX's definitions: Gather
// with negative indices (counted from the end, where the wire gather would
// clamp them), GatherElements and GatherND (lowered to one gather at a
// linear index), the comparisons, And/Or, IsNaN, and ReduceL2 followed by
// a broadcasting divide (normalize, whose keepdims round trip once split
// its kernel), and a roll split at a shift modulo the size. Every model
// has symbolic sizes and is compiled once for all the sizes it runs at.
#include "ModelBuilder.h"
#include "compiler/Compiler.h"
#include "frontend/onnx/OnnxImport.h"
#include "ir/reference/Literal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace anyshape;
using test::ModelBuilder;
using test::setInt;

namespace {

/// Compiles `m` once; `run` then executes it on literals.
class Compiled {
public:
  explicit Compiled(const ModelBuilder &m) {
    auto graph = anyshape::onnx::importOnnx(m.bytes());
    EXPECT_TRUE(graph.isOk()) << graph.status().toString();
    if (!graph.isOk())
      return;
    auto compiled = compiler::Compiler::compile(*graph);
    EXPECT_TRUE(compiled.isOk()) << compiled.status().toString();
    if (compiled.isOk())
      executable_ = std::move(*compiled);
  }
  bool ok() const { return executable_ != nullptr; }
  std::vector<Literal> run(const std::vector<Literal> &inputs) const {
    std::vector<v1::Tensor> tensors;
    for (const Literal &l : inputs)
      tensors.push_back(literalToTensor(l));
    auto out = executable_->run(tensors);
    EXPECT_TRUE(out.isOk()) << out.status().toString();
    std::vector<Literal> literals;
    for (const v1::Tensor &t : out.isOk() ? *out : std::vector<v1::Tensor>())
      literals.push_back(*literalFromTensor(t));
    return literals;
  }

private:
  std::shared_ptr<jit::Executable> executable_;
};

Literal floats(std::vector<int64_t> shape, std::vector<double> values) {
  Literal l;
  l.dtype = v1::DTYPE_F32;
  l.shape = std::move(shape);
  l.f = std::move(values);
  return l;
}

Literal int64s(std::vector<int64_t> shape, std::vector<int64_t> values) {
  Literal l;
  l.dtype = v1::DTYPE_I64;
  l.shape = std::move(shape);
  l.i = std::move(values);
  return l;
}

/// rows x cols floats 10 * r + c.
Literal grid(int64_t rows, int64_t cols) {
  std::vector<double> v;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      v.push_back(double(10 * r + c));
  return floats({rows, cols}, v);
}

TEST(OnnxIndexOps, GatherCountsNegativeIndicesFromTheEnd) {
  ModelBuilder m;
  m.input("x", {"rows", "3"});
  m.input("ids", {"n"}, ::onnx::TensorProto::INT64);
  m.ints("last", {-1});
  m.node("Gather", {"x", "ids"}, {"picked"});
  m.node("Gather", {"x", "last"}, {"tail"});
  m.output("picked");
  m.output("tail");
  Compiled exe(m);
  ASSERT_TRUE(exe.ok());
  for (int64_t rows : {2, 5}) {
    std::vector<int64_t> ids = {0, -1, 1, -rows};
    auto out = exe.run({grid(rows, 3), int64s({4}, ids)});
    ASSERT_EQ(out.size(), 2u);
    ASSERT_EQ(out[0].shape, (std::vector<int64_t>{4, 3}));
    for (int64_t k = 0; k < 4; ++k) {
      int64_t row = ids[k] < 0 ? ids[k] + rows : ids[k];
      for (int64_t c = 0; c < 3; ++c)
        EXPECT_EQ(out[0].f[k * 3 + c], 10.0 * row + c)
            << "rows " << rows << " index " << ids[k];
    }
    ASSERT_EQ(out[1].shape, (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(out[1].f[0], 10.0 * (rows - 1));
  }
}

TEST(OnnxIndexOps, GatherElementsTakesAlongTheAxisAtEveryPosition) {
  ModelBuilder m;
  m.input("x", {"rows", "cols"});
  m.input("ids", {"rows", "k"}, ::onnx::TensorProto::INT64);
  m.input("rowIds", {"j", "cols"}, ::onnx::TensorProto::INT64);
  setInt(m.node("GatherElements", {"x", "ids"}, {"alongCols"}), "axis", 1);
  setInt(m.node("GatherElements", {"x", "rowIds"}, {"alongRows"}), "axis", 0);
  m.output("alongCols");
  m.output("alongRows");
  Compiled exe(m);
  ASSERT_TRUE(exe.ok());
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{2, 3}, {4, 5}}) {
    // out[r][j] = x[r][ids[r][j]]; out[j][c] = x[rowIds[j][c]][c].
    std::vector<int64_t> ids, rowIds;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < 2; ++j)
        ids.push_back(j == 0 ? cols - 1 - r % cols : -1 - r % cols);
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t c = 0; c < cols; ++c)
        rowIds.push_back((j + c) % rows - (c % 2 ? rows : 0));
    auto out = exe.run(
        {grid(rows, cols), int64s({rows, 2}, ids), int64s({3, cols}, rowIds)});
    ASSERT_EQ(out.size(), 2u);
    ASSERT_EQ(out[0].shape, (std::vector<int64_t>{rows, 2}));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < 2; ++j) {
        int64_t c = ids[r * 2 + j];
        c = c < 0 ? c + cols : c;
        EXPECT_EQ(out[0].f[r * 2 + j], 10.0 * r + c) << r << "," << j;
      }
    ASSERT_EQ(out[1].shape, (std::vector<int64_t>{3, cols}));
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t c = 0; c < cols; ++c) {
        int64_t r = rowIds[j * cols + c];
        r = r < 0 ? r + rows : r;
        EXPECT_EQ(out[1].f[j * cols + c], 10.0 * r + c) << j << "," << c;
      }
  }
}

TEST(OnnxIndexOps, GatherNDPicksElementsAndRows) {
  ModelBuilder m;
  m.input("x", {"rows", "cols"});
  m.input("points", {"n", "2"}, ::onnx::TensorProto::INT64);
  m.input("rowIds", {"n", "1"}, ::onnx::TensorProto::INT64);
  m.node("GatherND", {"x", "points"}, {"elements"});
  m.node("GatherND", {"x", "rowIds"}, {"rowsOut"});
  m.output("elements");
  m.output("rowsOut");
  Compiled exe(m);
  ASSERT_TRUE(exe.ok());
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{2, 3}, {5, 4}}) {
    std::vector<int64_t> points = {0, 0, rows - 1, cols - 1, -1, 1, 1, -cols};
    std::vector<int64_t> rowIds = {1, -1, 0, rows - 1};
    auto out = exe.run(
        {grid(rows, cols), int64s({4, 2}, points), int64s({4, 1}, rowIds)});
    ASSERT_EQ(out.size(), 2u);
    ASSERT_EQ(out[0].shape, (std::vector<int64_t>{4}));
    for (int64_t k = 0; k < 4; ++k) {
      int64_t r = points[2 * k], c = points[2 * k + 1];
      r = r < 0 ? r + rows : r;
      c = c < 0 ? c + cols : c;
      EXPECT_EQ(out[0].f[k], 10.0 * r + c) << "point " << k;
    }
    ASSERT_EQ(out[1].shape, (std::vector<int64_t>{4, cols}));
    for (int64_t k = 0; k < 4; ++k) {
      int64_t r = rowIds[k] < 0 ? rowIds[k] + rows : rowIds[k];
      for (int64_t c = 0; c < cols; ++c)
        EXPECT_EQ(out[1].f[k * cols + c], 10.0 * r + c) << "row " << k;
    }
  }
}

TEST(OnnxIndexOps, OutOfRangeIndicesFailTheRunNamingTheNode) {
  // ONNX refuses an index outside [-n, n) where the wire gather would
  // clamp it: the run fails with INVALID_ARGUMENT naming the node,
  // the index and the range, for Gather, GatherElements and each
  // coordinate of GatherND. A constant index known to be in range of a
  // static dim is not checked at run time.
  ModelBuilder m;
  m.input("x", {"rows", "3"});
  m.input("ids", {"n"}, ::onnx::TensorProto::INT64);
  m.input("cols", {"rows", "1"}, ::onnx::TensorProto::INT64);
  m.input("points", {"p", "2"}, ::onnx::TensorProto::INT64);
  m.ints("last", {-1});
  m.node("Gather", {"x", "ids"}, {"picked"});
  setInt(m.node("Gather", {"x", "last"}, {"tail"}), "axis", 1); // static 3
  setInt(m.node("GatherElements", {"x", "cols"}, {"along"}), "axis", 1);
  m.node("GatherND", {"x", "points"}, {"elements"});
  for (const char *out : {"picked", "tail", "along", "elements"})
    m.output(out);
  auto graph = anyshape::onnx::importOnnx(m.bytes());
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  int checks = 0;
  for (const v1::Node &node : graph->nodes())
    checks += node.op() == "check_index";
  EXPECT_EQ(checks, 4); // ids, cols, and both columns of points
  auto compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  auto run = [&](std::vector<int64_t> ids, std::vector<int64_t> cols,
                 std::vector<int64_t> points) {
    std::vector<v1::Tensor> in = {
        literalToTensor(grid(2, 3)),
        literalToTensor(int64s({int64_t(ids.size())}, ids)),
        literalToTensor(int64s({2, 1}, cols)),
        literalToTensor(int64s({int64_t(points.size() / 2), 2}, points))};
    auto out = (*compiled)->run(in);
    return out.isOk() ? Status::ok() : out.status();
  };
  EXPECT_TRUE(run({0, -2, 1}, {2, -3}, {1, 2, -2, -3}).isOk());
  Status huge = run({1000000000}, {0, 0}, {0, 0});
  EXPECT_EQ(huge.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(huge.message(), "node 'picked_Gather' (Gather): index 1000000000 "
                            "is out of range [-2, 2) for axis 0 of size 2");
  EXPECT_EQ(run({0}, {0, 3}, {0, 0}).message(),
            "node 'along_GatherElements' (GatherElements): index 3 is out of "
            "range [-3, 3) for axis 1 of size 3");
  EXPECT_EQ(run({0}, {0, 0}, {0, 0, 0, -4}).message(),
            "node 'elements_GatherND' (GatherND): index -4 is out of range "
            "[-3, 3) for axis 1 of size 3");
  EXPECT_EQ(run({0}, {0, 0}, {2, 0}).message(),
            "node 'elements_GatherND' (GatherND): index 2 is out of range "
            "[-2, 2) for axis 0 of size 2");
}

TEST(OnnxIndexOps, ARollSplitAtAShiftModuloTheSizeRunsWhereTheShiftFits) {
  // torch.export's torch.roll(x, 3, dims=1): the split point is
  // Mod(-3, cols), a size plus a constant where cols >= 3; a narrower
  // axis (which ONNX Runtime wraps) fails the run naming the node.
  ModelBuilder m;
  m.input("x", {"rows", "cols"});
  m.ints("axis", {1});
  m.ints("zero", {0});
  m.ints("shift", {-3});
  m.ints("far", {INT64_MAX});
  m.node("Shape", {"x"}, {"shape"});
  setInt(m.node("Gather", {"shape", "axis"}, {"cols"}), "axis", 0);
  m.node("Mod", {"shift", "cols"}, {"split"});
  m.node("Slice", {"x", "split", "far", "axis"}, {"tail"});
  m.node("Slice", {"x", "zero", "split", "axis"}, {"head"});
  setInt(m.node("Concat", {"tail", "head"}, {"rolled"}), "axis", 1);
  m.output("rolled");
  Compiled compiled(m);
  ASSERT_TRUE(compiled.ok());
  for (int64_t cols : {3, 4, 7}) {
    std::vector<Literal> out = compiled.run({grid(2, cols)});
    ASSERT_EQ(out.size(), 1u);
    std::vector<double> expected;
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t c = 0; c < cols; ++c)
        expected.push_back(double(10 * r + (c + cols - 3) % cols));
    EXPECT_EQ(out[0].f, expected) << "cols = " << cols;
  }
  auto graph = anyshape::onnx::importOnnx(m.bytes());
  ASSERT_TRUE(graph.isOk());
  auto executable = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(executable.isOk());
  auto narrow = (*executable)->run({literalToTensor(grid(2, 2))});
  ASSERT_FALSE(narrow.isOk());
  EXPECT_EQ(narrow.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(narrow.status().message().find("node '"), std::string::npos)
      << narrow.status().message();
}

TEST(OnnxIndexOps, ComparisonsLogicAndNaNChecks) {
  ModelBuilder m;
  m.input("a", {"n"});
  m.input("b", {"n"});
  const char *ops[] = {"Greater", "GreaterOrEqual", "Less", "LessOrEqual",
                       "IsNaN"};
  for (const char *op : ops) {
    std::string name = op;
    if (name == "IsNaN")
      m.node(op, {"a"}, {name + "_bool"});
    else
      m.node(op, {"a", "b"}, {name + "_bool"});
  }
  m.node("And", {"Greater_bool", "IsNaN_bool"}, {"And_bool"});
  m.node("Or", {"Less_bool", "IsNaN_bool"}, {"Or_bool"});
  std::vector<std::string> outs = {
      "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "IsNaN", "And", "Or"};
  for (const std::string &name : outs) {
    setInt(m.node("Cast", {name + "_bool"}, {name}), "to",
           ::onnx::TensorProto::FLOAT);
    m.output(name);
  }
  Compiled exe(m);
  ASSERT_TRUE(exe.ok());
  double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> a = {1, 2, 3, nan, -1}, b = {2, 2, 1, 0, nan};
  auto out = exe.run({floats({5}, a), floats({5}, b)});
  ASSERT_EQ(out.size(), outs.size());
  for (size_t k = 0; k < a.size(); ++k) {
    bool isNan = std::isnan(a[k]);
    std::vector<bool> want = {a[k] > b[k], a[k] >= b[k],
                              a[k]<b[k], a[k] <= b[k], isNan, a[k]> b[k] &&
                                  isNan,
                              a[k] < b[k] || isNan};
    for (size_t o = 0; o < outs.size(); ++o)
      EXPECT_EQ(out[o].f[k], want[o] ? 1.0 : 0.0)
          << outs[o] << "(" << a[k] << ", " << b[k] << ")";
  }
}

/// y = x / max(ReduceL2(x, axis 1, keepdims), eps), as
/// torch.nn.functional.normalize exports it. Its unit-dim round trip once
/// split the plan's stitched kernel and failed the compile.
TEST(OnnxIndexOps, ReduceL2NormalizesRows) {
  ModelBuilder m(18); // axes as an input
  m.input("x", {"batch", "dim"});
  m.ints("axes", {1});
  m.floats("eps", {}, {1e-12f});
  m.node("ReduceL2", {"x", "axes"}, {"norm"});
  m.node("Max", {"norm", "eps"}, {"clamped"});
  m.node("Expand", {"clamped", "shape"}, {"wide"});
  m.node("Shape", {"x"}, {"shape"});
  m.node("Div", {"x", "wide"}, {"y"});
  m.output("y");
  // Shape must come before Expand: ONNX graphs are in order.
  std::swap(*m.graph->mutable_node(2), *m.graph->mutable_node(3));
  Compiled exe(m);
  ASSERT_TRUE(exe.ok());
  for (auto [batch, dim] : {std::pair<int64_t, int64_t>{1, 3}, {4, 33}}) {
    Literal x = grid(batch, dim);
    x.f[0] = -2; // the first row is never all zeros
    auto out = exe.run({x});
    ASSERT_EQ(out.size(), 1u);
    for (int64_t r = 0; r < batch; ++r) {
      double norm = 0;
      for (int64_t c = 0; c < dim; ++c)
        norm += x.f[r * dim + c] * x.f[r * dim + c];
      norm = std::sqrt(norm);
      for (int64_t c = 0; c < dim; ++c)
        EXPECT_NEAR(out[0].f[r * dim + c], x.f[r * dim + c] / norm, 1e-6)
            << r << "," << c;
    }
  }
}

} // namespace

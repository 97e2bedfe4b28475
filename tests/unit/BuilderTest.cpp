// Tests of the client GraphBuilder: numpy broadcasting (which
// broadcast_in_dim nodes it inserts and the symbolic types it tracks),
// error recording (the first error is kept, later ops return invalid
// Values, build() reports it), output renaming, and the composite layers
// (matmul, linear, softmax, layerNorm, gelu, attention) evaluated with the
// reference evaluator on small random inputs and compared with the same
// math written out here in plain double-precision C++.
#include "TestUtil.h"

#include "anyshape/client/GraphBuilder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace anyshape {
namespace {

using client::Comparison;
using client::GraphBuilder;
using client::Reduction;
using client::Value;
using test::failsWith;
using test::makeLiteral;
using test::valuesNear;

/// Builds `b`'s graph (which must build) and evaluates it.
std::vector<Literal> run(const GraphBuilder &b,
                         const std::vector<Literal> &inputs) {
  auto graph = b.build();
  EXPECT_TRUE(graph.isOk()) << graph.status().toString();
  if (!graph.isOk())
    return {};
  return test::evaluate(*graph, inputs);
}

Literal runOne(const GraphBuilder &b, const std::vector<Literal> &inputs) {
  std::vector<Literal> out = run(b, inputs);
  EXPECT_FALSE(out.empty());
  return out.empty() ? Literal() : out.front();
}

/// The nodes of `graph` with op `op`.
std::vector<const v1::Node *> nodesWithOp(const v1::Graph &graph,
                                          const std::string &op) {
  std::vector<const v1::Node *> out;
  for (const v1::Node &node : graph.nodes())
    if (node.op() == op)
      out.push_back(&node);
  return out;
}

/// Uniform values in [-scale, scale) as f32.
Literal randomF32(const std::vector<int64_t> &shape, uint64_t seed,
                  double scale = 1.0) {
  Literal lit = randomLiteral(v1::DTYPE_F32, shape, seed);
  for (int64_t k = 0; k < lit.numElements(); ++k)
    lit.setDouble(k, lit.f[k] * scale);
  return lit;
}

// ---- broadcasting
// ------------------------------------------------------------

TEST(BuilderTest, BiasBroadcastInsertsBroadcastInDim) {
  GraphBuilder b;
  Value x = b.parameter("x", v1::DTYPE_F32, {"batch", "seq", 768});
  Value bias = b.parameter("bias", v1::DTYPE_F32, {768});
  Value y = b.add(x, bias);
  ASSERT_TRUE(y.isValid()) << b.status().toString();
  EXPECT_EQ(b.typeString(y), "f32[batch, seq, 768]");
  b.output(y);
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();

  std::vector<const v1::Node *> broadcasts =
      nodesWithOp(*graph, "broadcast_in_dim");
  ASSERT_EQ(broadcasts.size(), 1u); // x already has the result's dims
  const v1::Node &bc = *broadcasts[0];
  ASSERT_EQ(bc.operands_size(), 1);
  EXPECT_EQ(bc.operands(0), "bias");
  const v1::BroadcastInDimAttrs &attrs = bc.broadcast_in_dim();
  ASSERT_EQ(attrs.broadcast_dimensions_size(), 1);
  EXPECT_EQ(attrs.broadcast_dimensions(0), 2);
  ASSERT_EQ(attrs.shape_size(), 3);
  EXPECT_EQ(attrs.shape(0).symbol(), "batch");
  EXPECT_EQ(attrs.shape(1).symbol(), "seq");
  EXPECT_EQ(attrs.shape(2).size(), 768);

  std::vector<const v1::Node *> adds = nodesWithOp(*graph, "add");
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_EQ(adds[0]->operands(0), "x");
  EXPECT_EQ(adds[0]->operands(1), bc.name());
}

TEST(BuilderTest, BroadcastStretchesSizeOneDimsOnBothSides) {
  GraphBuilder b;
  Value a = b.parameter("a", v1::DTYPE_F32, {2, 1});
  Value c = b.parameter("c", v1::DTYPE_F32, {1, 3});
  Value y = b.add(a, c);
  EXPECT_EQ(b.typeString(y), "f32[2, 3]");
  b.output(y);
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk());
  EXPECT_EQ(nodesWithOp(*graph, "broadcast_in_dim").size(), 2u);
  EXPECT_TRUE(
      valuesNear(runOne(b, {makeLiteral(v1::DTYPE_F32, {2, 1}, {1, 2}),
                            makeLiteral(v1::DTYPE_F32, {1, 3}, {10, 20, 30})}),
                 v1::DTYPE_F32, {2, 3}, {11, 21, 31, 12, 22, 32}));
}

TEST(BuilderTest, BroadcastScalarsAndLowerRanks) {
  GraphBuilder b;
  Value x = b.parameter("x", v1::DTYPE_F32, {2, 3});
  Value twice = b.mul(b.scalar(2.0), x); // scalar first: rank promotion
  EXPECT_EQ(b.typeString(twice), "f32[2, 3]");
  Value row = b.parameter("row", v1::DTYPE_F32, {3});
  Value shifted = b.sub(twice, row);
  EXPECT_EQ(b.typeString(shifted), "f32[2, 3]");
  Value mask = b.compare(shifted, b.scalar(0.0), Comparison::Gt);
  EXPECT_EQ(b.typeString(mask), "bool[2, 3]");
  Value relu = b.select(mask, shifted, b.splat(0.0, v1::DTYPE_F32, {2, 3}));
  b.output(relu);
  // 2x - row, then relu.
  EXPECT_TRUE(valuesNear(
      runOne(b, {makeLiteral(v1::DTYPE_F32, {2, 3}, {1, 2, 3, -1, 0, 4}),
                 makeLiteral(v1::DTYPE_F32, {3}, {1, 5, 1})}),
      v1::DTYPE_F32, {2, 3}, {1, 0, 5, 0, 0, 7}));
}

TEST(BuilderTest, SymbolicBroadcastTypes) {
  GraphBuilder b;
  Value x = b.parameter("x", v1::DTYPE_F32, {"batch", 1, "seq"});
  Value y = b.parameter("y", v1::DTYPE_F32, {"seq", 1});
  // [batch, 1, seq] + [seq, 1] -> [batch, seq, seq]
  Value z = b.add(x, y);
  EXPECT_EQ(b.typeString(z), "f32[batch, seq, seq]");
  Value flat = b.reshape(z, {"batch*seq", "seq"});
  EXPECT_EQ(b.typeString(flat), "f32[batch*seq, seq]");
  Value inner = b.slice(flat, {0, 1}, {"batch*seq", "seq - 1"});
  EXPECT_EQ(b.typeString(inner), "f32[batch*seq, seq - 2]");
  b.output(inner);
  EXPECT_TRUE(b.build().isOk()) << b.status().toString();
}

TEST(BuilderTest, IncompatibleBroadcastIsRecorded) {
  GraphBuilder b;
  Value x = b.parameter("x", v1::DTYPE_F32, {2, 3});
  Value y = b.parameter("y", v1::DTYPE_F32, {4, 3});
  Value z = b.add(x, y);
  EXPECT_FALSE(z.isValid());
  EXPECT_TRUE(
      failsWith(b.status(), {"cannot broadcast", "f32[2, 3]", "f32[4, 3]"}));
  EXPECT_TRUE(failsWith(b.build().status(), {"cannot broadcast"}));
}

// ---- errors
// ------------------------------------------------------------------

TEST(BuilderTest, FirstErrorIsKeptAndLaterOpsAreInvalid) {
  GraphBuilder b;
  Value x = b.parameter("x", v1::DTYPE_F32, {2});
  Value n = b.parameter("n", v1::DTYPE_I32, {2});
  EXPECT_TRUE(b.status().isOk());
  Value bad = b.add(x, n);
  EXPECT_FALSE(bad.isValid());
  ASSERT_FALSE(b.status().isOk());
  std::string first = b.status().message();
  EXPECT_NE(first.find("dtypes differ"), std::string::npos) << first;
  EXPECT_NE(first.find("(add)"), std::string::npos) << first;

  // Later ops on perfectly valid Values return invalid Values too, and a
  // later mistake does not replace the first error.
  Value later = b.neg(x);
  EXPECT_FALSE(later.isValid());
  EXPECT_FALSE(b.transpose(x, {3}).isValid());
  EXPECT_FALSE(b.parameter("y", v1::DTYPE_F32, {2}).isValid());
  EXPECT_EQ(b.status().message(), first);
  EXPECT_EQ(b.typeString(later), "<invalid>");
  EXPECT_EQ(b.rank(later), -1);
  b.output(x);

  auto graph = b.build();
  ASSERT_FALSE(graph.isOk());
  EXPECT_EQ(graph.status().message(), first);
}

TEST(BuilderTest, InvalidValuesAndShapeErrors) {
  {
    GraphBuilder b;
    EXPECT_FALSE(b.neg(Value()).isValid());
    EXPECT_TRUE(failsWith(b.status(), {"invalid Value"}));
  }
  {
    GraphBuilder b;
    Value x = b.parameter("x", v1::DTYPE_F32, {2, 3});
    EXPECT_FALSE(b.reduce(x, {2}, Reduction::Sum).isValid());
    EXPECT_TRUE(failsWith(b.status(), {"(reduce)", "out of range"}));
  }
  {
    GraphBuilder b;
    Value x = b.parameter("x", v1::DTYPE_F32, {2, 3});
    EXPECT_FALSE(b.reshape(x, {4, -1}).isValid());
    EXPECT_TRUE(failsWith(b.status(), {"(reshape)", "cannot split"}));
  }
  {
    GraphBuilder b;
    Value x = b.parameter("x", v1::DTYPE_F32, {2, 3});
    EXPECT_FALSE(b.matmul(x, b.parameter("v", v1::DTYPE_F32, {3})).isValid());
    EXPECT_TRUE(failsWith(b.status(), {"matmul"}));
  }
}

TEST(BuilderTest, ParameterErrors) {
  {
    GraphBuilder b;
    b.parameter("x", v1::DTYPE_F32, {2});
    EXPECT_FALSE(b.parameter("x", v1::DTYPE_F32, {3}).isValid());
    EXPECT_TRUE(failsWith(b.status(), {"parameter 'x'", "unique"}));
  }
  {
    GraphBuilder b;
    EXPECT_FALSE(b.parameter("x", v1::DTYPE_F32, {"seq +"}).isValid());
    EXPECT_TRUE(failsWith(b.status(), {"seq +"}));
  }
  {
    GraphBuilder b;
    EXPECT_FALSE(b.parameter("", v1::DTYPE_F32, {2}).isValid());
    EXPECT_FALSE(b.status().isOk());
  }
  {
    GraphBuilder b;
    EXPECT_FALSE(b.parameter("x", v1::DTYPE_F32, {-3}).isValid());
    EXPECT_TRUE(failsWith(b.status(), {"parameter 'x'", "negative"}));
  }
  {
    // Building with no outputs fails validation.
    GraphBuilder b;
    b.parameter("x", v1::DTYPE_F32, {2});
    EXPECT_TRUE(failsWith(b.build().status(), {"no outputs"}));
  }
}

TEST(BuilderTest, AutomaticNamesAvoidParameterNames) {
  // A parameter may carry a name the builder would generate for a node.
  GraphBuilder b;
  Value x = b.parameter("neg_0", v1::DTYPE_F32, {2});
  Value y = b.neg(x);
  ASSERT_TRUE(y.isValid()) << b.status().toString();
  // And a name chosen for an output.
  b.output(y, "abs_2"); // the name the next abs would get
  Value z = b.abs(y);
  b.output(z);
  std::vector<Literal> out = run(b, {makeLiteral(v1::DTYPE_F32, {2}, {1, -2})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(valuesNear(out[0], v1::DTYPE_F32, {2}, {-1, 2}));
  EXPECT_TRUE(valuesNear(out[1], v1::DTYPE_F32, {2}, {1, 2}));
}

// ---- outputs
// -----------------------------------------------------------------

TEST(BuilderTest, OutputRenaming) {
  GraphBuilder b("renamed");
  Value x = b.parameter("x", v1::DTYPE_F32, {3});
  Value sum = b.add(x, x);
  Value negated = b.neg(sum); // uses sum under its old name
  b.output(sum, "doubled");
  b.output(negated);
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  EXPECT_EQ(graph->name(), "renamed");
  ASSERT_EQ(graph->outputs_size(), 2);
  EXPECT_EQ(graph->outputs(0), "doubled");
  EXPECT_EQ(graph->outputs(1), nodesWithOp(*graph, "neg")[0]->name());
  EXPECT_EQ(nodesWithOp(*graph, "add")[0]->name(), "doubled");
  EXPECT_EQ(nodesWithOp(*graph, "neg")[0]->operands(0), "doubled");

  std::vector<Literal> out =
      run(b, {makeLiteral(v1::DTYPE_F32, {3}, {1, 2, -3})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(valuesNear(out[0], v1::DTYPE_F32, {3}, {2, 4, -6}));
  EXPECT_TRUE(valuesNear(out[1], v1::DTYPE_F32, {3}, {-2, -4, 6}));

  // Later uses see the new name.
  Value again = b.abs(sum);
  auto regraph = b.build();
  ASSERT_TRUE(regraph.isOk());
  EXPECT_TRUE(again.isValid());
  EXPECT_EQ(nodesWithOp(*regraph, "abs")[0]->operands(0), "doubled");
}

TEST(BuilderTest, OutputRenamingErrors) {
  {
    GraphBuilder b;
    Value x = b.parameter("x", v1::DTYPE_F32, {3});
    b.output(x, "y");
    EXPECT_TRUE(failsWith(b.status(), {"cannot rename parameter 'x'"}));
  }
  {
    GraphBuilder b;
    Value x = b.parameter("x", v1::DTYPE_F32, {3});
    Value a = b.neg(x), c = b.abs(x);
    b.output(a, "out");
    b.output(c, "out");
    EXPECT_TRUE(failsWith(b.status(), {"'out'", "duplicate"}));
    EXPECT_FALSE(b.build().isOk());
  }
  {
    // A parameter may be an output under its own name.
    GraphBuilder b;
    Value x = b.parameter("x", v1::DTYPE_F32, {3});
    b.output(x, "x");
    auto graph = b.build();
    ASSERT_TRUE(graph.isOk()) << graph.status().toString();
    EXPECT_EQ(graph->outputs(0), "x");
  }
}

// ---- composites
// --------------------------------------------------------------

TEST(BuilderTest, MatmulAndLinear) {
  GraphBuilder b;
  Value x = b.parameter("x", v1::DTYPE_F32, {"n", 3});
  Value w = b.parameter("w", v1::DTYPE_F32, {3, 4});
  Value bias = b.parameter("bias", v1::DTYPE_F32, {4});
  Value y = b.linear(x, w, bias);
  EXPECT_EQ(b.typeString(y), "f32[n, 4]");
  b.output(y);
  Literal xv = randomF32({2, 3}, 1), wv = randomF32({3, 4}, 2),
          bv = randomF32({4}, 3);
  Literal out = runOne(b, {xv, wv, bv});
  ASSERT_EQ(out.shape, (std::vector<int64_t>{2, 4}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      double sum = bv.f[j];
      for (int c = 0; c < 3; ++c)
        sum += xv.f[i * 3 + c] * wv.f[c * 4 + j];
      EXPECT_NEAR(out.f[i * 4 + j], sum, 1e-6);
    }

  // Batched: [2, 2, 3] @ [2, 3, 2].
  GraphBuilder bb;
  Value p = bb.parameter("p", v1::DTYPE_F32, {2, 2, 3});
  Value q = bb.parameter("q", v1::DTYPE_F32, {2, 3, 2});
  Value pq = bb.matmul(p, q);
  EXPECT_EQ(bb.typeString(pq), "f32[2, 2, 2]");
  bb.output(pq);
  Literal pv = randomF32({2, 2, 3}, 4), qv = randomF32({2, 3, 2}, 5);
  Literal prod = runOne(bb, {pv, qv});
  ASSERT_EQ(prod.f.size(), 8u);
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        double sum = 0;
        for (int c = 0; c < 3; ++c)
          sum += pv.f[(n * 2 + i) * 3 + c] * qv.f[(n * 3 + c) * 2 + j];
        EXPECT_NEAR(prod.f[(n * 2 + i) * 2 + j], sum, 1e-6);
      }
}

/// softmax over the last dim of a [rows, cols] row-major array, in double.
std::vector<double> softmaxRows(const std::vector<double> &x, int rows,
                                int cols) {
  std::vector<double> out(x.size());
  for (int r = 0; r < rows; ++r) {
    double m = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c)
      m = std::max(m, x[r * cols + c]);
    for (int c = 0; c < cols; ++c)
      sum += std::exp(x[r * cols + c] - m);
    for (int c = 0; c < cols; ++c)
      out[r * cols + c] = std::exp(x[r * cols + c] - m) / sum;
  }
  return out;
}

TEST(BuilderTest, Softmax) {
  GraphBuilder b;
  Value x = b.parameter("x", v1::DTYPE_F32, {3, 5});
  Value y = b.softmax(x);
  EXPECT_EQ(b.typeString(y), "f32[3, 5]");
  b.output(y);
  // Large logits: only correct with the max subtracted first.
  Literal xv = randomF32({3, 5}, 11, 50.0);
  xv.f[0] = 80; // exp(80) overflows f32
  Literal out = runOne(b, {xv});
  ASSERT_EQ(out.shape, (std::vector<int64_t>{3, 5}));
  std::vector<double> expected = softmaxRows(xv.f, 3, 5);
  for (int r = 0; r < 3; ++r) {
    double rowSum = 0;
    for (int c = 0; c < 5; ++c) {
      EXPECT_NEAR(out.f[r * 5 + c], expected[r * 5 + c], 1e-6);
      EXPECT_FALSE(std::isnan(out.f[r * 5 + c]));
      rowSum += out.f[r * 5 + c];
    }
    EXPECT_NEAR(rowSum, 1.0, 1e-5);
  }
}

TEST(BuilderTest, SoftmaxAlongAxisZeroWithSymbolicDim) {
  GraphBuilder b;
  Value x = b.parameter("x", v1::DTYPE_F32, {"n", 2});
  Value y = b.softmax(x, 0);
  EXPECT_EQ(b.typeString(y), "f32[n, 2]");
  b.output(y);
  // Columns [1, 2, 3] and [0, 0, 0].
  Literal out =
      runOne(b, {makeLiteral(v1::DTYPE_F32, {3, 2}, {1, 0, 2, 0, 3, 0})});
  double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  EXPECT_TRUE(valuesNear(out, v1::DTYPE_F32, {3, 2},
                         {std::exp(1.0) / z, 1.0 / 3, std::exp(2.0) / z,
                          1.0 / 3, std::exp(3.0) / z, 1.0 / 3},
                         1e-6));
}

/// layer norm over the last dim of [rows, cols], in double.
std::vector<double> layerNormRows(const std::vector<double> &x, int rows,
                                  int cols, const std::vector<double> &gamma,
                                  const std::vector<double> &beta,
                                  double epsilon) {
  std::vector<double> out(x.size());
  for (int r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < cols; ++c)
      mean += x[r * cols + c] / cols;
    for (int c = 0; c < cols; ++c)
      var += (x[r * cols + c] - mean) * (x[r * cols + c] - mean) / cols;
    for (int c = 0; c < cols; ++c)
      out[r * cols + c] =
          (x[r * cols + c] - mean) / std::sqrt(var + epsilon) * gamma[c] +
          beta[c];
  }
  return out;
}

TEST(BuilderTest, LayerNormNormalisesRows) {
  GraphBuilder b;
  Value x = b.parameter("x", v1::DTYPE_F32, {4, 8});
  Value y = b.layerNorm(x, b.splat(1.0, v1::DTYPE_F32, {8}),
                        b.splat(0.0, v1::DTYPE_F32, {8}));
  EXPECT_EQ(b.typeString(y), "f32[4, 8]");
  b.output(y);
  Literal xv = randomF32({4, 8}, 21, 3.0);
  for (int64_t k = 0; k < 32; ++k)
    xv.setDouble(k, xv.f[k] + 5.0); // a nonzero mean to remove
  Literal out = runOne(b, {xv});
  ASSERT_EQ(out.f.size(), 32u);
  std::vector<double> expected =
      layerNormRows(xv.f, 4, 8, std::vector<double>(8, 1.0),
                    std::vector<double>(8, 0.0), 1e-12);
  for (int r = 0; r < 4; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < 8; ++c)
      mean += out.f[r * 8 + c] / 8;
    for (int c = 0; c < 8; ++c)
      var += (out.f[r * 8 + c] - mean) * (out.f[r * 8 + c] - mean) / 8;
    EXPECT_NEAR(mean, 0.0, 1e-5);
    EXPECT_NEAR(var, 1.0, 1e-4);
    for (int c = 0; c < 8; ++c)
      EXPECT_NEAR(out.f[r * 8 + c], expected[r * 8 + c], 1e-5);
  }
}

TEST(BuilderTest, LayerNormWithSymbolicWidthAndAffine) {
  GraphBuilder b;
  Value x = b.parameter("x", v1::DTYPE_F32, {"rows", "hidden"});
  Value gamma = b.parameter("gamma", v1::DTYPE_F32, {"hidden"});
  Value beta = b.parameter("beta", v1::DTYPE_F32, {"hidden"});
  Value y = b.layerNorm(x, gamma, beta, 1e-5);
  EXPECT_EQ(b.typeString(y), "f32[rows, hidden]");
  b.output(y);
  // The row length comes from dim_size at run time.
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  EXPECT_FALSE(nodesWithOp(*graph, "dim_size").empty());

  for (int hidden : {3, 6}) {
    Literal xv = randomF32({2, hidden}, 30 + hidden, 2.0);
    Literal gv = randomF32({hidden}, 40 + hidden), bv = randomF32({hidden}, 50);
    Literal out = runOne(b, {xv, gv, bv});
    std::vector<double> expected =
        layerNormRows(xv.f, 2, hidden, gv.f, bv.f, 1e-5);
    ASSERT_EQ(out.f.size(), expected.size());
    for (size_t k = 0; k < expected.size(); ++k)
      EXPECT_NEAR(out.f[k], expected[k], 1e-5) << "hidden " << hidden;
  }
}

TEST(BuilderTest, Gelu) {
  GraphBuilder b;
  Value x = b.parameter("x", v1::DTYPE_F32, {7});
  b.output(b.gelu(x));
  std::vector<double> points = {-3, -1, -0.5, 0, 0.5, 1, 3};
  Literal out = runOne(b, {makeLiteral(v1::DTYPE_F32, {7}, points)});
  ASSERT_EQ(out.f.size(), 7u);
  for (size_t k = 0; k < points.size(); ++k) {
    double p = points[k];
    EXPECT_NEAR(out.f[k], 0.5 * p * (1 + std::erf(p / std::sqrt(2.0))), 1e-6)
        << p;
  }
  // Known values: gelu(1) = 0.8413447, gelu(-1) = -0.1586553.
  EXPECT_NEAR(out.f[5], 0.8413447, 1e-6);
  EXPECT_NEAR(out.f[1], -0.1586553, 1e-6);
}

/// Multi-head attention on [batch, seq, hidden] in double; `mask` is
/// [batch, seq] added to every head's scores (or empty).
std::vector<double> attentionReference(const Literal &q, const Literal &k,
                                       const Literal &v,
                                       const std::vector<double> &mask,
                                       int heads) {
  int batch = q.shape[0], seq = q.shape[1], hidden = q.shape[2];
  int d = hidden / heads;
  std::vector<double> out(q.f.size());
  auto at = [&](int b, int s, int h, int e) {
    return (b * seq + s) * hidden + h * d + e;
  };
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h)
      for (int s = 0; s < seq; ++s) {
        std::vector<double> scores(seq);
        double m = -INFINITY;
        for (int t = 0; t < seq; ++t) {
          double dot = 0;
          for (int e = 0; e < d; ++e)
            dot += q.f[at(b, s, h, e)] * k.f[at(b, t, h, e)];
          scores[t] = dot / std::sqrt(double(d)) +
                      (mask.empty() ? 0.0 : mask[b * seq + t]);
          m = std::max(m, scores[t]);
        }
        double sum = 0;
        for (int t = 0; t < seq; ++t)
          sum += scores[t] = std::exp(scores[t] - m);
        for (int e = 0; e < d; ++e) {
          double acc = 0;
          for (int t = 0; t < seq; ++t)
            acc += scores[t] / sum * v.f[at(b, t, h, e)];
          out[at(b, s, h, e)] = acc;
        }
      }
  return out;
}

TEST(BuilderTest, AttentionTwoHeads) {
  GraphBuilder b;
  Value q = b.parameter("q", v1::DTYPE_F32, {1, 3, 4});
  Value k = b.parameter("k", v1::DTYPE_F32, {1, 3, 4});
  Value v = b.parameter("v", v1::DTYPE_F32, {1, 3, 4});
  Value y = b.attention(q, k, v, Value(), 2);
  ASSERT_TRUE(y.isValid()) << b.status().toString();
  EXPECT_EQ(b.typeString(y), "f32[1, 3, 4]");
  b.output(y);
  Literal qv = randomF32({1, 3, 4}, 61, 2.0),
          kv = randomF32({1, 3, 4}, 62, 2.0), vv = randomF32({1, 3, 4}, 63);
  Literal out = runOne(b, {qv, kv, vv});
  std::vector<double> expected = attentionReference(qv, kv, vv, {}, 2);
  ASSERT_EQ(out.f.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(out.f[i], expected[i], 1e-5) << i;
  // Per head, so not the same as one head over all 4 features.
  std::vector<double> oneHead = attentionReference(qv, kv, vv, {}, 1);
  double difference = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    difference = std::max(difference, std::fabs(oneHead[i] - expected[i]));
  EXPECT_GT(difference, 1e-3);
}

TEST(BuilderTest, AttentionWithMaskAndSymbolicShapes) {
  GraphBuilder b;
  Value q = b.parameter("q", v1::DTYPE_F32, {"batch", "seq", 4});
  Value k = b.parameter("k", v1::DTYPE_F32, {"batch", "seq", 4});
  Value v = b.parameter("v", v1::DTYPE_F32, {"batch", "seq", 4});
  Value mask = b.parameter("mask", v1::DTYPE_F32, {"batch", 1, 1, "seq"});
  Value y = b.attention(q, k, v, mask, 2);
  ASSERT_TRUE(y.isValid()) << b.status().toString();
  EXPECT_EQ(b.typeString(y), "f32[batch, seq, 4]");
  b.output(y);
  // batch 2, seq 3; batch 1 masks out its last position.
  Literal qv = randomF32({2, 3, 4}, 71), kv = randomF32({2, 3, 4}, 72),
          vv = randomF32({2, 3, 4}, 73);
  std::vector<double> maskValues = {0, 0, 0, 0, 0, -1e9};
  Literal mv = makeLiteral(v1::DTYPE_F32, {2, 1, 1, 3}, maskValues);
  Literal out = runOne(b, {qv, kv, vv, mv});
  std::vector<double> expected = attentionReference(qv, kv, vv, maskValues, 2);
  ASSERT_EQ(out.f.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(out.f[i], expected[i], 1e-5) << i;
}

TEST(BuilderTest, AttentionRejectsIndivisibleHidden) {
  GraphBuilder b;
  Value q = b.parameter("q", v1::DTYPE_F32, {1, 3, 5});
  EXPECT_FALSE(b.attention(q, q, q, Value(), 2).isValid());
  EXPECT_TRUE(failsWith(b.status(), {"divisible by heads", "f32[1, 3, 5]"}));
}

TEST(BuilderTest, SourcesAndStructuralOps) {
  GraphBuilder b;
  Value x = b.parameter("x", v1::DTYPE_F32, {"n"});
  Value positions = b.iota(v1::DTYPE_I32, {"n"}, 0);
  EXPECT_EQ(b.typeString(positions), "i32[n]");
  Value table = b.seededUniform(v1::DTYPE_F32, {4, 2}, 5, -1, 1);
  Value rows = b.gather(table, positions, 0);
  EXPECT_EQ(b.typeString(rows), "f32[n, 2]");
  Value padded = b.pad(x, b.scalar(-1.0), {1}, {0});
  EXPECT_EQ(b.typeString(padded), "f32[n + 1]");
  Value joined = b.concatenate({x, padded}, 0);
  EXPECT_EQ(b.typeString(joined), "f32[2*n + 1]");
  Value count = b.dimSize(joined, 0);
  EXPECT_EQ(b.typeString(count), "i64[]");
  EXPECT_EQ(b.dtype(count), v1::DTYPE_I64);
  b.output(joined);
  b.output(count);
  b.output(rows);
  std::vector<Literal> out = run(b, {makeLiteral(v1::DTYPE_F32, {2}, {5, 6})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(valuesNear(out[0], v1::DTYPE_F32, {5}, {5, 6, -1, 5, 6}));
  EXPECT_TRUE(valuesNear(out[1], v1::DTYPE_I64, {}, {5}));
  ASSERT_EQ(out[2].shape, (std::vector<int64_t>{2, 2}));
  // Rows 0 and 1 of the seeded table.
  for (int k = 0; k < 4; ++k)
    EXPECT_FLOAT_EQ(out[2].f[k], -1 + 2 * seededUnit(5, k));
}

} // namespace
} // namespace anyshape

// Tests of the reference evaluator's shape-changing ops, gather,
// reductions, contractions and dim_size: small inputs checked against
// values computed by hand or by a plain loop written in the test, including
// size-1 broadcasting, strides, symbolic slice bounds, negative and
// interior padding, index clamping, empty reductions and integer
// wraparound.
#include "EvaluatorOpsHelpers.h"

namespace anyshape {
namespace {

using namespace evaltest;

TEST(EvaluatorOpsTest, BroadcastInDimMapsOperandDims) {
  Literal x = f32({3}, {1, 2, 3});
  EXPECT_TRUE(valuesNear(
      apply("broadcast_in_dim", {x}, broadcastAttrs({"2", "3"}, {1})),
      v1::DTYPE_F32, {2, 3}, {1, 2, 3, 1, 2, 3}));
  EXPECT_TRUE(valuesNear(
      apply("broadcast_in_dim", {x}, broadcastAttrs({"3", "2"}, {0})),
      v1::DTYPE_F32, {3, 2}, {1, 1, 2, 2, 3, 3}));
  // A transposing mapping.
  EXPECT_TRUE(
      valuesNear(apply("broadcast_in_dim", {i32({2, 3}, {1, 2, 3, 4, 5, 6})},
                       broadcastAttrs({"3", "2"}, {1, 0})),
                 v1::DTYPE_I32, {3, 2}, {1, 4, 2, 5, 3, 6}));
}

TEST(EvaluatorOpsTest, BroadcastInDimExpandsSizeOneDims) {
  EXPECT_TRUE(valuesNear(apply("broadcast_in_dim", {f32({2, 1}, {5, 6})},
                               broadcastAttrs({"2", "3"}, {0, 1})),
                         v1::DTYPE_F32, {2, 3}, {5, 5, 5, 6, 6, 6}));
  EXPECT_TRUE(valuesNear(apply("broadcast_in_dim", {boolean({}, {1})},
                               broadcastAttrs({"2", "2"}, {})),
                         v1::DTYPE_BOOL, {2, 2}, {1, 1, 1, 1}));
  // A non-1 dim that does not match is an error at evaluation.
  EXPECT_TRUE(failsWith(applyError("broadcast_in_dim", {f32({2}, {1, 2})},
                                   broadcastAttrs({"3"}, {0})),
                        {"node 'y'"}));
}

TEST(EvaluatorOpsTest, Reshape) {
  Literal x = i32({2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_TRUE(valuesNear(
      apply("reshape", {x}, "reshape { " + dimsText({"3", "2"}, "shape") + "}"),
      v1::DTYPE_I32, {3, 2}, {0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(
      valuesNear(apply("reshape", {x},
                       "reshape { " + dimsText({"-1", "2"}, "shape") + "}"),
                 v1::DTYPE_I32, {3, 2}, {0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(
      valuesNear(apply("reshape", {x},
                       "reshape { " + dimsText({"1", "-1"}, "shape") + "}"),
                 v1::DTYPE_I32, {1, 6}, {0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(valuesNear(apply("reshape", {f32({1, 1}, {7})}, "reshape { }"),
                         v1::DTYPE_F32, {}, {7}));
}

TEST(EvaluatorOpsTest, Transpose) {
  EXPECT_TRUE(valuesNear(apply("transpose", {i32({2, 3}, {0, 1, 2, 3, 4, 5})},
                               "transpose { permutation: 1 permutation: 0 }"),
                         v1::DTYPE_I32, {3, 2}, {0, 3, 1, 4, 2, 5}));

  // Rank 3, permutation [2, 0, 1]: out[k][i][j] = x[i][j][k].
  std::vector<double> values(24);
  for (int k = 0; k < 24; ++k)
    values[k] = k;
  Literal out = apply("transpose", {f32({2, 3, 4}, values)},
                      "transpose { permutation: 2 permutation: 0 "
                      "permutation: 1 }");
  ASSERT_EQ(out.shape, (std::vector<int64_t>{4, 2, 3}));
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(out.f[(k * 2 + i) * 3 + j], (i * 3 + j) * 4 + k);
}

TEST(EvaluatorOpsTest, SliceWithStrides) {
  std::vector<double> ten = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_TRUE(valuesNear(
      apply("slice", {f32({10}, ten)}, test::sliceText({"1"}, {"8"}, {3})),
      v1::DTYPE_F32, {3}, {1, 4, 7}));
  EXPECT_TRUE(valuesNear(
      apply("slice", {f32({10}, ten)}, test::sliceText({"2"}, {"4"})),
      v1::DTYPE_F32, {2}, {2, 3}));
  // Rows 1..2, every other column.
  EXPECT_TRUE(valuesNear(
      apply("slice", {i32({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})},
            test::sliceText({"1", "0"}, {"3", "4"}, {1, 2})),
      v1::DTYPE_I32, {2, 2}, {4, 6, 8, 10}));
  // Empty slices.
  EXPECT_TRUE(valuesNear(
      apply("slice", {f32({10}, ten)}, test::sliceText({"5"}, {"5"}, {2})),
      v1::DTYPE_F32, {0}, {}));
}

TEST(EvaluatorOpsTest, SliceSymbolicBounds) {
  v1::Graph g =
      test::parseGraph(test::inputText("x", "f32", {"seq"}) +
                       test::nodeText("inner", "slice", {"x"},
                                      test::sliceText({"1"}, {"seq - 1"})) +
                       test::nodeText("tail", "slice", {"x"},
                                      test::sliceText({"seq - 2"}, {"seq"})) +
                       test::outputText("inner") + test::outputText("tail"));
  auto info = validateGraph(g);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  EXPECT_EQ(info->nodeTypes[0].toString(), "f32[seq - 2]");
  EXPECT_EQ(info->nodeTypes[1].toString(), "f32[2]");

  std::vector<Literal> out = test::evaluate(g, {f32({5}, {0, 1, 2, 3, 4})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(valuesNear(out[0], v1::DTYPE_F32, {3}, {1, 2, 3}));
  EXPECT_TRUE(valuesNear(out[1], v1::DTYPE_F32, {2}, {3, 4}));
  out = test::evaluate(g, {f32({2}, {7, 8})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(valuesNear(out[0], v1::DTYPE_F32, {0}, {}));
  EXPECT_TRUE(valuesNear(out[1], v1::DTYPE_F32, {2}, {7, 8}));
  // seq = 1: the inner slice would start after its limit.
  EXPECT_TRUE(failsWith(evaluateGraph(g, {f32({1}, {7})}).status(),
                        {"node 'inner'", "exceeds limit"}));
}

TEST(EvaluatorOpsTest, Concatenate) {
  EXPECT_TRUE(valuesNear(apply("concatenate",
                               {f32({2, 1}, {1, 2}), f32({2, 2}, {3, 4, 5, 6})},
                               "concatenate { dimension: 1 }"),
                         v1::DTYPE_F32, {2, 3}, {1, 3, 4, 2, 5, 6}));
  EXPECT_TRUE(valuesNear(
      apply("concatenate",
            {i64({1, 2}, {1, 2}), i64({0, 2}, {}), i64({2, 2}, {3, 4, 5, 6})},
            "concatenate { dimension: 0 }"),
      v1::DTYPE_I64, {3, 2}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(valuesNear(apply("concatenate", {boolean({2}, {1, 0})},
                               "concatenate { dimension: 0 }"),
                         v1::DTYPE_BOOL, {2}, {1, 0}));
}

TEST(EvaluatorOpsTest, PadNegativeLowAndInterior) {
  // Interior 1: [1 0 2 0 3]; low -1 crops the 1; high 2 appends two 0s.
  EXPECT_TRUE(
      valuesNear(apply("pad", {f32({3}, {1, 2, 3}), f32({}, {0})},
                       "pad { edge_padding_low: -1 edge_padding_high: 2 "
                       "interior_padding: 1 }"),
                 v1::DTYPE_F32, {6}, {0, 2, 0, 3, 0, 0}));
  // 2D: one row of padding on top, last column cropped.
  EXPECT_TRUE(valuesNear(apply("pad", {i32({2, 2}, {1, 2, 3, 4}), i32({}, {9})},
                               "pad { edge_padding_low: 1 edge_padding_low: 0 "
                               "edge_padding_high: 0 edge_padding_high: -1 }"),
                         v1::DTYPE_I32, {3, 1}, {9, 1, 3}));
  // Interior and edges together, no cropping.
  EXPECT_TRUE(valuesNear(apply("pad", {f32({2}, {1, 2}), f32({}, {-1})},
                               "pad { edge_padding_low: 1 edge_padding_high: 1 "
                               "interior_padding: 2 }"),
                         v1::DTYPE_F32, {6}, {-1, 1, -1, -1, 2, -1}));
}

TEST(EvaluatorOpsTest, GatherClampsIndices) {
  // Rows of 10*r + c; -5 clamps to row 0, 7 to row 3.
  Literal operand = f32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  EXPECT_TRUE(valuesNear(
      apply("gather", {operand, i32({3}, {2, -5, 7})}, "gather { axis: 0 }"),
      v1::DTYPE_F32, {3, 2}, {20, 21, 0, 1, 30, 31}));
  // i64 indices of rank 2.
  EXPECT_TRUE(valuesNear(apply("gather", {operand, i64({2, 2}, {1, 0, 3, 100})},
                               "gather { axis: 0 }"),
                         v1::DTYPE_F32, {2, 2, 2},
                         {10, 11, 0, 1, 30, 31, 30, 31}));
  // Along axis 1.
  EXPECT_TRUE(valuesNear(
      apply("gather", {i32({2, 3}, {0, 1, 2, 3, 4, 5}), i64({2}, {2, 0})},
            "gather { axis: 1 }"),
      v1::DTYPE_I32, {2, 2}, {2, 0, 5, 3}));
  // Scalar index drops the axis.
  EXPECT_TRUE(
      valuesNear(apply("gather", {operand, i32({}, {1})}, "gather { axis: 0 }"),
                 v1::DTYPE_F32, {2}, {10, 11}));
}

TEST(EvaluatorOpsTest, GatherFromEmptyAxis) {
  // No rows to clamp to: an error, unless nothing is gathered.
  EXPECT_TRUE(failsWith(applyError("gather", {f32({0, 2}, {}), i32({1}, {0})},
                                   "gather { axis: 0 }"),
                        {"node 'y'", "empty"}));
  EXPECT_TRUE(valuesNear(
      apply("gather", {f32({0, 2}, {}), i32({0}, {})}, "gather { axis: 0 }"),
      v1::DTYPE_F32, {0, 2}, {}));
}

TEST(EvaluatorOpsTest, ReduceSumMaxMinProd) {
  Literal x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(valuesNear(apply("reduce", {x}, reduceAttrs("REDUCE_SUM", {1})),
                         v1::DTYPE_F32, {2}, {6, 15}));
  EXPECT_TRUE(valuesNear(apply("reduce", {x}, reduceAttrs("REDUCE_MAX", {0})),
                         v1::DTYPE_F32, {3}, {4, 5, 6}));
  EXPECT_TRUE(
      valuesNear(apply("reduce", {x}, reduceAttrs("REDUCE_MIN", {0, 1})),
                 v1::DTYPE_F32, {}, {1}));
  EXPECT_TRUE(valuesNear(apply("reduce", {x}, reduceAttrs("REDUCE_PROD", {1})),
                         v1::DTYPE_F32, {2}, {6, 120}));
  // Non-adjacent dims of a rank-3 operand: sum over 0 and 2.
  EXPECT_TRUE(
      valuesNear(apply("reduce", {i64({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})},
                       reduceAttrs("REDUCE_SUM", {0, 2})),
                 v1::DTYPE_I64, {2}, {10, 18}));
  // No dims: the identity.
  EXPECT_TRUE(valuesNear(apply("reduce", {x}, reduceAttrs("REDUCE_SUM", {})),
                         v1::DTYPE_F32, {2, 3}, {1, 2, 3, 4, 5, 6}));
}

TEST(EvaluatorOpsTest, ReduceIntegerWraparound) {
  EXPECT_TRUE(valuesNear(apply("reduce", {i32({3}, {kI32Max, 1, 1})},
                               reduceAttrs("REDUCE_SUM", {0})),
                         v1::DTYPE_I32, {}, {kI32Min + 1}));
  EXPECT_TRUE(valuesNear(apply("reduce", {i32({2}, {65536, 65536})},
                               reduceAttrs("REDUCE_PROD", {0})),
                         v1::DTYPE_I32, {}, {0}));
  EXPECT_TRUE(valuesNear(
      apply("reduce", {i32({3}, {-7, 3, -9})}, reduceAttrs("REDUCE_MAX", {0})),
      v1::DTYPE_I32, {}, {3}));
}

TEST(EvaluatorOpsTest, ReduceEmptyDimGivesInitValue) {
  Literal empty = f32({0}, {});
  EXPECT_TRUE(
      valuesNear(apply("reduce", {empty}, reduceAttrs("REDUCE_SUM", {0})),
                 v1::DTYPE_F32, {}, {0}));
  EXPECT_TRUE(
      valuesNear(apply("reduce", {empty}, reduceAttrs("REDUCE_MAX", {0})),
                 v1::DTYPE_F32, {}, {-kInf}));
  EXPECT_TRUE(
      valuesNear(apply("reduce", {empty}, reduceAttrs("REDUCE_MIN", {0})),
                 v1::DTYPE_F32, {}, {kInf}));
  EXPECT_TRUE(
      valuesNear(apply("reduce", {empty}, reduceAttrs("REDUCE_PROD", {0})),
                 v1::DTYPE_F32, {}, {1}));
  EXPECT_TRUE(valuesNear(
      apply("reduce", {f32({2, 0}, {})}, reduceAttrs("REDUCE_SUM", {1})),
      v1::DTYPE_F32, {2}, {0, 0}));
  // Integers start from the dtype's extremes.
  EXPECT_TRUE(valuesNear(
      apply("reduce", {i32({0}, {})}, reduceAttrs("REDUCE_MAX", {0})),
      v1::DTYPE_I32, {}, {kI32Min}));
  Literal minI64 =
      apply("reduce", {i64({0}, {})}, reduceAttrs("REDUCE_MIN", {0}));
  EXPECT_EQ(minI64.i, std::vector<int64_t>{kI64Max});
}

TEST(EvaluatorOpsTest, ReduceMaxMinPropagateNaN) {
  Literal x = f32({2, 2}, {1, kNaN, 3, 4});
  EXPECT_TRUE(valuesNear(apply("reduce", {x}, reduceAttrs("REDUCE_MAX", {1})),
                         v1::DTYPE_F32, {2}, {kNaN, 4}));
  EXPECT_TRUE(valuesNear(apply("reduce", {x}, reduceAttrs("REDUCE_MIN", {1})),
                         v1::DTYPE_F32, {2}, {kNaN, 3}));
}

TEST(EvaluatorOpsTest, ReduceF16RoundsOnlyAtTheEnd) {
  // Accumulating in double then rounding once: 2048 + 1 + 2^-24 is just
  // above the 2049 tie, so it rounds up to 2050.
  EXPECT_TRUE(
      valuesNear(apply("reduce", {f16({3}, {2048, 1, 5.9604644775390625e-8})},
                       reduceAttrs("REDUCE_SUM", {0})),
                 v1::DTYPE_F16, {}, {2050}));
  // The same for bf16 at 257 + 2^-30.
  EXPECT_TRUE(
      valuesNear(apply("reduce", {bf16({3}, {256, 1, std::ldexp(1.0, -30)})},
                       reduceAttrs("REDUCE_SUM", {0})),
                 v1::DTYPE_BF16, {}, {258}));
}

std::string dotAttrs(const std::vector<int64_t> &lb,
                     const std::vector<int64_t> &rb,
                     const std::vector<int64_t> &lc,
                     const std::vector<int64_t> &rc) {
  std::string out = "dot_general { ";
  for (int64_t d : lb)
    out += "lhs_batch_dimensions: " + std::to_string(d) + " ";
  for (int64_t d : rb)
    out += "rhs_batch_dimensions: " + std::to_string(d) + " ";
  for (int64_t d : lc)
    out += "lhs_contracting_dimensions: " + std::to_string(d) + " ";
  for (int64_t d : rc)
    out += "rhs_contracting_dimensions: " + std::to_string(d) + " ";
  return out + "}";
}

TEST(EvaluatorOpsTest, DotGeneralMatmul) {
  Literal a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Literal b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  EXPECT_TRUE(
      valuesNear(apply("dot_general", {a, b}, dotAttrs({}, {}, {1}, {0})),
                 v1::DTYPE_F32, {2, 2}, {58, 64, 139, 154}));
  // Contracting lhs dim 0 with rhs dim 1: a^T b^T = (b a)^T.
  EXPECT_TRUE(
      valuesNear(apply("dot_general", {a, b}, dotAttrs({}, {}, {0}, {1})),
                 v1::DTYPE_F32, {3, 3}, {39, 49, 59, 54, 68, 82, 69, 87, 105}));
  // No contraction: the outer product.
  EXPECT_TRUE(valuesNear(apply("dot_general",
                               {f32({2}, {1, 2}), f32({3}, {1, 10, 100})},
                               dotAttrs({}, {}, {}, {})),
                         v1::DTYPE_F32, {2, 3}, {1, 10, 100, 2, 20, 200}));
}

TEST(EvaluatorOpsTest, DotGeneralBatchAndLeadingContractingDims) {
  // lhs [batch 2, contract 3, free 2]; rhs [free 2, contract 3, batch 2].
  // out[p][i][j] = sum_c lhs[p][c][i] * rhs[j][c][p].
  std::vector<double> lv(12), rv(12);
  for (int k = 0; k < 12; ++k) {
    lv[k] = k - 5;
    rv[k] = (k * 7) % 5 - 2;
  }
  Literal out = apply("dot_general", {f32({2, 3, 2}, lv), f32({2, 3, 2}, rv)},
                      dotAttrs({0}, {2}, {1}, {1}));
  ASSERT_EQ(out.shape, (std::vector<int64_t>{2, 2, 2}));
  for (int p = 0; p < 2; ++p)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        double sum = 0;
        for (int c = 0; c < 3; ++c)
          sum += lv[(p * 3 + c) * 2 + i] * rv[(j * 3 + c) * 2 + p];
        EXPECT_EQ(out.f[(p * 2 + i) * 2 + j], sum) << p << i << j;
      }
  // One element by hand: p=0,i=0,j=0: lhs[0][c][0] = -5,-3,-1;
  // rhs[0][c][0] = rv[0], rv[2], rv[4] = -2, 2, 1 -> 10 - 6 - 1 = 3.
  EXPECT_EQ(out.f[0], 3);
}

TEST(EvaluatorOpsTest, DotGeneralTwoContractingDimsAndIntegers) {
  // sum_{i,j} lhs[i][j] * rhs[j][i] (lhs dims 0,1 paired with rhs dims 1,0).
  EXPECT_TRUE(
      valuesNear(apply("dot_general",
                       {i32({2, 2}, {1, 2, 3, 4}), i32({2, 2}, {5, 6, 7, 8})},
                       dotAttrs({}, {}, {0, 1}, {1, 0})),
                 v1::DTYPE_I32, {}, {1 * 5 + 2 * 7 + 3 * 6 + 4 * 8}));
  // i32 accumulation wraps: 2 * 2^16 * 2^16 = 2^33 -> 0.
  EXPECT_TRUE(valuesNear(
      apply("dot_general",
            {i32({1, 2}, {65536, 65536}), i32({2, 1}, {65536, 65536})},
            dotAttrs({}, {}, {1}, {0})),
      v1::DTYPE_I32, {1, 1}, {0}));
  // Empty contraction gives zeros.
  EXPECT_TRUE(
      valuesNear(apply("dot_general", {f32({2, 0}, {}), f32({0, 1}, {})},
                       dotAttrs({}, {}, {1}, {0})),
                 v1::DTYPE_F32, {2, 1}, {0, 0}));
}

TEST(EvaluatorOpsTest, DimSize) {
  v1::Graph g = test::parseGraph(
      test::inputText("x", "f32", {"batch", "3"}) +
      test::nodeText("d0", "dim_size", {"x"}, "dim_size { dimension: 0 }") +
      test::nodeText("d1", "dim_size", {"x"}, "dim_size { dimension: 1 }") +
      test::outputText("d0") + test::outputText("d1"));
  std::vector<Literal> out =
      test::evaluate(g, {f32({4, 3}, std::vector<double>(12, 0.0))});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(valuesNear(out[0], v1::DTYPE_I64, {}, {4}));
  EXPECT_TRUE(valuesNear(out[1], v1::DTYPE_I64, {}, {3}));
  out = test::evaluate(g, {f32({0, 3}, {})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(valuesNear(out[0], v1::DTYPE_I64, {}, {0}));
}

} // namespace
} // namespace anyshape

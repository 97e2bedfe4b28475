// Tests of the reference evaluator, op by op: sources, unary, conversion
// and binary ops (shape-changing ops, reductions and contractions are in
// EvaluatorShapeOpsTest.cpp) on small inputs, checked against values
// computed by hand. Edge cases are covered where the semantics are most likely
// to go wrong: integer wraparound, division by zero, negative exponents, NaN in
// max/min/compare, float-to-int saturation, f16/bf16 rounding (ties to
// even, overflow to infinity), index clamping in gather, negative and
// interior padding, zero-sized dims and the init values of empty reductions.
#include "EvaluatorOpsHelpers.h"

#include <cstring>
#include <vector>

namespace anyshape {
namespace {

using namespace evaltest;
// ---- sources ---------------------------------------------------------------

TEST(EvaluatorOpsTest, ConstantDataF32I32I64) {
  v1::ConstantAttrs f = constantAttrs(v1::DTYPE_F32, {2, 2});
  f.set_data(bytesOf<float>({1.5f, -2.0f, 0.25f, 3e38f}));
  EXPECT_TRUE(valuesNear(evalConstant(f), v1::DTYPE_F32, {2, 2},
                         {1.5, -2, 0.25, 3e38}));

  v1::ConstantAttrs i = constantAttrs(v1::DTYPE_I32, {3});
  i.set_data(bytesOf<int32_t>({7, -1, 2147483647}));
  EXPECT_TRUE(
      valuesNear(evalConstant(i), v1::DTYPE_I32, {3}, {7, -1, 2147483647}));

  // i64 beyond 2^53 survives exactly.
  int64_t big = (int64_t(1) << 62) + 1;
  v1::ConstantAttrs l = constantAttrs(v1::DTYPE_I64, {2});
  l.set_data(bytesOf<int64_t>({big, -5}));
  Literal out = evalConstant(l);
  EXPECT_EQ(out.dtype, v1::DTYPE_I64);
  EXPECT_EQ(out.i, (std::vector<int64_t>{big, -5}));
}

TEST(EvaluatorOpsTest, ConstantDataF16BF16Bool) {
  v1::ConstantAttrs h = constantAttrs(v1::DTYPE_F16, {5});
  h.set_data(bytesOf<uint16_t>({0x3C00, 0xC000, 0x7BFF, 0x0001, 0x7C00}));
  EXPECT_TRUE(valuesNear(evalConstant(h), v1::DTYPE_F16, {5},
                         {1, -2, 65504, 5.9604644775390625e-8, kInf}));

  v1::ConstantAttrs b = constantAttrs(v1::DTYPE_BF16, {3});
  b.set_data(bytesOf<uint16_t>({0x3F80, 0x4049, 0xC2F7}));
  EXPECT_TRUE(
      valuesNear(evalConstant(b), v1::DTYPE_BF16, {3}, {1, 3.140625, -123.5}));

  // Any nonzero byte is true.
  v1::ConstantAttrs p = constantAttrs(v1::DTYPE_BOOL, {3});
  p.set_data(std::string("\0\1\2", 3));
  EXPECT_TRUE(valuesNear(evalConstant(p), v1::DTYPE_BOOL, {3}, {0, 1, 1}));
}

TEST(EvaluatorOpsTest, ConstantSplat) {
  v1::ConstantAttrs f = constantAttrs(v1::DTYPE_F32, {2, 3});
  f.set_splat(2.5);
  EXPECT_TRUE(valuesNear(evalConstant(f), v1::DTYPE_F32, {2, 3},
                         {2.5, 2.5, 2.5, 2.5, 2.5, 2.5}));

  // Integer splats truncate toward zero and saturate.
  v1::ConstantAttrs i = constantAttrs(v1::DTYPE_I32, {3});
  i.set_splat(-3.7);
  EXPECT_TRUE(valuesNear(evalConstant(i), v1::DTYPE_I32, {3}, {-3, -3, -3}));
  i.set_splat(3e10);
  EXPECT_TRUE(valuesNear(evalConstant(i), v1::DTYPE_I32, {3},
                         {kI32Max, kI32Max, kI32Max}));

  v1::ConstantAttrs p = constantAttrs(v1::DTYPE_BOOL, {2});
  p.set_splat(0.25);
  EXPECT_TRUE(valuesNear(evalConstant(p), v1::DTYPE_BOOL, {2}, {1, 1}));

  // 0.1 rounds to the nearest f16 and bf16.
  v1::ConstantAttrs h = constantAttrs(v1::DTYPE_F16, {});
  h.set_splat(0.1);
  EXPECT_TRUE(
      valuesNear(evalConstant(h), v1::DTYPE_F16, {}, {0.0999755859375}));
  v1::ConstantAttrs b = constantAttrs(v1::DTYPE_BF16, {});
  b.set_splat(0.1);
  EXPECT_TRUE(valuesNear(evalConstant(b), v1::DTYPE_BF16, {}, {0.10009765625}));

  // Rounded once: 2049.0000001 is above the f16 tie at 2049 (a cast to f32
  // first would land on the tie and round to even, 2048).
  h.set_splat(2049.0000001);
  EXPECT_TRUE(valuesNear(evalConstant(h), v1::DTYPE_F16, {}, {2050}));
  b.set_splat(257.0000001);
  EXPECT_TRUE(valuesNear(evalConstant(b), v1::DTYPE_BF16, {}, {258}));

  v1::ConstantAttrs empty = constantAttrs(v1::DTYPE_F32, {0, 4});
  empty.set_splat(1.0);
  EXPECT_TRUE(valuesNear(evalConstant(empty), v1::DTYPE_F32, {0, 4}, {}));
}

TEST(EvaluatorOpsTest, ConstantSeededUniform) {
  for (uint64_t i : {0, 1, 2, 1000})
    EXPECT_EQ(seededUnit(42, i), splitMixUnit(42, i));

  v1::ConstantAttrs f = constantAttrs(v1::DTYPE_F32, {8});
  f.mutable_seeded_uniform()->set_seed(42);
  f.mutable_seeded_uniform()->set_low(-2);
  f.mutable_seeded_uniform()->set_high(3);
  Literal fv = evalConstant(f);
  std::vector<double> expected;
  for (uint64_t k = 0; k < 8; ++k)
    expected.push_back(-2 + 5 * splitMixUnit(42, k));
  EXPECT_TRUE(valuesNear(fv, v1::DTYPE_F32, {8}, expected));
  for (double v : fv.f) { // [low, high]: rounding may reach high
    EXPECT_GE(v, -2);
    EXPECT_LE(v, 3);
  }

  // Integers round toward negative infinity.
  v1::ConstantAttrs i = constantAttrs(v1::DTYPE_I32, {16});
  i.mutable_seeded_uniform()->set_seed(7);
  i.mutable_seeded_uniform()->set_low(-5);
  i.mutable_seeded_uniform()->set_high(5);
  Literal iv = evalConstant(i);
  bool sawNegative = false;
  for (uint64_t k = 0; k < 16; ++k) {
    EXPECT_EQ(iv.i[k],
              static_cast<int64_t>(std::floor(-5 + 10 * splitMixUnit(7, k))));
    sawNegative |= iv.i[k] < 0;
  }
  EXPECT_TRUE(sawNegative); // so flooring (not truncation) was exercised

  v1::ConstantAttrs p = constantAttrs(v1::DTYPE_BOOL, {16});
  p.mutable_seeded_uniform()->set_seed(9);
  Literal pv = evalConstant(p);
  for (uint64_t k = 0; k < 16; ++k)
    EXPECT_EQ(pv.i[k], splitMixUnit(9, k) >= 0.5 ? 1 : 0);

  // Another seed gives other values.
  f.mutable_seeded_uniform()->set_seed(43);
  EXPECT_NE(evalConstant(f).f, fv.f);
}

// A weight-sized fill is generated in parts on several threads: every
// element, across the parts' boundaries, is the formula's, and the
// transposed fill is the plain one transposed. The buffers start as NaN
// bytes, so an element no part wrote fails too.
TEST(EvaluatorOpsTest, SeededFillsInPartsMatchTheFormulaEverywhere) {
  const int64_t count = 3 * (int64_t{1} << 18) + 7; // several parts
  std::vector<float> plain(count);
  std::memset(plain.data(), 0xff, count * sizeof(float));
  fillSeededUniform(5, -0.25, 0.5, v1::DTYPE_F32, count,
                    reinterpret_cast<char *>(plain.data()));
  int64_t wrong = 0;
  for (int64_t k = 0; k < count; ++k)
    wrong += plain[k] != static_cast<float>(-0.25 + 0.75 * splitMixUnit(5, k));
  EXPECT_EQ(wrong, 0);

  std::vector<int32_t> ints(count);
  fillSeededUniform(6, -100, 100, v1::DTYPE_I32, count,
                    reinterpret_cast<char *>(ints.data()));
  wrong = 0;
  for (int64_t k = 0; k < count; ++k)
    wrong += ints[k] !=
             static_cast<int32_t>(std::floor(-100 + 200 * splitMixUnit(6, k)));
  EXPECT_EQ(wrong, 0);

  const int64_t rows = 700, cols = 1100; // 770,000 elements
  std::vector<float> square(rows * cols), transposed(rows * cols);
  std::memset(transposed.data(), 0xff, transposed.size() * sizeof(float));
  fillSeededUniform(8, -1, 1, v1::DTYPE_F32, rows * cols,
                    reinterpret_cast<char *>(square.data()));
  fillSeededUniformTransposed(8, -1, 1, v1::DTYPE_F32, rows, cols,
                              reinterpret_cast<char *>(transposed.data()));
  wrong = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      wrong += transposed[c * rows + r] != square[r * cols + c];
  EXPECT_EQ(wrong, 0);
}

class MapLookup : public TensorLookup {
public:
  std::map<std::string, v1::Tensor> tensors;
  const v1::Tensor *find(const std::string &id) const override {
    auto it = tensors.find(id);
    return it == tensors.end() ? nullptr : &it->second;
  }
};

TEST(EvaluatorOpsTest, ConstantStoredTensor) {
  MapLookup lookup;
  v1::Tensor &t = lookup.tensors["w1"];
  t.set_dtype(v1::DTYPE_F32);
  t.add_shape(2);
  t.set_data(bytesOf<float>({4.0f, -1.0f}));
  EvalOptions options;
  options.tensors = &lookup;

  v1::ConstantAttrs c = constantAttrs(v1::DTYPE_F32, {2});
  c.set_tensor_id("w1");
  EXPECT_TRUE(
      valuesNear(evalConstant(c, options), v1::DTYPE_F32, {2}, {4, -1}));

  c.set_tensor_id("missing");
  auto missing = evaluateGraph(constantGraph(c), {}, options);
  EXPECT_EQ(missing.status().code(), StatusCode::NotFound);
  EXPECT_TRUE(failsWith(missing.status(), {"node 'c'", "'missing'"}));

  // The stored tensor must match the declared dtype and shape.
  v1::ConstantAttrs wrong = constantAttrs(v1::DTYPE_F32, {1, 2});
  wrong.set_tensor_id("w1");
  EXPECT_TRUE(
      failsWith(evaluateGraph(constantGraph(wrong), {}, options).status(),
                {"'w1'", "f32[2]"}));
  // Without a lookup every id is missing.
  EXPECT_FALSE(evaluateGraph(constantGraph(c), {}).isOk());
}

TEST(EvaluatorOpsTest, IotaAlongEachDimension) {
  auto iota = [](const std::string &attrs) {
    return test::evaluateOne(test::parseGraph(
        test::nodeText("y", "iota", {}, attrs) + test::outputText("y")));
  };
  EXPECT_TRUE(valuesNear(
      iota("iota { dtype: DTYPE_I32 shape { size: 2 } shape { size: 3 } "
           "iota_dimension: 1 }"),
      v1::DTYPE_I32, {2, 3}, {0, 1, 2, 0, 1, 2}));
  EXPECT_TRUE(valuesNear(
      iota("iota { dtype: DTYPE_I64 shape { size: 2 } shape { size: 3 } "
           "iota_dimension: 0 }"),
      v1::DTYPE_I64, {2, 3}, {0, 0, 0, 1, 1, 1}));
  EXPECT_TRUE(valuesNear(
      iota("iota { dtype: DTYPE_F32 shape { size: 4 } iota_dimension: 0 }"),
      v1::DTYPE_F32, {4}, {0, 1, 2, 3}));
  // bf16 has 8 significant bits: 257 ties to even (256), 259 to 260.
  Literal big =
      iota("iota { dtype: DTYPE_BF16 shape { size: 260 } iota_dimension: 0 }");
  ASSERT_EQ(big.f.size(), 260u);
  EXPECT_EQ(big.f[255], 255);
  EXPECT_EQ(big.f[256], 256);
  EXPECT_EQ(big.f[257], 256);
  EXPECT_EQ(big.f[258], 258);
  EXPECT_EQ(big.f[259], 260);
}

TEST(EvaluatorOpsTest, IotaSymbolicShape) {
  v1::Graph g =
      test::parseGraph(test::inputText("x", "f32", {"n"}) +
                       test::nodeText("y", "iota", {},
                                      "iota { dtype: DTYPE_I64 " +
                                          dimsText({"n", "2"}, "shape") +
                                          "iota_dimension: 0 }") +
                       test::outputText("y"));
  EXPECT_TRUE(valuesNear(test::evaluateOne(g, {f32({3}, {0, 0, 0})}),
                         v1::DTYPE_I64, {3, 2}, {0, 0, 1, 1, 2, 2}));
  EXPECT_TRUE(valuesNear(test::evaluateOne(g, {f32({0}, {})}), v1::DTYPE_I64,
                         {0, 2}, {}));
}

// ---- unary -----------------------------------------------------------------

TEST(EvaluatorOpsTest, Abs) {
  EXPECT_TRUE(valuesNear(apply("abs", {f32({4}, {-1.5, 2, -0.0, -kInf})}),
                         v1::DTYPE_F32, {4}, {1.5, 2, 0, kInf}));
  // |INT32_MIN| wraps to itself.
  EXPECT_TRUE(valuesNear(apply("abs", {i32({3}, {-3, 4, kI32Min})}),
                         v1::DTYPE_I32, {3}, {3, 4, kI32Min}));
  EXPECT_TRUE(
      valuesNear(apply("abs", {i64({1}, {-9})}), v1::DTYPE_I64, {1}, {9}));
}

TEST(EvaluatorOpsTest, Neg) {
  Literal out = apply("neg", {f32({3}, {1.5, -2, 0})});
  EXPECT_TRUE(valuesNear(out, v1::DTYPE_F32, {3}, {-1.5, 2, 0}));
  EXPECT_TRUE(std::signbit(out.f[2])); // -0
  EXPECT_TRUE(valuesNear(apply("neg", {i32({2}, {5, kI32Min})}), v1::DTYPE_I32,
                         {2}, {-5, kI32Min}));
  Literal wide = apply("neg", {makeIntLiteral(v1::DTYPE_I64, {1}, {kI64Min})});
  EXPECT_EQ(wide.i[0], kI64Min);
}

TEST(EvaluatorOpsTest, Exp) {
  EXPECT_TRUE(valuesNear(apply("exp", {f32({4}, {0, 1, -kInf, 100})}),
                         v1::DTYPE_F32, {4}, {1, 2.718281828, 0, kInf}, 1e-7));
  // f16 rounds once: e -> 2.71875.
  EXPECT_TRUE(
      valuesNear(apply("exp", {f16({1}, {1})}), v1::DTYPE_F16, {1}, {2.71875}));
}

TEST(EvaluatorOpsTest, Log) {
  EXPECT_TRUE(valuesNear(apply("log", {f32({4}, {1, 7.389056, 0, -1})}),
                         v1::DTYPE_F32, {4}, {0, 2, -kInf, kNaN}, 1e-6));
}

TEST(EvaluatorOpsTest, Tanh) {
  EXPECT_TRUE(valuesNear(apply("tanh", {f32({4}, {0, 0.5, 20, -kInf})}),
                         v1::DTYPE_F32, {4}, {0, 0.46211715726, 1, -1}, 1e-7));
}

TEST(EvaluatorOpsTest, Logistic) {
  EXPECT_TRUE(
      valuesNear(apply("logistic", {f32({5}, {0, 2, -kInf, kInf, -800})}),
                 v1::DTYPE_F32, {5}, {0.5, 0.88079707798, 0, 1, 0}, 1e-7));
}

TEST(EvaluatorOpsTest, Sqrt) {
  EXPECT_TRUE(valuesNear(apply("sqrt", {f32({5}, {4, 2, 0, -1, kInf})}),
                         v1::DTYPE_F32, {5}, {2, 1.41421356, 0, kNaN, kInf},
                         1e-7));
  // bf16: sqrt(2) rounds to 1.4140625.
  EXPECT_TRUE(valuesNear(apply("sqrt", {bf16({1}, {2})}), v1::DTYPE_BF16, {1},
                         {1.4140625}));
}

TEST(EvaluatorOpsTest, Rsqrt) {
  EXPECT_TRUE(valuesNear(apply("rsqrt", {f32({5}, {4, 0.25, 0, -0.0, -4})}),
                         v1::DTYPE_F32, {5}, {0.5, 2, kInf, -kInf, kNaN}));
}

TEST(EvaluatorOpsTest, Erf) {
  EXPECT_TRUE(valuesNear(apply("erf", {f32({4}, {0, 1, -0.5, kInf})}),
                         v1::DTYPE_F32, {4},
                         {0, 0.84270079295, -0.52049987781, 1}, 1e-7));
}

TEST(EvaluatorOpsTest, SinCos) {
  EXPECT_TRUE(valuesNear(apply("sin", {f32({3}, {0, M_PI / 2, -M_PI / 6})}),
                         v1::DTYPE_F32, {3}, {0, 1, -0.5}, 1e-6));
  EXPECT_TRUE(valuesNear(apply("cos", {f32({3}, {0, M_PI, M_PI / 3})}),
                         v1::DTYPE_F32, {3}, {1, -1, 0.5}, 1e-6));
}

TEST(EvaluatorOpsTest, FloorCeil) {
  Literal floor = apply("floor", {f32({4}, {-1.5, 2.7, -0.0, 3})});
  EXPECT_TRUE(valuesNear(floor, v1::DTYPE_F32, {4}, {-2, 2, 0, 3}));
  EXPECT_TRUE(std::signbit(floor.f[2]));
  Literal ceil = apply("ceil", {f32({4}, {-1.5, 2.1, 3, -0.2})});
  EXPECT_TRUE(valuesNear(ceil, v1::DTYPE_F32, {4}, {-1, 3, 3, 0}));
  EXPECT_TRUE(std::signbit(ceil.f[3])); // ceil(-0.2) is -0
}

TEST(EvaluatorOpsTest, NotBoolAndInteger) {
  EXPECT_TRUE(valuesNear(apply("not", {boolean({2}, {0, 1})}), v1::DTYPE_BOOL,
                         {2}, {1, 0}));
  // Bitwise for integers.
  EXPECT_TRUE(valuesNear(apply("not", {i32({3}, {0, 5, -1})}), v1::DTYPE_I32,
                         {3}, {-1, -6, 0}));
  Literal wide = apply("not", {makeIntLiteral(v1::DTYPE_I64, {1}, {kI64Max})});
  EXPECT_EQ(wide.i[0], kI64Min);
}

// ---- convert ---------------------------------------------------------------

std::string convertTo(const char *dtype) {
  return std::string("convert { dtype: ") + dtype + " }";
}

TEST(EvaluatorOpsTest, ConvertFloatToIntTruncatesAndSaturates) {
  EXPECT_TRUE(valuesNear(
      apply("convert",
            {f32({8}, {1.9, -1.9, 3e9, -3e9, kNaN, kInf, -kInf, 2147483520})},
            convertTo("DTYPE_I32")),
      v1::DTYPE_I32, {8},
      {1, -1, kI32Max, kI32Min, 0, kI32Max, kI32Min, 2147483520}));
  Literal wide = apply("convert", {f32({4}, {1e19, -1e19, -7.5, kNaN})},
                       convertTo("DTYPE_I64"));
  EXPECT_EQ(wide.i, (std::vector<int64_t>{kI64Max, kI64Min, -7, 0}));
}

TEST(EvaluatorOpsTest, ConvertToBool) {
  EXPECT_TRUE(valuesNear(
      apply("convert", {i32({3}, {0, 2, -1})}, convertTo("DTYPE_BOOL")),
      v1::DTYPE_BOOL, {3}, {0, 1, 1}));
  EXPECT_TRUE(valuesNear(apply("convert", {f32({4}, {0, 0.5, -0.0, kNaN})},
                               convertTo("DTYPE_BOOL")),
                         v1::DTYPE_BOOL, {4}, {0, 1, 0, 1}));
}

TEST(EvaluatorOpsTest, ConvertF32ToF16RoundsToNearestEven) {
  // 1 + 2^-11 ties to 1; 1 + 3*2^-11 ties to 1 + 2^-9; 65520 overflows;
  // 3e-8 rounds up to the smallest subnormal, 1e-8 down to 0.
  EXPECT_TRUE(valuesNear(
      apply("convert",
            {f32({8}, {1.00048828125, 1.00146484375, 65519, 65520, 1e-8, 3e-8,
                       -1, kNaN})},
            convertTo("DTYPE_F16")),
      v1::DTYPE_F16, {8},
      {1, 1.001953125, 65504, kInf, 0, 5.9604644775390625e-8, -1, kNaN}));
}

TEST(EvaluatorOpsTest, ConvertF32ToBF16RoundsToNearestEven) {
  EXPECT_TRUE(valuesNear(
      apply("convert",
            {f32({5}, {1.00390625, 1.01171875, 3.14159, 3.4028235e38, -2.5})},
            convertTo("DTYPE_BF16")),
      v1::DTYPE_BF16, {5}, {1, 1.015625, 3.140625, kInf, -2.5}));
  // And back to f32 exactly.
  EXPECT_TRUE(valuesNear(
      apply("convert", {bf16({2}, {3.140625, -123.5})}, convertTo("DTYPE_F32")),
      v1::DTYPE_F32, {2}, {3.140625, -123.5}));
}

TEST(EvaluatorOpsTest, ConvertIntegers) {
  EXPECT_TRUE(valuesNear(
      apply("convert", {i32({2}, {16777217, -3})}, convertTo("DTYPE_F32")),
      v1::DTYPE_F32, {2}, {16777216, -3}));
  EXPECT_TRUE(valuesNear(
      apply("convert", {boolean({2}, {1, 0})}, convertTo("DTYPE_F32")),
      v1::DTYPE_F32, {2}, {1, 0}));
  EXPECT_TRUE(valuesNear(
      apply("convert", {i32({2}, {-7, kI32Max})}, convertTo("DTYPE_I64")),
      v1::DTYPE_I64, {2}, {-7, kI32Max}));
  // Integer to integer keeps the low bits (two's complement wrap).
  Literal narrowed =
      apply("convert",
            {makeIntLiteral(v1::DTYPE_I64, {2}, {(int64_t(1) << 32) + 5, -1})},
            convertTo("DTYPE_I32"));
  EXPECT_EQ(narrowed.i, (std::vector<int64_t>{5, -1}));
}

TEST(EvaluatorOpsTest, ConvertLargeIntegersRoundOnce) {
  // 2^60 + 2^36 + 1 is just above the tie between two floats; rounding it
  // to double first would land on the tie and round down to even.
  int64_t v = (int64_t(1) << 60) + (int64_t(1) << 36) + 1;
  EXPECT_TRUE(valuesNear(
      apply("convert", {makeIntLiteral(v1::DTYPE_I64, {1}, {v})},
            convertTo("DTYPE_F32")),
      v1::DTYPE_F32, {1}, {std::ldexp(1.0, 60) + std::ldexp(1.0, 37)}));
  // 2^30 + 2^22 + 1 is just above a bf16 tie; via f32 it would be on it.
  EXPECT_TRUE(valuesNear(
      apply("convert", {i32({1}, {1077936129})}, convertTo("DTYPE_BF16")),
      v1::DTYPE_BF16, {1}, {1082130432}));
}

// ---- binary ----------------------------------------------------------------

TEST(EvaluatorOpsTest, Add) {
  EXPECT_TRUE(
      valuesNear(apply("add", {f32({2}, {1.5, -2}), f32({2}, {0.25, 2})}),
                 v1::DTYPE_F32, {2}, {1.75, 0}));
  // f16: 2048 + 1 = 2049 ties to even (2048); 2048 + 3 ties to 2052.
  EXPECT_TRUE(
      valuesNear(apply("add", {f16({2}, {2048, 2048}), f16({2}, {1, 3})}),
                 v1::DTYPE_F16, {2}, {2048, 2052}));
  EXPECT_TRUE(
      valuesNear(apply("add", {bf16({2}, {256, 256}), bf16({2}, {1, 3})}),
                 v1::DTYPE_BF16, {2}, {256, 260}));
}

TEST(EvaluatorOpsTest, AddIntegerWraparound) {
  EXPECT_TRUE(valuesNear(
      apply("add", {i32({3}, {kI32Max, -5, kI32Min}), i32({3}, {1, 3, -1})}),
      v1::DTYPE_I32, {3}, {kI32Min, -2, kI32Max}));
  Literal wide = apply("add", {makeIntLiteral(v1::DTYPE_I64, {1}, {kI64Max}),
                               makeIntLiteral(v1::DTYPE_I64, {1}, {1})});
  EXPECT_EQ(wide.i[0], kI64Min);
}

TEST(EvaluatorOpsTest, Sub) {
  EXPECT_TRUE(valuesNear(apply("sub", {f32({2}, {5, 0}), f32({2}, {7, -0.5})}),
                         v1::DTYPE_F32, {2}, {-2, 0.5}));
  EXPECT_TRUE(
      valuesNear(apply("sub", {i32({2}, {kI32Min, 3}), i32({2}, {1, 10})}),
                 v1::DTYPE_I32, {2}, {kI32Max, -7}));
}

TEST(EvaluatorOpsTest, Mul) {
  EXPECT_TRUE(valuesNear(apply("mul", {f32({2}, {3, -0.5}), f32({2}, {4, 8})}),
                         v1::DTYPE_F32, {2}, {12, -4}));
  // 2^16 * 2^16 wraps to 0; 46341^2 wraps negative.
  EXPECT_TRUE(valuesNear(
      apply("mul", {i32({2}, {65536, 46341}), i32({2}, {65536, 46341})}),
      v1::DTYPE_I32, {2}, {0, -2147479015}));
}

TEST(EvaluatorOpsTest, DivFloat) {
  EXPECT_TRUE(valuesNear(
      apply("div", {f32({5}, {1, -1, 0, 7, 1}), f32({5}, {0, 0, 0, 2, 3})}),
      v1::DTYPE_F32, {5}, {kInf, -kInf, kNaN, 3.5, 1.0 / 3}));
}

TEST(EvaluatorOpsTest, DivIntegerTruncatesAndDividesByZeroToMinusOne) {
  EXPECT_TRUE(valuesNear(apply("div", {i32({7}, {7, -7, 7, -7, 5, kI32Min, 0}),
                                       i32({7}, {2, 2, -2, -2, 0, -1, 0})}),
                         v1::DTYPE_I32, {7}, {3, -3, -3, 3, -1, kI32Min, -1}));
  Literal wide = apply("div", {makeIntLiteral(v1::DTYPE_I64, {2}, {kI64Min, 9}),
                               makeIntLiteral(v1::DTYPE_I64, {2}, {-1, 0})});
  EXPECT_EQ(wide.i, (std::vector<int64_t>{kI64Min, -1}));
}

TEST(EvaluatorOpsTest, PowFloat) {
  EXPECT_TRUE(
      valuesNear(apply("pow", {f32({6}, {2, 4, -8, 0, 2, -2}),
                               f32({6}, {10, 0.5, 1.0 / 3, -1, -2, 3})}),
                 v1::DTYPE_F32, {6}, {1024, 2, kNaN, kInf, 0.25, -8}));
}

TEST(EvaluatorOpsTest, PowInteger) {
  // Negative exponents: only |base| == 1 gives a nonzero result.
  EXPECT_TRUE(valuesNear(
      apply("pow", {i32({11}, {2, 3, 2, -2, 1, -1, -1, 0, 5, 3, 0}),
                    i32({11}, {10, 0, -1, 3, -5, -3, -4, 0, 1, 21, -1})}),
      v1::DTYPE_I32, {11}, {1024, 1, 0, -8, 1, -1, 1, 1, 5, 1870418611, 0}));
  Literal wide = apply("pow", {i64({1}, {2}), i64({1}, {62})});
  EXPECT_EQ(wide.i[0], int64_t(1) << 62);
}

TEST(EvaluatorOpsTest, MaxMinPropagateNaN) {
  Literal a = f32({4}, {1, kNaN, -3, 3}), b = f32({4}, {2, 1, -4, kNaN});
  EXPECT_TRUE(valuesNear(apply("max", {a, b}), v1::DTYPE_F32, {4},
                         {2, kNaN, -3, kNaN}));
  EXPECT_TRUE(valuesNear(apply("min", {a, b}), v1::DTYPE_F32, {4},
                         {1, kNaN, -4, kNaN}));
  // Equal operands (-0 and +0): the first one is returned.
  Literal zeros = apply("max", {f32({2}, {-0.0, 0.0}), f32({2}, {0.0, -0.0})});
  EXPECT_TRUE(std::signbit(zeros.f[0]));
  EXPECT_FALSE(std::signbit(zeros.f[1]));
  zeros = apply("min", {f32({2}, {-0.0, 0.0}), f32({2}, {0.0, -0.0})});
  EXPECT_TRUE(std::signbit(zeros.f[0]));
  EXPECT_FALSE(std::signbit(zeros.f[1]));
  Literal c = i32({2}, {-5, 7}), d = i32({2}, {3, -9});
  EXPECT_TRUE(valuesNear(apply("max", {c, d}), v1::DTYPE_I32, {2}, {3, 7}));
  EXPECT_TRUE(valuesNear(apply("min", {c, d}), v1::DTYPE_I32, {2}, {-5, -9}));
}

TEST(EvaluatorOpsTest, AndOr) {
  Literal p = boolean({4}, {0, 0, 1, 1}), q = boolean({4}, {0, 1, 0, 1});
  EXPECT_TRUE(
      valuesNear(apply("and", {p, q}), v1::DTYPE_BOOL, {4}, {0, 0, 0, 1}));
  EXPECT_TRUE(
      valuesNear(apply("or", {p, q}), v1::DTYPE_BOOL, {4}, {0, 1, 1, 1}));
  // Bitwise for integers.
  Literal a = i32({2}, {12, -1}), b = i32({2}, {10, 5});
  EXPECT_TRUE(valuesNear(apply("and", {a, b}), v1::DTYPE_I32, {2}, {8, 5}));
  EXPECT_TRUE(valuesNear(apply("or", {a, b}), v1::DTYPE_I32, {2}, {14, -1}));
}

TEST(EvaluatorOpsTest, CompareAllDirectionsWithNaN) {
  Literal a = f32({5}, {1, 2, 3, kNaN, 1}), b = f32({5}, {2, 2, 2, 1, kNaN});
  struct Case {
    const char *direction;
    std::vector<double> expected;
  };
  for (const Case &c : std::vector<Case>{
           {"COMPARE_EQ", {0, 1, 0, 0, 0}},
           {"COMPARE_NE", {1, 0, 1, 1, 1}},
           {"COMPARE_LT", {1, 0, 0, 0, 0}},
           {"COMPARE_LE", {1, 1, 0, 0, 0}},
           {"COMPARE_GT", {0, 0, 1, 0, 0}},
           {"COMPARE_GE", {0, 1, 1, 0, 0}},
       })
    EXPECT_TRUE(valuesNear(apply("compare", {a, b}, compareAttrs(c.direction)),
                           v1::DTYPE_BOOL, {5}, c.expected))
        << c.direction;
}

TEST(EvaluatorOpsTest, CompareIntegersExactly) {
  // Beyond 2^53 the two differ only in the last bit.
  Literal a = makeIntLiteral(v1::DTYPE_I64, {2}, {(int64_t(1) << 62) + 1, -3});
  Literal b = makeIntLiteral(v1::DTYPE_I64, {2}, {int64_t(1) << 62, -3});
  EXPECT_TRUE(valuesNear(apply("compare", {a, b}, compareAttrs("COMPARE_GT")),
                         v1::DTYPE_BOOL, {2}, {1, 0}));
  EXPECT_TRUE(valuesNear(apply("compare", {a, b}, compareAttrs("COMPARE_EQ")),
                         v1::DTYPE_BOOL, {2}, {0, 1}));
  EXPECT_TRUE(
      valuesNear(apply("compare", {boolean({2}, {0, 1}), boolean({2}, {1, 1})},
                       compareAttrs("COMPARE_LT")),
                 v1::DTYPE_BOOL, {2}, {1, 0}));
}

TEST(EvaluatorOpsTest, SelectScalarPredicate) {
  Literal onTrue = f32({3}, {1, 2, 3}), onFalse = f32({3}, {-1, -2, -3});
  EXPECT_TRUE(valuesNear(apply("select", {boolean({}, {1}), onTrue, onFalse}),
                         v1::DTYPE_F32, {3}, {1, 2, 3}));
  EXPECT_TRUE(valuesNear(apply("select", {boolean({}, {0}), onTrue, onFalse}),
                         v1::DTYPE_F32, {3}, {-1, -2, -3}));
}

TEST(EvaluatorOpsTest, SelectFullPredicate) {
  EXPECT_TRUE(valuesNear(
      apply("select", {boolean({2, 2}, {1, 0, 0, 1}), i32({2, 2}, {1, 2, 3, 4}),
                       i32({2, 2}, {10, 20, 30, 40})}),
      v1::DTYPE_I32, {2, 2}, {1, 20, 30, 4}));
}

// ---- across ops
// --------------------------------------------------------------

TEST(EvaluatorOpsTest, ZeroSizedDims) {
  Literal a = f32({0, 3}, {});
  EXPECT_TRUE(valuesNear(apply("add", {a, a}), v1::DTYPE_F32, {0, 3}, {}));
  EXPECT_TRUE(valuesNear(
      apply("transpose", {a}, "transpose { permutation: 1 permutation: 0 }"),
      v1::DTYPE_F32, {3, 0}, {}));
  EXPECT_TRUE(valuesNear(apply("reduce", {a}, reduceAttrs("REDUCE_MAX", {0})),
                         v1::DTYPE_F32, {3}, {-kInf, -kInf, -kInf}));
  EXPECT_TRUE(valuesNear(apply("reduce", {a}, reduceAttrs("REDUCE_SUM", {1})),
                         v1::DTYPE_F32, {0}, {}));
  EXPECT_TRUE(valuesNear(apply("broadcast_in_dim", {f32({1}, {5})},
                               broadcastAttrs({"4", "0"}, {0})),
                         v1::DTYPE_F32, {4, 0}, {}));
  EXPECT_TRUE(valuesNear(apply("pad", {f32({0}, {}), f32({}, {2})},
                               "pad { edge_padding_low: 1 edge_padding_high: 1 "
                               "interior_padding: 3 }"),
                         v1::DTYPE_F32, {2}, {2, 2}));
}

TEST(EvaluatorOpsTest, EveryDtypePassesThroughAndRoundTripsAsTensor) {
  std::vector<Literal> literals = {
      f32({2}, {1.5, -0.25}),
      f16({2}, {65504, -0.5}),
      bf16({2}, {3.140625, -2}),
      i32({2}, {kI32Min, 7}),
      makeIntLiteral(v1::DTYPE_I64, {2}, {kI64Max, -1}),
      boolean({3}, {1, 0, 1})};
  for (const Literal &lit : literals) {
    SCOPED_TRACE(dtypeName(lit.dtype));
    // Identity graph: the output is the input.
    std::vector<std::string> dims = {std::to_string(lit.shape[0])};
    v1::Graph g =
        test::parseGraph(test::inputText("x", dtypeName(lit.dtype), dims) +
                         test::outputText("x"));
    EXPECT_TRUE(test::literalsNear(test::evaluateOne(g, {lit}), lit));
    // Wire bytes and back.
    v1::Tensor tensor = literalToTensor(lit);
    EXPECT_EQ(int64_t(tensor.data().size()),
              lit.numElements() * dtypeByteSize(lit.dtype));
    auto back = literalFromTensor(tensor);
    ASSERT_TRUE(back.isOk()) << back.status().toString();
    EXPECT_TRUE(test::literalsNear(*back, lit));
  }
  // A tensor whose bytes do not match its shape is rejected.
  v1::Tensor bad = literalToTensor(f32({2}, {1, 2}));
  bad.add_shape(2);
  EXPECT_TRUE(failsWith(literalFromTensor(bad).status(), {"bytes"}));
}

TEST(EvaluatorOpsTest, F16BitPatterns) {
  // The wire bytes of f16 and bf16 literals are IEEE binary16 and the top
  // half of an f32.
  v1::Tensor h = literalToTensor(f16({3}, {1, -2, 65504}));
  std::string expected = bytesOf<uint16_t>({0x3C00, 0xC000, 0x7BFF});
  EXPECT_EQ(h.data(), expected);
  v1::Tensor b = literalToTensor(bf16({2}, {1, 3.140625}));
  EXPECT_EQ(b.data(), bytesOf<uint16_t>({0x3F80, 0x4049}));
}

} // namespace
} // namespace anyshape

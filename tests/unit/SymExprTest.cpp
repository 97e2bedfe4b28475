// Tests of symbolic dims: SymExpr arithmetic (like terms combining, the
// no-zero-coefficient invariant, overflow returning nullopt), divideExact,
// evaluate, toString's spelling, the text forms of dims (parseDim,
// parseDimExpr, toWireDim) and their round trips through ShapeContext, plus
// the small vocabulary around them (unifyDims, SymTensorType, symbol names,
// dtype names).
#include "TestUtil.h"

#include "ir/graph/DType.h"
#include "ir/graph/DimText.h"
#include "ir/graph/SymExpr.h"
#include "ir/graph/TensorType.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

namespace anyshape {
namespace {

using test::failsWith;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

SymExpr sym(const std::string &name) { return SymExpr::symbol(name); }
SymExpr num(int64_t v) { return SymExpr::constant(v); }
SymExpr add(const SymExpr &a, const SymExpr &b) { return *SymExpr::add(a, b); }
SymExpr sub(const SymExpr &a, const SymExpr &b) { return *SymExpr::sub(a, b); }
SymExpr mul(const SymExpr &a, const SymExpr &b) { return *SymExpr::mul(a, b); }

/// Reads dim text the way validation reads an attribute, in symbolic mode
/// with `bound` symbols.
SymExpr readSymbolic(const std::string &text,
                     std::set<std::string> bound = {"batch", "seq"}) {
  static const GraphLimits limits;
  auto expr = parseDimExpr(text);
  EXPECT_TRUE(expr.isOk()) << text << ": " << expr.status().toString();
  ShapeContext ctx = ShapeContext::symbolic(limits, std::move(bound));
  auto read = ctx.read(*expr);
  EXPECT_TRUE(read.isOk()) << text << ": " << read.status().toString();
  return read.isOk() ? *read : SymExpr();
}

TEST(SymExprTest, ConstantsAndSymbols) {
  EXPECT_TRUE(num(5).isConstant());
  EXPECT_EQ(num(5).constantValue(), 5);
  EXPECT_TRUE(num(0).terms().empty()); // zero is the empty polynomial
  EXPECT_EQ(num(0), SymExpr());
  EXPECT_EQ(num(0).constantValue(), 0);
  EXPECT_FALSE(sym("seq").isConstant());
  EXPECT_EQ(sym("seq").constantValue(), std::nullopt);
  EXPECT_EQ(sym("seq").singleSymbol(), "seq");
  EXPECT_EQ(mul(num(2), sym("seq")).singleSymbol(), std::nullopt);
  EXPECT_EQ(add(sym("seq"), num(1)).singleSymbol(), std::nullopt);
  EXPECT_EQ(mul(sym("seq"), sym("seq")).singleSymbol(), std::nullopt);
}

TEST(SymExprTest, AddCombinesLikeTermsAndDropsZeros) {
  SymExpr twoSeq = add(sym("seq"), sym("seq"));
  EXPECT_EQ(twoSeq, mul(num(2), sym("seq")));
  EXPECT_EQ(twoSeq.toString(), "2*seq");
  SymExpr seqPlusOne = add(sym("seq"), num(1));
  EXPECT_EQ(sub(seqPlusOne, sym("seq")), num(1));
  EXPECT_TRUE(sub(seqPlusOne, sym("seq")).isConstant());
  // seq - seq leaves no zero-coefficient term behind.
  SymExpr zero = sub(sym("seq"), sym("seq"));
  EXPECT_TRUE(zero.terms().empty());
  EXPECT_EQ(zero, num(0));
  EXPECT_EQ(add(num(3), num(-3)).terms().size(), 0u);
  EXPECT_EQ(add(num(3), num(4)).constantValue(), 7);
}

TEST(SymExprTest, MulDistributesAndSortsMonomials) {
  EXPECT_EQ(mul(sym("batch"), sym("seq")), mul(sym("seq"), sym("batch")));
  EXPECT_EQ(mul(sym("seq"), sym("batch")).toString(), "batch*seq");
  SymExpr product =
      mul(add(sym("seq"), num(1)), sub(sym("seq"), num(1))); // seq^2 - 1
  EXPECT_EQ(product.toString(), "seq*seq - 1");
  EXPECT_EQ(product.terms().size(), 2u); // the seq terms cancelled
  EXPECT_EQ(mul(sym("seq"), num(0)), num(0));
  EXPECT_EQ(mul(num(6), num(7)).constantValue(), 42);
}

TEST(SymExprTest, OverflowReturnsNullopt) {
  EXPECT_EQ(SymExpr::add(num(kMax), num(1)), std::nullopt);
  EXPECT_EQ(SymExpr::add(num(kMin), num(-1)), std::nullopt);
  EXPECT_EQ(SymExpr::mul(num(int64_t(1) << 62), num(4)), std::nullopt);
  EXPECT_EQ(SymExpr::mul(mul(num(int64_t(1) << 40), sym("seq")),
                         num(int64_t(1) << 30)),
            std::nullopt);
  // sub negates its second operand: -INT64_MIN overflows.
  EXPECT_EQ(SymExpr::sub(num(0), num(kMin)), std::nullopt);
  // Coefficients that overflow only when like terms combine.
  SymExpr big = mul(num(kMax), sym("seq"));
  EXPECT_EQ(SymExpr::add(big, sym("seq")), std::nullopt);
  // Just inside the range is fine.
  EXPECT_EQ(SymExpr::add(num(kMax - 1), num(1))->constantValue(), kMax);
  EXPECT_EQ(SymExpr::mul(num(int64_t(1) << 31), num(int64_t(1) << 31))
                ->constantValue(),
            int64_t(1) << 62);
}

TEST(SymExprTest, DivideExact) {
  SymExpr sixBatchSeq = mul(num(6), mul(sym("batch"), sym("seq")));
  EXPECT_EQ(sixBatchSeq.divideExact(mul(num(2), sym("seq"))),
            mul(num(3), sym("batch")));
  EXPECT_EQ(
      add(mul(sym("batch"), sym("seq")), sym("seq")).divideExact(sym("seq")),
      add(sym("batch"), num(1)));
  EXPECT_EQ(mul(sym("seq"), sym("seq")).divideExact(sym("seq")), sym("seq"));
  EXPECT_EQ(num(12).divideExact(num(4)), num(3));
  EXPECT_EQ(num(12).divideExact(num(-4)), num(-3));
  // Not exact: a coefficient, or a term lacking the divisor's symbol.
  EXPECT_EQ(add(mul(num(2), sym("seq")), num(1)).divideExact(num(2)),
            std::nullopt);
  EXPECT_EQ(add(sym("seq"), num(2)).divideExact(sym("seq")), std::nullopt);
  EXPECT_EQ(sym("batch").divideExact(sym("seq")), std::nullopt);
  EXPECT_EQ(num(7).divideExact(num(2)), std::nullopt);
  // Divisors must be one nonzero term.
  EXPECT_EQ(num(12).divideExact(num(0)), std::nullopt);
  EXPECT_EQ(sym("seq").divideExact(add(sym("seq"), num(1))), std::nullopt);
  // INT64_MIN / -1 would overflow.
  EXPECT_EQ(num(kMin).divideExact(num(-1)), std::nullopt);
}

TEST(SymExprTest, Evaluate) {
  std::map<std::string, int64_t> values = {{"batch", 3}, {"seq", 5}};
  EXPECT_EQ(add(mul(num(2), sym("seq")), num(1)).evaluate(values), 11);
  EXPECT_EQ(mul(sym("batch"), sym("seq")).evaluate(values), 15);
  EXPECT_EQ(sub(mul(sym("seq"), sym("seq")), num(1)).evaluate(values), 24);
  EXPECT_EQ(num(-4).evaluate({}), -4);
  EXPECT_EQ(num(0).evaluate({}), 0);
  std::string missing;
  EXPECT_EQ(add(sym("seq"), sym("heads")).evaluate(values, &missing),
            std::nullopt);
  EXPECT_EQ(missing, "heads");
  // Overflow during substitution.
  EXPECT_EQ(mul(sym("seq"), sym("seq")).evaluate({{"seq", int64_t(1) << 32}}),
            std::nullopt);
  EXPECT_EQ(add(num(kMax), sym("seq")).evaluate({{"seq", 1}}), std::nullopt);
}

TEST(SymExprTest, Symbols) {
  SymExpr e = add(add(mul(sym("batch"), sym("seq")), sym("seq")), num(1));
  std::vector<std::string> names = e.symbols();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"batch", "seq"}));
  EXPECT_TRUE(num(3).symbols().empty());
}

TEST(SymExprTest, ToString) {
  EXPECT_EQ(num(0).toString(), "0");
  EXPECT_EQ(num(768).toString(), "768");
  EXPECT_EQ(num(-5).toString(), "-5");
  EXPECT_EQ(sym("seq").toString(), "seq");
  EXPECT_EQ(mul(num(-1), sym("seq")).toString(), "-seq");
  EXPECT_EQ(add(mul(num(-2), sym("seq")), num(3)).toString(), "-2*seq + 3");
  EXPECT_EQ(sub(sym("seq"), num(1)).toString(), "seq - 1");
  EXPECT_EQ(add(mul(num(2), sym("seq")), num(1)).toString(), "2*seq + 1");
  EXPECT_EQ(sub(num(4), sym("seq")).toString(), "-seq + 4");
  // Highest degree first, then by monomial; the constant last.
  SymExpr e = add(
      add(add(num(1), mul(num(2), sym("seq"))), mul(sym("batch"), sym("seq"))),
      sym("batch"));
  EXPECT_EQ(e.toString(), "batch*seq + batch + 2*seq + 1");
  EXPECT_EQ(sub(sym("seq"), mul(num(3), sym("batch"))).toString(),
            "-3*batch + seq");
}

TEST(SymExprTest, ParseDimExpr) {
  auto e = parseDimExpr("2*seq + 1");
  ASSERT_TRUE(e.isOk());
  ASSERT_EQ(e->terms_size(), 1);
  EXPECT_EQ(e->terms(0).coefficient(), 2);
  EXPECT_EQ(e->terms(0).symbols(0), "seq");
  EXPECT_EQ(e->constant(), 1);

  auto minus = parseDimExpr(" seq  -  1 ");
  ASSERT_TRUE(minus.isOk());
  EXPECT_EQ(minus->constant(), -1);
  EXPECT_EQ(minus->terms(0).coefficient(), 1);

  auto leading = parseDimExpr("-seq + 4");
  ASSERT_TRUE(leading.isOk());
  EXPECT_EQ(leading->terms(0).coefficient(), -1);
  EXPECT_EQ(leading->constant(), 4);

  auto constants = parseDimExpr("3*4 + 2");
  ASSERT_TRUE(constants.isOk());
  EXPECT_EQ(constants->terms_size(), 0);
  EXPECT_EQ(constants->constant(), 14);

  auto product = parseDimExpr("2*batch*3*seq");
  ASSERT_TRUE(product.isOk());
  ASSERT_EQ(product->terms_size(), 1);
  EXPECT_EQ(product->terms(0).coefficient(), 6);
  EXPECT_EQ(product->terms(0).symbols_size(), 2);
}

TEST(SymExprTest, ParseDimExprErrors) {
  EXPECT_FALSE(parseDimExpr("").isOk());
  EXPECT_FALSE(parseDimExpr("   ").isOk());
  EXPECT_TRUE(failsWith(parseDimExpr("seq +").status(), {"bad factor"}));
  EXPECT_TRUE(failsWith(parseDimExpr("1seq").status(), {"'1seq'"}));
  EXPECT_FALSE(parseDimExpr("seq ** 2").isOk());
  EXPECT_FALSE(parseDimExpr("seq / 2").isOk());
  EXPECT_FALSE(parseDimExpr("2 - -1").isOk());
  EXPECT_FALSE(parseDimExpr("?").isOk());
  // Too many digits for a factor, and products that overflow.
  EXPECT_FALSE(parseDimExpr("12345678901234567890").isOk());
  EXPECT_TRUE(
      failsWith(parseDimExpr("999999999999999999*999999999999999999").status(),
                {"overflows"}));
}

TEST(SymExprTest, ParseDim) {
  auto dynamic = parseDim("?");
  ASSERT_TRUE(dynamic.isOk());
  EXPECT_EQ(dynamic->kind_case(), v1::Dim::kDynamic);
  EXPECT_TRUE(dynamic->dynamic());

  auto inferred = parseDim("-1");
  ASSERT_TRUE(inferred.isOk());
  EXPECT_EQ(inferred->kind_case(), v1::Dim::kSize);
  EXPECT_EQ(inferred->size(), -1);

  auto size = parseDim(" 768 ");
  ASSERT_TRUE(size.isOk());
  EXPECT_EQ(size->size(), 768);
  EXPECT_EQ(parseDim("0")->size(), 0);

  auto symbol = parseDim("seq");
  ASSERT_TRUE(symbol.isOk());
  EXPECT_EQ(symbol->kind_case(), v1::Dim::kSymbol);
  EXPECT_EQ(symbol->symbol(), "seq");

  auto expr = parseDim("batch*seq");
  ASSERT_TRUE(expr.isOk());
  EXPECT_EQ(expr->kind_case(), v1::Dim::kExpr);

  EXPECT_FALSE(parseDim("seq-").isOk());
  EXPECT_FALSE(parseDim("").isOk());
}

TEST(SymExprTest, TextRoundTripsThroughShapeContext) {
  for (const char *text :
       {"768", "seq", "batch*seq", "2*seq + 1", "seq - 1", "-seq + 4",
        "seq*seq - 1", "batch*seq + batch + 2*seq + 1", "0"}) {
    SymExpr e = readSymbolic(text);
    EXPECT_EQ(e.toString(), text);
    // toString output parses back to the same polynomial.
    EXPECT_EQ(readSymbolic(e.toString()), e) << text;
  }
}

TEST(SymExprTest, ToWireDim) {
  static const GraphLimits limits;
  ShapeContext ctx = ShapeContext::symbolic(limits, {"batch", "seq"});
  auto size = toWireDim(num(768));
  ASSERT_TRUE(size.has_value());
  EXPECT_EQ(size->kind_case(), v1::Dim::kSize);
  EXPECT_EQ(size->size(), 768);

  auto symbol = toWireDim(sym("seq"));
  ASSERT_TRUE(symbol.has_value());
  EXPECT_EQ(symbol->kind_case(), v1::Dim::kSymbol);
  EXPECT_EQ(symbol->symbol(), "seq");

  for (const char *text : {"batch*seq", "2*seq + 1", "seq - 1"}) {
    SymExpr e = readSymbolic(text);
    auto wire = toWireDim(e);
    ASSERT_TRUE(wire.has_value()) << text;
    EXPECT_EQ(wire->kind_case(), v1::Dim::kExpr) << text;
    auto back = ctx.read(*wire);
    ASSERT_TRUE(back.isOk()) << back.status().toString();
    EXPECT_EQ(**back, e) << text;
  }

  // Fresh symbols have no wire name.
  SymExpr fresh = ctx.fresh();
  EXPECT_EQ(fresh.toString(), "?0");
  EXPECT_EQ(ctx.fresh().toString(), "?1");
  EXPECT_FALSE(toWireDim(fresh).has_value());
  EXPECT_FALSE(toWireDim(add(fresh, sym("seq"))).has_value());
}

TEST(SymExprTest, ShapeContextModes) {
  static const GraphLimits limits;
  ShapeContext symbolic = ShapeContext::symbolic(limits, {"seq"});
  auto unbound = symbolic.read(*parseDimExpr("batch + 1"));
  EXPECT_TRUE(failsWith(unbound.status(), {"'batch'", "not the dim"}));
  symbolic.bindSymbol("batch");
  EXPECT_TRUE(symbolic.read(*parseDimExpr("batch + 1")).isOk());

  ShapeContext concrete = ShapeContext::concrete(limits, {{"seq", 5}});
  auto value = concrete.read(*parseDimExpr("2*seq + 1"));
  ASSERT_TRUE(value.isOk());
  EXPECT_EQ(value->constantValue(), 11);
  EXPECT_TRUE(failsWith(concrete.read(*parseDimExpr("batch")).status(),
                        {"'batch'", "not bound"}));

  // Dims: -1 only when inferred dims are allowed; negatives otherwise fail.
  v1::Dim minusOne = *parseDim("-1");
  EXPECT_FALSE(concrete.read(minusOne).isOk());
  auto inferred = concrete.read(minusOne, /*allowInferred=*/true);
  ASSERT_TRUE(inferred.isOk());
  EXPECT_FALSE(inferred->has_value());
  EXPECT_TRUE(
      failsWith(concrete.read(*parseDim("seq - 6")).status(), {"negative"}));
  EXPECT_TRUE(failsWith(concrete.read(*parseDim("?")).status(), {"anonymous"}));
  EXPECT_FALSE(concrete.read(v1::Dim()).isOk());
}

TEST(SymExprTest, UnifyDims) {
  EXPECT_EQ(*unifyDims(num(3), num(3)), num(3));
  EXPECT_TRUE(failsWith(unifyDims(num(3), num(4)).status(), {"3", "4"}));
  EXPECT_EQ(*unifyDims(sym("seq"), num(4)), num(4)); // static wins
  EXPECT_EQ(*unifyDims(num(4), sym("seq")), num(4));
  EXPECT_EQ(*unifyDims(sym("a"), sym("b")), sym("a")); // else the first
}

TEST(SymExprTest, SymTensorType) {
  SymTensorType t{v1::DTYPE_F32, {sym("batch"), sym("seq"), num(768)}};
  EXPECT_EQ(t.toString(), "f32[batch, seq, 768]");
  EXPECT_EQ(t.rank(), 3);
  EXPECT_EQ(t.numElements()->toString(), "768*batch*seq");
  EXPECT_FALSE(t.staticShape().has_value());
  SymTensorType s{v1::DTYPE_BF16, {num(2), num(3)}};
  EXPECT_EQ(s.staticShape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(s.numElements(), num(6));
  EXPECT_EQ((SymTensorType{v1::DTYPE_BOOL, {}}).toString(), "bool[]");
  SymTensorType huge{v1::DTYPE_F32,
                     {num(int64_t(1) << 40), num(int64_t(1) << 40)}};
  EXPECT_FALSE(huge.numElements().has_value());
}

TEST(SymExprTest, SymbolNames) {
  EXPECT_TRUE(isValidSymbolName("seq"));
  EXPECT_TRUE(isValidSymbolName("_x1"));
  EXPECT_TRUE(isValidSymbolName("B"));
  EXPECT_FALSE(isValidSymbolName(""));
  EXPECT_FALSE(isValidSymbolName("1x"));
  EXPECT_FALSE(isValidSymbolName("a-b"));
  EXPECT_FALSE(isValidSymbolName("?0"));
  EXPECT_TRUE(isValidSymbolName(std::string(128, 'a')));
  EXPECT_FALSE(isValidSymbolName(std::string(129, 'a')));
}

TEST(SymExprTest, DTypeNames) {
  EXPECT_EQ(dtypeName(v1::DTYPE_BF16), "bf16");
  EXPECT_EQ(dtypeName(99), "dtype(99)");
  EXPECT_EQ(parseDType("i64"), v1::DTYPE_I64);
  EXPECT_EQ(parseDType("f64"), std::nullopt);
  EXPECT_EQ(dtypeByteSize(v1::DTYPE_F16), 2);
  EXPECT_EQ(dtypeByteSize(v1::DTYPE_I64), 8);
  EXPECT_EQ(dtypeByteSize(v1::DTYPE_BOOL), 1);
  EXPECT_EQ(dtypeByteSize(static_cast<DType>(99)), 0);
  EXPECT_FALSE(isKnownDType(0));
  EXPECT_FALSE(isKnownDType(7));
  EXPECT_TRUE(isKnownDType(v1::DTYPE_BOOL));
  EXPECT_FALSE(isIntegerDType(v1::DTYPE_BOOL));
  EXPECT_TRUE(isFloatDType(v1::DTYPE_BF16));
}

} // namespace
} // namespace anyshape

// Tests of max and min in symbolic dims (a sliding window's length, past +
// seq - max(0, past - 4095)): SymExpr::extremum keeps the operand that is
// larger for every size and makes a canonical atom only where neither is,
// refuses one that may be negative; evaluation and substitution match
// integer max/min over many sizes; the text and wire forms round-trip
// through ShapeContext; and an expression built on one reads back equal.
#include "TestUtil.h"

#include "ir/graph/DimText.h"
#include "ir/graph/SymExpr.h"
#include "ir/graph/TensorType.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace anyshape {
namespace {

using test::failsWith;

SymExpr num(int64_t v) { return SymExpr::constant(v); }
SymExpr parse(const std::string &text) {
  std::optional<SymExpr> e = parseSymExpr(text);
  EXPECT_TRUE(e.has_value()) << text;
  return e ? *e : SymExpr();
}
std::optional<SymExpr> larger(const std::string &a, const std::string &b) {
  return SymExpr::extremum(parse(a), parse(b), true);
}
std::optional<SymExpr> smaller(const std::string &a, const std::string &b) {
  return SymExpr::extremum(parse(a), parse(b), false);
}

TEST(SymExprExtremumTest, AnOperandLargerForEverySizeIsNoAtom) {
  EXPECT_EQ(larger("past + 1", "past"), parse("past + 1"));
  EXPECT_EQ(smaller("past + 1", "past"), parse("past"));
  EXPECT_EQ(larger("3", "7"), num(7));
  EXPECT_EQ(smaller("3", "7"), num(3));
  EXPECT_EQ(larger("seq", "0"), parse("seq")); // sizes are never negative
  EXPECT_EQ(larger("2*seq", "seq"), parse("2*seq"));
}

TEST(SymExprExtremumTest, AtomsAreCanonicalAndReadBack) {
  std::optional<SymExpr> window = larger("past - 4095", "0");
  ASSERT_TRUE(window);
  EXPECT_EQ(window->toString(), "max(0, past - 4095)");
  EXPECT_EQ(larger("0", "past - 4095"), window); // operand order is free
  auto parts = SymExpr::extremumOf(window->toString());
  ASSERT_TRUE(parts);
  EXPECT_TRUE(parts->larger);
  EXPECT_EQ(parts->a, num(0));
  EXPECT_EQ(parts->b, parse("past - 4095"));
  // In a larger expression, and through its text.
  SymExpr length = parse("past + seq - max(0, past - 4095)");
  EXPECT_EQ(parse(length.toString()), length);
  EXPECT_EQ(smaller("k", "vocab")->toString(), "min(k, vocab)");
  EXPECT_FALSE(SymExpr::extremumOf("maximum"));
  EXPECT_FALSE(SymExpr::extremumOf("(seq floordiv 2)"));
  EXPECT_FALSE(SymExpr::quotientOf(window->toString()));
  EXPECT_EQ(parse("max(0, past - 4095)*2").symbols().size(), 1u);
  EXPECT_EQ(length.leafSymbols(), (std::vector<std::string>{"past", "seq"}));
}

TEST(SymExprExtremumTest, OneThatMayBeNegativeIsRefused) {
  EXPECT_FALSE(larger("past - 4", "seq - 9")); // both may be negative
  EXPECT_FALSE(smaller("past - 4", "seq"));    // min of a maybe negative
  EXPECT_TRUE(failsWith(parseDimExpr("min(past - 4, seq)").status(),
                        {"may be negative"}));
  EXPECT_TRUE(failsWith(parseDimExpr("max(0, seq").status(), {"missing ')'"}));
  EXPECT_TRUE(failsWith(parseDimExpr("max(0 seq)").status(), {"missing ','"}));
}

// A sliding window's cache length, past + seq - max(0, past - 5), is never
// negative (TorchScript's Expand asks, through Where(Equal(shape, -1))):
// proved by splitting the max into its operands. Every answer is checked
// against the values at many sizes, so no split may claim what is false.
TEST(SymExprExtremumTest, NonNegativeThroughItsMaxAndMinAtoms) {
  struct Case {
    const char *text;
    bool proved;
  };
  for (Case c :
       {Case{"past + seq - max(0, past - 5)", true},
        Case{"past - max(0, past - 5)", true},
        Case{"5 - past + max(0, past - 5)", true},
        Case{"seq - min(seq, past)", true},
        Case{"min(seq, past) - seq + past", false},
        Case{"2*past + 1 - max(past, seq - 3) - min(past, seq)", false},
        Case{"past - max(0, seq - 5)", false},
        Case{"seq - max(seq, past)", false},
        Case{"max(0, past - 5) - 1", false},
        Case{"seq - max(0, past - max(0, seq - 2) - 5)", false},
        Case{"past + seq - max(0, past - max(0, seq - 2) - 5)", true}}) {
    SymExpr e = parse(c.text);
    EXPECT_EQ(e.isNonNegative(), c.proved) << c.text;
    bool holds = true;
    for (int64_t past = 0; past <= 12; ++past)
      for (int64_t seq = 0; seq <= 12; ++seq)
        holds &= *e.evaluate({{"past", past}, {"seq", seq}}) >= 0;
    if (e.isNonNegative())
      EXPECT_TRUE(holds) << c.text << " was proved but is negative somewhere";
  }
}

TEST(SymExprExtremumTest, EvaluatesAndSubstitutesAsIntegers) {
  SymExpr length = parse("past + seq - max(0, past - 5)");
  SymExpr capped = parse("min(k, vocab) + 1");
  for (int64_t past = 0; past <= 12; ++past)
    for (int64_t seq = 0; seq <= 3; ++seq) {
      std::map<std::string, int64_t> sizes{{"past", past}, {"seq", seq}};
      EXPECT_EQ(length.evaluate(sizes),
                past + seq - std::max<int64_t>(0, past - 5));
      auto partly = length.substitute({{"past", past}});
      ASSERT_TRUE(partly);
      EXPECT_EQ(partly->evaluate({{"seq", seq}}), length.evaluate(sizes));
      std::map<std::string, int64_t> ks{{"k", past}, {"vocab", seq + 4}};
      EXPECT_EQ(capped.evaluate(ks), std::min(past, seq + 4) + 1);
    }
  // Substituting every size leaves a number, no atom.
  EXPECT_EQ(length.substitute({{"past", 9}, {"seq", 2}}), num(7));
  std::string missing;
  EXPECT_FALSE(length.evaluate({{"seq", 1}}, &missing));
  EXPECT_EQ(missing, "past");
}

TEST(SymExprExtremumTest, WireRoundTripsThroughShapeContext) {
  static const GraphLimits limits;
  ShapeContext ctx = ShapeContext::symbolic(limits, {"past", "seq", "k"});
  for (const char *text :
       {"max(0, past - 4095)", "past + seq - max(0, past - 4095)",
        "min(k, seq)*2 + 1", "max(0, (past + 1) floordiv 2 - 3)",
        "min(max(0, past - 8), seq)"}) {
    SymExpr e = parse(text);
    auto wire = toWireDim(e);
    ASSERT_TRUE(wire.has_value()) << text;
    auto back = ctx.read(*wire);
    ASSERT_TRUE(back.isOk()) << text << ": " << back.status().toString();
    EXPECT_EQ(**back, e) << text;
    auto parsed = parseDimExpr(text);
    ASSERT_TRUE(parsed.isOk()) << text;
    EXPECT_EQ(symExprOf(*parsed), e) << text;
  }
  // A wire max that may be negative is refused when read.
  v1::Dim bad;
  auto *term = bad.mutable_expr()->add_terms();
  term->set_coefficient(1);
  auto *extreme = term->add_extrema();
  extreme->set_larger(true);
  extreme->mutable_a()->set_constant(-1);
  auto *past = extreme->mutable_b()->add_terms();
  past->set_coefficient(1);
  past->add_symbols("past");
  extreme->mutable_b()->set_constant(-3);
  EXPECT_TRUE(failsWith(ctx.read(bad).status(), {"may be negative"}));
}

} // namespace
} // namespace anyshape

// Tests of floor division in symbolic dims: SymExpr::floorDiv's canonical
// form (whole multiples out of the floor, common factors cancelled, a
// quotient of a quotient folded), mod, evaluation and substitution against
// integer arithmetic over many sizes, the text and wire forms and their
// round trips through ShapeContext, and the refusals (a divisor < 1,
// quotients nested or grown past the bounds).
#include "TestUtil.h"

#include "ir/graph/DimText.h"
#include "ir/graph/SymExpr.h"
#include "ir/graph/TensorType.h"

#include <gtest/gtest.h>

namespace anyshape {
namespace {

using test::failsWith;

SymExpr sym(const std::string &name) { return SymExpr::symbol(name); }
SymExpr num(int64_t v) { return SymExpr::constant(v); }
SymExpr parse(const std::string &text) {
  std::optional<SymExpr> e = parseSymExpr(text);
  EXPECT_TRUE(e.has_value()) << text;
  return e ? *e : SymExpr();
}
SymExpr floorDiv(const SymExpr &a, int64_t d) {
  return *SymExpr::floorDiv(a, d);
}

int64_t floorOf(int64_t a, int64_t d) {
  return a / d - (a % d != 0 && (a < 0) != (d < 0));
}

TEST(SymExprQuotientTest, ConstantsAndExactQuotientsAreNoAtoms) {
  EXPECT_EQ(floorDiv(num(7), 2), num(3));
  EXPECT_EQ(floorDiv(num(-7), 2), num(-4)); // floor, not truncation
  EXPECT_EQ(floorDiv(parse("4*seq + 6"), 2), parse("2*seq + 3"));
  EXPECT_EQ(floorDiv(parse("4*seq + 7"), 2), parse("2*seq + 3"));
  EXPECT_EQ(floorDiv(sym("seq"), 1), sym("seq"));
  EXPECT_EQ(SymExpr::floorDiv(sym("seq"), 0), std::nullopt);
  EXPECT_EQ(SymExpr::floorDiv(sym("seq"), -2), std::nullopt);
}

TEST(SymExprQuotientTest, CanonicalForm) {
  // Whole multiples come out; what stays inside is in [0, divisor).
  EXPECT_EQ(floorDiv(parse("seq + 3"), 2).toString(),
            "((seq + 1) floordiv 2) + 1");
  EXPECT_EQ(floorDiv(parse("seq - 1"), 2).toString(),
            "((seq + 1) floordiv 2) - 1");
  EXPECT_EQ(floorDiv(parse("3*seq + 1"), 2).toString(),
            "((seq + 1) floordiv 2) + seq");
  // Common factors cancel.
  EXPECT_EQ(floorDiv(parse("2*seq + 2"), 4), floorDiv(parse("seq + 1"), 2));
  // A quotient of a quotient is one quotient: two stride-2 convolutions.
  SymExpr once = floorDiv(parse("seq + 1"), 2);
  SymExpr twice = floorDiv(*SymExpr::add(once, num(1)), 2);
  EXPECT_EQ(twice, floorDiv(parse("seq + 3"), 4));
  // The same quotient of the same dims is the same symbol.
  EXPECT_EQ(floorDiv(parse("seq + 1"), 2), floorDiv(parse("1 + seq"), 2));
  EXPECT_NE(floorDiv(parse("seq + 1"), 2), floorDiv(parse("len + 1"), 2));
  EXPECT_TRUE(floorDiv(parse("seq - 5"), 3).isNonNegative() == false);
  EXPECT_TRUE(floorDiv(parse("seq + 5"), 3).isNonNegative());
}

TEST(SymExprQuotientTest, MatchesIntegerArithmeticAtEverySize) {
  const char *dividends[] = {"seq",         "seq + 1",   "seq - 1",
                             "3*seq + 2",   "batch*seq", "2*batch + seq - 7",
                             "seq*seq + 1", "-seq + 20"};
  for (const char *text : dividends)
    for (int64_t d : {1, 2, 3, 4, 7, 16}) {
      SymExpr e = parse(text);
      SymExpr q = floorDiv(e, d);
      SymExpr m = *SymExpr::mod(e, d);
      SymExpr nested = floorDiv(*SymExpr::add(q, num(1)), 3);
      for (int64_t seq = 0; seq < 23; ++seq)
        for (int64_t batch : {0, 1, 5}) {
          std::map<std::string, int64_t> sizes{{"seq", seq}, {"batch", batch}};
          int64_t a = *e.evaluate(sizes);
          EXPECT_EQ(q.evaluate(sizes), floorOf(a, d)) << text << " / " << d;
          EXPECT_EQ(m.evaluate(sizes), a - d * floorOf(a, d)) << text;
          EXPECT_EQ(nested.evaluate(sizes), floorOf(floorOf(a, d) + 1, 3));
          // Substituting every symbol leaves the value as a constant.
          EXPECT_EQ(q.substitute(sizes), num(floorOf(a, d))) << text;
        }
    }
}

TEST(SymExprQuotientTest, SubstitutePartially) {
  SymExpr q = floorDiv(parse("batch*seq + 1"), 2);
  EXPECT_EQ(q.substitute({{"batch", 2}}), parse("seq"));
  EXPECT_EQ(q.substitute({{"batch", 3}}), floorDiv(parse("3*seq + 1"), 2));
  EXPECT_EQ(q.leafSymbols(), (std::vector<std::string>{"batch", "seq"}));
  EXPECT_EQ(q.symbols().size(), 1u); // the atom itself
}

TEST(SymExprQuotientTest, QuotientOfReadsTheAtomBack) {
  SymExpr q = floorDiv(parse("seq + 1"), 2);
  auto atom = q.singleSymbol();
  ASSERT_TRUE(atom.has_value());
  auto quotient = SymExpr::quotientOf(*atom);
  ASSERT_TRUE(quotient.has_value());
  EXPECT_EQ(quotient->dividend, parse("seq + 1"));
  EXPECT_EQ(quotient->divisor, 2);
  EXPECT_FALSE(SymExpr::quotientOf("seq").has_value());
  EXPECT_FALSE(SymExpr::quotientOf("((seq) floordiv x)").has_value());
  EXPECT_FALSE(SymExpr::quotientOf("((seq) floordiv 1)").has_value());
  // Compiler stages' own names read back too (Reify's placeholders).
  EXPECT_TRUE(SymExpr::quotientOf("(($0.1 + 1) floordiv 2)").has_value());
}

TEST(SymExprQuotientTest, TextForms) {
  EXPECT_EQ(parse("(seq + 1) floordiv 2"), floorDiv(parse("seq + 1"), 2));
  // floordiv binds as '*' does, left to right.
  EXPECT_EQ(parse("2*seq floordiv 4"), floorDiv(parse("2*seq"), 4));
  EXPECT_EQ(parse("seq mod 8"), *SymExpr::mod(sym("seq"), 8));
  EXPECT_EQ(parse("(seq floordiv 2) floordiv 2"), floorDiv(sym("seq"), 4));
  // A symbol may be called mod: the word is an operator only after a
  // factor.
  EXPECT_EQ(parse("mod + 1"), *SymExpr::add(sym("mod"), num(1)));
  for (const char *text :
       {"(seq + 1) floordiv 2", "2*((seq + 1) floordiv 2) + 1",
        "((batch*seq + 3) floordiv 4)*seq", "seq mod 3"}) {
    SymExpr e = parse(text);
    EXPECT_EQ(parse(e.toString()), e) << text << " -> " << e.toString();
  }
  EXPECT_FALSE(parseDimExpr("seq floordiv 0").isOk());
  EXPECT_FALSE(parseDimExpr("seq floordiv seq").isOk());
  EXPECT_FALSE(parseDimExpr("seq mod -2").isOk());
  EXPECT_FALSE(parseDimExpr("(seq + 1").isOk());
  EXPECT_FALSE(parseDimExpr("seq + 1)").isOk());
  EXPECT_FALSE(parseDimExpr("floordiv 2").isOk());
  std::string deep = "seq";
  for (int i = 0; i < 40; ++i)
    deep = "(" + deep + " + 1) floordiv 2";
  EXPECT_TRUE(failsWith(parseDimExpr(deep).status(), {"nests deeper"}));
}

TEST(SymExprQuotientTest, WireRoundTripsThroughShapeContext) {
  static const GraphLimits limits;
  ShapeContext ctx = ShapeContext::symbolic(limits, {"batch", "seq"});
  for (const char *text :
       {"(seq + 1) floordiv 2", "2*((seq + 1) floordiv 2) + 1",
        "((batch*seq + 3) floordiv 4)*seq", "seq mod 3",
        "((seq + 1) floordiv 2 + 1) floordiv 3"}) {
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
  // Quotients of fresh symbols have no wire form, as the symbols do not.
  EXPECT_FALSE(toWireDim(floorDiv(*SymExpr::add(ctx.fresh(), num(1)), 2)));

  v1::Dim bad;
  auto *quotient = bad.mutable_expr()->add_terms()->add_quotients();
  bad.mutable_expr()->mutable_terms(0)->set_coefficient(1);
  quotient->set_divisor(0);
  quotient->mutable_dividend()->set_constant(4);
  EXPECT_TRUE(failsWith(ctx.read(bad).status(), {"divisor must be >= 1"}));
  quotient->set_divisor(3);
  quotient->mutable_dividend()->add_terms()->add_symbols("unbound");
  quotient->mutable_dividend()->mutable_terms(0)->set_coefficient(1);
  EXPECT_TRUE(failsWith(ctx.read(bad).status(), {"unbound"}));

  // Nested past the bound: an error, not a deep recursion.
  v1::DimExpr deep;
  deep.set_constant(1);
  for (int i = 0; i < 40; ++i) {
    v1::DimExpr outer;
    auto *term = outer.add_terms();
    term->set_coefficient(1);
    auto *q = term->add_quotients();
    *q->mutable_dividend() = deep;
    q->set_divisor(2);
    deep = outer;
  }
  EXPECT_TRUE(failsWith(ctx.read(deep).status(), {"deeper than 16"}));
}

TEST(SymExprQuotientTest, GrowthIsBounded) {
  // A power of a quotient inside another doubles the atom's text; the
  // names are bounded, so this ends in nullopt, not in memory.
  std::optional<SymExpr> e = sym("seq");
  int steps = 0;
  while (e && steps < 64) {
    auto square = SymExpr::mul(*e, *e);
    auto grown = square ? SymExpr::add(*square, *e) : std::nullopt;
    e = grown ? SymExpr::floorDiv(*grown, 3) : std::nullopt;
    ++steps;
  }
  EXPECT_FALSE(e.has_value());
  EXPECT_LT(steps, 20);
}

} // namespace
} // namespace anyshape

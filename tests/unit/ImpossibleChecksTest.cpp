// Run-time shape checks that no sizes can satisfy are validation errors
// (neverHolds, ShapeChecks.h): a graph whose every call would fail is
// rejected once, naming the node and the rule. Checks that some sizes
// satisfy (seq >= 9) stay run-time checks.
#include "TestUtil.h"
#include "ir/graph/DimText.h"
#include "ir/graph/ShapeChecks.h"

#include <gtest/gtest.h>

namespace anyshape {
namespace {

using test::dimsText;
using test::exprText;
using test::failsWith;
using test::inputText;
using test::nodeText;
using test::outputText;

SymExpr expr(const std::string &text) {
  auto e = parseSymExpr(text);
  EXPECT_TRUE(e.has_value()) << text;
  return e ? *e : SymExpr();
}

ShapeCheck check(ShapeCheck::Kind kind, const std::string &a,
                 const std::string &b) {
  ShapeCheck c(kind);
  c.a = expr(a);
  c.b = expr(b);
  return c;
}

bool never(ShapeCheck::Kind kind, const std::string &a, const std::string &b) {
  return neverHolds(check(kind, a, b)).has_value();
}

TEST(ImpossibleChecksTest, EqualityBySignAndDivisibility) {
  using K = ShapeCheck::Kind;
  EXPECT_TRUE(never(K::Equal, "seq + 1", "seq"));    // constant difference
  EXPECT_TRUE(never(K::Equal, "a*b + 1", "0"));      // always >= 1
  EXPECT_TRUE(never(K::Equal, "-a - 2*b - 1", "0")); // always <= -1
  EXPECT_TRUE(never(K::Equal, "2*seq", "5"));        // odd vs even
  EXPECT_TRUE(never(K::Equal, "4*a + 6*b", "3"));    // gcd 2 does not divide 3
  EXPECT_FALSE(never(K::Equal, "4*a - 6*b", "2"));   // a = 2, b = 1
  EXPECT_FALSE(never(K::Equal, "a - b", "5"));       // a = b + 5
  EXPECT_FALSE(never(K::Equal, "2*seq", "6"));       // seq = 3
  EXPECT_FALSE(never(K::Equal, "a*b", "c"));
  EXPECT_FALSE(never(K::Equal, "seq", "seq"));
}

TEST(ImpossibleChecksTest, OrderingBroadcastAndDivision) {
  using K = ShapeCheck::Kind;
  EXPECT_TRUE(never(K::LessEqual, "seq + 1", "seq"));
  EXPECT_TRUE(never(K::LessEqual, "a + b + 3", "2"));
  EXPECT_FALSE(never(K::LessEqual, "9", "seq")); // seq >= 9: run time
  EXPECT_FALSE(never(K::LessEqual, "a", "b"));
  // Broadcast: a must be 1 or b.
  EXPECT_TRUE(never(K::OneOrEqual, "seq + 2", "seq")); // never 1, never seq
  EXPECT_FALSE(never(K::OneOrEqual, "seq + 1", "seq + 1"));
  EXPECT_FALSE(never(K::OneOrEqual, "seq", "7")); // seq = 1 or 7
  // Division: a != 0 and a divides b.
  EXPECT_TRUE(never(K::Divides, "0", "seq"));
  EXPECT_TRUE(never(K::Divides, "2", "2*seq + 1"));
  EXPECT_TRUE(never(K::Divides, "6", "4*seq + 3")); // gcd(6, 4) = 2
  EXPECT_FALSE(never(K::Divides, "4", "2*seq"));    // seq even
  EXPECT_FALSE(never(K::Divides, "seq", "12"));
  // Gather: a != 0 or b == 0.
  EXPECT_TRUE(never(K::NonEmptyUnlessUnused, "0", "n + 1"));
  EXPECT_FALSE(never(K::NonEmptyUnlessUnused, "0", "n"));
}

Status validationError(const std::string &text) {
  return validateGraph(test::parseGraph(text)).status();
}

TEST(ImpossibleChecksTest, GraphsThatCanNeverRunAreRejected) {
  const std::string x = inputText("x", "f32", {"seq"});
  Status s =
      validationError(x +
                      nodeText("s", "slice", {"x"},
                               "slice { " + exprText("start_indices", "0") +
                                   exprText("limit_indices", "seq + 1") + "}") +
                      outputText("s"));
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(failsWith(s, {"node 's' (slice)", "slice limit seq + 1",
                            "which no sizes satisfy", "is always -1"}))
      << s.toString();

  s = validationError(inputText("x", "f32", {"seq", "2"}) +
                      nodeText("r", "reshape", {"x"},
                               "reshape { " + dimsText({"5"}, "shape") + "}") +
                      outputText("r"));
  EXPECT_TRUE(failsWith(s, {"node 'r' (reshape)", "2*seq to 5",
                            "which no sizes satisfy", "1 modulo 2"}))
      << s.toString();

  s = validationError(x + inputText("y", "f32", {"seq + 2"}) +
                      nodeText("b", "broadcast_in_dim", {"y"},
                               "broadcast_in_dim { " +
                                   dimsText({"seq"}, "shape") +
                                   "broadcast_dimensions: 0 }") +
                      outputText("b"));
  EXPECT_TRUE(
      failsWith(s, {"node 'b' (broadcast_in_dim)", "which no sizes satisfy"}))
      << s.toString();

  s = validationError(
      x + inputText("y", "f32", {"2*seq + 1"}) +
      nodeText("r", "reshape", {"y"},
               "reshape { " + dimsText({"-1", "2"}, "shape") + "}") +
      outputText("r"));
  EXPECT_TRUE(failsWith(s, {"node 'r' (reshape)", "which no sizes satisfy",
                            "never a multiple of 2"}))
      << s.toString();
}

TEST(ImpossibleChecksTest, ChecksSomeSizesSatisfyStayAtRunTime) {
  const std::string x = inputText("x", "f32", {"seq", "2"});
  auto info = validateGraph(
      test::parseGraph(x +
                       nodeText("r", "reshape", {"x"},
                                "reshape { " + dimsText({"6"}, "shape") + "}") +
                       nodeText("s", "slice", {"x"},
                                "slice { " + exprText("start_indices", "9") +
                                    exprText("start_indices", "0") +
                                    exprText("limit_indices", "seq") +
                                    exprText("limit_indices", "2") + "}") +
                       outputText("r") + outputText("s")));
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  int nodeChecks = 0;
  for (const ShapeCheck &c : info->shapeChecks)
    nodeChecks += c.node >= 0 && c.kind != ShapeCheck::Kind::ElementLimit;
  EXPECT_GE(nodeChecks, 2); // 2*seq == 6; 9 <= seq
}

} // namespace
} // namespace anyshape

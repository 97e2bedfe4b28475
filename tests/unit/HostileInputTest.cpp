// Inputs a hostile client can send, sized far past what real graphs use:
// each is rejected with a clear error (naming the limit or the input), or
// validated, without work beyond its size. The cost of each against its
// size is measured by bench/graph_bench.cpp (never timed here).
#include "TestUtil.h"
#include "ir/graph/Fingerprint.h"
#include "ir/graph/SymExpr.h"
#include "tests/support/HostileGraphs.h"

#include <gtest/gtest.h>

namespace anyshape {
namespace {

using test::failsWith;

TEST(HostileInputTest, DimExpressionDegreeIsBounded) {
  // 100,000 repeats of one symbol took forever (quadratic products) before.
  Status s = validateGraph(test::repeatedSymbolDim(100000)).status();
  EXPECT_EQ(s.code(), StatusCode::ResourceExhausted);
  EXPECT_TRUE(failsWith(s, {"input 'y'", "100000 factors", "limit is 16"}));
  EXPECT_TRUE(validateGraph(test::repeatedSymbolDim(16)).isOk());
  EXPECT_EQ(validateGraph(test::repeatedSymbolDim(17)).status().code(),
            StatusCode::ResourceExhausted);
}

TEST(HostileInputTest, DimExpressionTermsAreBounded) {
  Status s = validateGraph(test::manyTermsDim(100000)).status();
  EXPECT_EQ(s.code(), StatusCode::ResourceExhausted);
  EXPECT_TRUE(failsWith(s, {"input 'y'", "100000 terms", "limit is 64"}));
  auto info = validateGraph(test::manyTermsDim(64));
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  EXPECT_EQ(info->inputTypes[1].toString(), "f32[64*seq]");
}

TEST(HostileInputTest, DerivedExpressionsStopAtTheBounds) {
  // A reshape multiplies out its operand's dims: 8 sums of 16 symbols
  // would be 16^8 terms.
  Status s = validateGraph(test::productOfWideSums(8)).status();
  EXPECT_TRUE(failsWith(
      s, {"node 'r' (reshape)", "element count", "expression bounds"}))
      << s.toString();
  // Two such dims multiply out to 136 terms, within the bounds.
  auto info = validateGraph(test::productOfWideSums(2));
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  EXPECT_EQ(info->nodeTypes[0].dims[0].terms().size(), 136u);
}

TEST(HostileInputTest, SymExprArithmeticIsBounded) {
  SymExpr wide;
  for (int i = 0; i < 80; ++i)
    wide = *SymExpr::add(wide, SymExpr::symbol("s" + std::to_string(i)));
  // 80 x 80 term pairs pass kMaxTermProducts: refused before any work.
  EXPECT_EQ(SymExpr::mul(wide, wide), std::nullopt);
  // Beyond kMaxTerms by addition.
  SymExpr sum;
  for (size_t i = 0; i < SymExpr::kMaxTerms; ++i)
    sum = *SymExpr::add(sum, SymExpr::symbol("t" + std::to_string(i)));
  EXPECT_EQ(SymExpr::add(sum, SymExpr::symbol("one_more")), std::nullopt);
  EXPECT_TRUE(SymExpr::add(sum, SymExpr::constant(7)).has_value());
  // Beyond kMaxDegree by multiplication.
  SymExpr power = SymExpr::constant(1);
  for (size_t i = 0; i < SymExpr::kMaxDegree; ++i)
    power = *SymExpr::mul(power, SymExpr::symbol("seq"));
  EXPECT_EQ(SymExpr::mul(power, SymExpr::symbol("seq")), std::nullopt);
}

TEST(HostileInputTest, OperandsPerNodeAreBounded) {
  Status s = validateGraph(test::wideConcatenate(20000)).status();
  EXPECT_EQ(s.code(), StatusCode::ResourceExhausted);
  EXPECT_TRUE(failsWith(
      s, {"node 'c' (concatenate)", "20000 operands", "limit is 10000"}));
  auto info = validateGraph(test::wideConcatenate(5000));
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  EXPECT_EQ(info->nodeTypes[0].toString(), "f32[5000*seq, 4]");
}

TEST(HostileInputTest, LongChainsValidateAndFingerprint) {
  v1::Graph graph = test::elementwiseChain(100000);
  auto info = validateGraph(graph);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  EXPECT_EQ(info->topologicalOrder.size(), 100000u);
  Fingerprint a = fingerprintGraph(graph, *info);
  graph.mutable_nodes(50000)->set_op("neg");
  auto changed = validateGraph(graph);
  ASSERT_TRUE(changed.isOk());
  EXPECT_NE(fingerprintGraph(graph, *changed), a);
}

TEST(HostileInputTest, NamesWithControlBytesAreRejected) {
  v1::Graph graph = test::elementwiseChain(2);
  graph.mutable_nodes(1)->set_name(std::string("n\0x", 3));
  graph.set_outputs(0, graph.nodes(1).name());
  Status s = validateGraph(graph).status();
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(
      failsWith(s, {"node 1 name 'n\\x00x'", "control byte at offset 1"}))
      << s.toString();
  graph = test::elementwiseChain(2);
  graph.mutable_inputs(0)->set_name("x\n{\"forged\":1}");
  s = validateGraph(graph).status();
  EXPECT_TRUE(failsWith(s, {"input 0 name", "\\x0a", "control byte"}));
}

TEST(HostileInputTest, ErrorsQuoteUncheckedStringsEscaped) {
  // Ops and references are not names until they resolve; errors quote them
  // escaped, so no control byte reaches a log line or a status message.
  v1::Graph graph = test::elementwiseChain(1);
  graph.mutable_nodes(0)->set_op(std::string("ab\0s\x1b[2J", 8));
  Status s = validateGraph(graph).status();
  EXPECT_TRUE(failsWith(s, {"unknown op 'ab\\x00s\\x1b[2J'"})) << s.toString();
  graph = test::elementwiseChain(1);
  graph.mutable_nodes(0)->set_operands(0, "x\r\n");
  s = validateGraph(graph).status();
  EXPECT_TRUE(failsWith(s, {"operand 0 'x\\x0d\\x0a'"})) << s.toString();
  graph = test::elementwiseChain(1);
  graph.set_outputs(0, std::string(5000, '\t'));
  s = validateGraph(graph).status();
  EXPECT_TRUE(failsWith(s, {"output 0 '\\x09\\x09", "...'"}));
  EXPECT_LT(s.message().size(), 5000u);
  for (char c : s.message())
    EXPECT_GE(static_cast<unsigned char>(c), 0x20);
}

} // namespace
} // namespace anyshape

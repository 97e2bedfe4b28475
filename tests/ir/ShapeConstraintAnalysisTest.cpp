// The shape constraint analysis through the API fusion uses (isEqual,
// isSameNumElements, canonicalDim, staticValue, isKnownNonZero/NonOne), on
// IR parsed from text and on the imported examples.
#include "ir/dhlo/Analysis/ShapeConstraintAnalysis.h"
#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/graph/GraphText.h"
#include "ir/import/GraphImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace anyshape;
using namespace anyshape::dhlo;
using namespace mlir;

namespace {

class AnalysisTest : public ::testing::Test {
protected:
  AnalysisTest() {
    context_.loadDialect<DhloDialect, func::FuncDialect, arith::ArithDialect,
                         tensor::TensorDialect>();
  }

  /// Parses `text` (one func) and returns its values in definition order:
  /// the arguments, then every op result.
  std::vector<Value> parse(const std::string &text) {
    module_ = parseSourceString<ModuleOp>(text, &context_);
    EXPECT_TRUE(module_) << "parse failed";
    std::vector<Value> values;
    if (!module_)
      return values;
    func_ = *module_->getOps<func::FuncOp>().begin();
    for (BlockArgument arg : func_.getArguments())
      values.push_back(arg);
    func_.walk([&](Operation *op) {
      for (Value result : op->getResults())
        values.push_back(result);
    });
    return values;
  }

  MLIRContext context_;
  OwningOpRef<ModuleOp> module_;
  func::FuncOp func_;
};

TEST_F(AnalysisTest, ElementwiseMergesUnknownDims) {
  auto v = parse(R"(
    func.func @f(%a: tensor<?x4xf32>, %b: tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32> {
      %0 = dhlo.add %a, %b : (tensor<?x4xf32>, tensor<?x4xf32, #dhlo.shape<seq, 4>>) -> tensor<?x4xf32>
      return %0 : tensor<?x4xf32>
    })");
  ShapeConstraintAnalysis analysis(func_);
  EXPECT_TRUE(analysis.isEqual(v[0], 0, v[1], 0));
  EXPECT_TRUE(analysis.isEqual(v[0], 0, v[2], 0));
  // The representative is the user's symbol, not a fresh atom.
  EXPECT_EQ(analysis.canonicalDim(v[0], 0).toString(), "seq");
  EXPECT_EQ(analysis.staticValue(v[2], 1), 4);
  EXPECT_FALSE(analysis.isEqual(v[0], 0, v[0], 1));
  EXPECT_TRUE(analysis.contradictions().empty());
}

TEST_F(AnalysisTest, DistinctSymbolsStayDistinct) {
  auto v = parse(R"(
    func.func @f(%a: tensor<?xf32, #dhlo.shape<m>>, %b: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32, #dhlo.shape<m>> {
      %0 = dhlo.exp %a : (tensor<?xf32, #dhlo.shape<m>>) -> tensor<?xf32, #dhlo.shape<m>>
      return %0 : tensor<?xf32, #dhlo.shape<m>>
    })");
  ShapeConstraintAnalysis analysis(func_);
  EXPECT_FALSE(analysis.isEqual(v[0], 0, v[1], 0));
  EXPECT_FALSE(analysis.isSameNumElements(v[0], v[1]));
  EXPECT_TRUE(analysis.isSameNumElements(v[0], v[2]));
}

TEST_F(AnalysisTest, ReshapeProductCancelsToADimEquality) {
  // [batch, seq, 768] -> [?, 768]: the unknown dim is batch*seq, provable
  // because 768 is a non-zero common factor.
  auto v = parse(R"(
    func.func @f(%x: tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32> {
      %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, 768>} : (tensor<?x?x768xf32, #dhlo.shape<batch, seq, 768>>) -> tensor<?x768xf32>
      return %0 : tensor<?x768xf32>
    })");
  ShapeConstraintAnalysis analysis(func_);
  EXPECT_TRUE(analysis.isSameNumElements(v[0], v[1]));
  EXPECT_EQ(analysis.canonicalNumElements(v[1]),
            analysis.canonicalNumElements(v[0]));
  EXPECT_EQ(analysis.canonicalDim(v[1], 0).toString(), "batch*seq");
  EXPECT_TRUE(analysis.isKnownNonZero(v[1], 1));
}

TEST_F(AnalysisTest, ProductWithoutExactQuotientIsOnlyACountEquality) {
  // [a, b] -> [-1, 2]: the -1 is (a*b) floordiv 2, which no factor
  // cancels; the reshape still equates the counts (the run time checks
  // that 2 divides a*b).
  auto v = parse(R"(
    func.func @f(%x: tensor<?x?xf32, #dhlo.shape<a, b>>) -> tensor<?x2xf32> {
      %0 = dhlo.reshape %x {shape = #dhlo.shape<-1, 2>} : (tensor<?x?xf32, #dhlo.shape<a, b>>) -> tensor<?x2xf32>
      return %0 : tensor<?x2xf32>
    })");
  ShapeConstraintAnalysis analysis(func_);
  EXPECT_TRUE(analysis.isSameNumElements(v[0], v[1]));
  EXPECT_FALSE(analysis.isEqual(v[0], 0, v[1], 0));
  EXPECT_FALSE(analysis.isEqual(v[0], 1, v[1], 0));
  EXPECT_EQ(analysis.canonicalDim(v[1], 0).symbols().size(), 1u);
}

TEST_F(AnalysisTest, BroadcastOfSymbolicDimDoesNotProveEquality) {
  // The operand dim m may be 1 at run time and stretch to n.
  auto v = parse(R"(
    func.func @f(%x: tensor<?xf32, #dhlo.shape<m>>, %y: tensor<?x?xf32, #dhlo.shape<k, n>>) -> tensor<?x?xf32, #dhlo.shape<k, n>> {
      %0 = dhlo.broadcast_in_dim %x {shape = #dhlo.shape<k, n>, broadcast_dimensions = array<i64: 1>} : (tensor<?xf32, #dhlo.shape<m>>) -> tensor<?x?xf32, #dhlo.shape<k, n>>
      return %0 : tensor<?x?xf32, #dhlo.shape<k, n>>
    })");
  ShapeConstraintAnalysis analysis(func_);
  EXPECT_FALSE(analysis.isEqual(v[0], 0, v[2], 1));
}

TEST_F(AnalysisTest, BroadcastOfStaticNonOneDimProvesEquality) {
  auto v = parse(R"(
    func.func @f(%x: tensor<4xf32>) -> tensor<?x?xf32> {
      %0 = dhlo.broadcast_in_dim %x {shape = #dhlo.shape<k, ?>, broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<?x?xf32, #dhlo.shape<k, ?>>
      %1 = dhlo.exp %0 : (tensor<?x?xf32, #dhlo.shape<k, ?>>) -> tensor<?x?xf32>
      return %1 : tensor<?x?xf32>
    })");
  ShapeConstraintAnalysis analysis(func_);
  EXPECT_EQ(analysis.staticValue(v[2], 1), 4);
  EXPECT_TRUE(analysis.isKnownNonOne(v[2], 1));
  EXPECT_FALSE(analysis.isKnownNonOne(v[2], 0));
}

TEST_F(AnalysisTest, DotGeneralAndTransposeEqualities) {
  auto v = parse(R"(
    func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
      %0 = dhlo.transpose %b {permutation = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
      %1 = dhlo.dot_general %a, %0 {lhs_batch_dimensions = array<i64>, rhs_batch_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
      return %1 : tensor<?x?xf32>
    })");
  ShapeConstraintAnalysis analysis(func_);
  // a's columns contract with b's columns (through the transpose).
  EXPECT_TRUE(analysis.isEqual(v[0], 1, v[1], 1));
  EXPECT_TRUE(analysis.isEqual(v[3], 0, v[0], 0));
  EXPECT_TRUE(analysis.isEqual(v[3], 1, v[1], 0));
  EXPECT_FALSE(analysis.isEqual(v[3], 0, v[3], 1));
}

TEST_F(AnalysisTest, ConcatenateAxisIsTheSum) {
  auto v = parse(R"(
    func.func @f(%a: tensor<?x3xf32, #dhlo.shape<n, 3>>, %b: tensor<2x3xf32>) -> tensor<?x3xf32> {
      %0 = dhlo.concatenate %a, %b {dimension = 0 : i64} : (tensor<?x3xf32, #dhlo.shape<n, 3>>, tensor<2x3xf32>) -> tensor<?x3xf32>
      return %0 : tensor<?x3xf32>
    })");
  ShapeConstraintAnalysis analysis(func_);
  EXPECT_EQ(analysis.canonicalDim(v[2], 0).toString(), "n + 2");
}

TEST_F(AnalysisTest, ContradictionsAreReported) {
  parse(R"(
    func.func @f(%a: tensor<?xf32, #dhlo.shape<n>>) -> tensor<?xf32> {
      %c = dhlo.constant dense<1.0> : tensor<3xf32>
      %d = dhlo.constant dense<1.0> : tensor<4xf32>
      %0 = dhlo.add %a, %c : (tensor<?xf32, #dhlo.shape<n>>, tensor<3xf32>) -> tensor<?xf32>
      %1 = dhlo.add %a, %d : (tensor<?xf32, #dhlo.shape<n>>, tensor<4xf32>) -> tensor<?xf32>
      return %1 : tensor<?xf32>
    })");
  ShapeConstraintAnalysis analysis(func_);
  ASSERT_FALSE(analysis.contradictions().empty());
  EXPECT_NE(analysis.contradictions().front().find(
                "cannot hold: it reduces to 3 == 4"),
            std::string::npos)
      << analysis.contradictions().front();
}

TEST_F(AnalysisTest, UnsolvableLinearEqualitiesAreContradictions) {
  // concatenate([n], [n]) -> [5]: 2n = 5 has no integer solution.
  parse(R"(
    func.func @f(%a: tensor<?xf32, #dhlo.shape<n>>) -> tensor<5xf32> {
      %0 = dhlo.concatenate %a, %a {dimension = 0 : i64} : (tensor<?xf32, #dhlo.shape<n>>, tensor<?xf32, #dhlo.shape<n>>) -> tensor<5xf32>
      return %0 : tensor<5xf32>
    })");
  ShapeConstraintAnalysis analysis(func_);
  ASSERT_EQ(analysis.contradictions().size(), 1u);
  EXPECT_NE(analysis.contradictions().front().find("no solution in sizes"),
            std::string::npos);
}

TEST_F(AnalysisTest, RepresentativesPreferUserThenImporterSymbols) {
  // "?3" (the importer's) and an analysis atom merge: "?3" names the class.
  auto v = parse(R"(
    func.func @f(%a: tensor<?xf32, #dhlo.shape<"?3">>, %b: tensor<?xf32>) -> tensor<?xf32> {
      %0 = dhlo.add %a, %b : (tensor<?xf32, #dhlo.shape<"?3">>, tensor<?xf32>) -> tensor<?xf32>
      return %0 : tensor<?xf32>
    })");
  ShapeConstraintAnalysis analysis(func_);
  EXPECT_EQ(analysis.canonicalDim(v[1], 0).toString(), "?3");
}

TEST_F(AnalysisTest, AnonymousBroadcastTargetCopiesTheOperandDim) {
  auto v = parse(R"(
    func.func @f(%x: tensor<?xf32>) -> tensor<?x2xf32> {
      %0 = dhlo.broadcast_in_dim %x {broadcast_dimensions = array<i64: 0>, shape = #dhlo.shape<?, 2>} : (tensor<?xf32>) -> tensor<?x2xf32>
      return %0 : tensor<?x2xf32>
    })");
  ShapeConstraintAnalysis analysis(func_);
  EXPECT_TRUE(analysis.isEqual(v[0], 0, v[1], 0));
}

TEST_F(AnalysisTest, BertEncoderLayerClasses) {
  auto graph = loadGraphFile(std::string(ANYSHAPE_SOURCE_DIR) +
                             "/examples/bert_encoder_layer.pbtxt");
  ASSERT_TRUE(graph.isOk());
  module_ = importGraph(context_, *graph);
  ASSERT_TRUE(module_);
  func_ = *module_->getOps<func::FuncOp>().begin();
  ShapeConstraintAnalysis analysis(func_);
  Value x = func_.getArgument(0), mask = func_.getArgument(1);
  EXPECT_TRUE(analysis.isEqual(x, 0, mask, 0)); // batch
  EXPECT_TRUE(analysis.isEqual(x, 1, mask, 1)); // seq
  Value y = func_.getBody().back().getTerminator()->getOperand(0);
  EXPECT_TRUE(analysis.isSameNumElements(x, y));
  EXPECT_EQ(analysis.staticValue(y, 2), 768);
  // Every dim of every value is static, batch, seq or a product of them.
  int checked = 0;
  func_.walk([&](Operation *op) {
    for (Value result : op->getResults()) {
      auto type = llvm::dyn_cast<RankedTensorType>(result.getType());
      for (int64_t d = 0; type && d < type.getRank(); ++d, ++checked)
        for (const std::string &s : analysis.canonicalDim(result, d).symbols())
          EXPECT_TRUE(s == "batch" || s == "seq") << s;
    }
  });
  EXPECT_GT(checked, 200);
  EXPECT_TRUE(analysis.contradictions().empty());
}

} // namespace

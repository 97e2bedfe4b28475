// Tests of graph validation (validateGraph): one test per class of error a
// graph can have (unknown op, operand count, dangling reference, cycle,
// duplicate name, dtype, rank and static-dim conflicts, negative and
// overflowing sizes, attributes out of range, wrong or missing attributes,
// constant byte sizes, outputs, unknown dtype enum numbers, unbound symbols,
// resource limits), each asserting that validation fails and that the
// message names the node, input or output at fault. The types valid graphs
// get are in SymbolicTypesTest.cpp.
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

namespace anyshape {
namespace {

using test::dimsText;
using test::exprText;
using test::failsWith;
using test::inputText;
using test::nodeText;
using test::outputText;

Status validationError(const std::string &text,
                       const GraphLimits &limits = {}) {
  return validateGraph(test::parseGraph(text), limits).status();
}

Status validationError(const v1::Graph &graph, const GraphLimits &limits = {}) {
  return validateGraph(graph, limits).status();
}

const std::string kX23 = inputText("x", "f32", {"2", "3"});

// ---- structure
// ---------------------------------------------------------------

TEST(ValidateTest, UnknownOp) {
  Status s = validationError(kX23 + nodeText("n1", "frobnicate", {"x"}) +
                             outputText("n1"));
  EXPECT_TRUE(failsWith(s, {"node 'n1'", "unknown op 'frobnicate'"}));
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(failsWith(
      validationError(kX23 + nodeText("n2", "", {"x"}) + outputText("n2")),
      {"node 'n2'", "unknown op"}));
}

TEST(ValidateTest, WrongOperandCount) {
  EXPECT_TRUE(failsWith(
      validationError(kX23 + nodeText("a", "add", {"x"}) + outputText("a")),
      {"node 'a'", "takes 2 operand(s), got 1"}));
  EXPECT_TRUE(
      failsWith(validationError(kX23 + nodeText("s", "select", {"x", "x"}) +
                                outputText("s")),
                {"node 's'", "takes 3"}));
  EXPECT_TRUE(
      failsWith(validationError(kX23 +
                                nodeText("c", "concatenate", {},
                                         "concatenate { dimension: 0 }") +
                                outputText("c")),
                {"node 'c'", "at least 1"}));
  EXPECT_TRUE(failsWith(
      validationError(kX23 +
                      nodeText("k", "constant", {"x"},
                               "constant { dtype: DTYPE_F32 splat: 1 }") +
                      outputText("k")),
      {"node 'k'", "takes 0"}));
}

TEST(ValidateTest, DanglingOperand) {
  Status s = validationError(kX23 + nodeText("a", "add", {"x", "nope"}) +
                             outputText("a"));
  EXPECT_TRUE(
      failsWith(s, {"node 'a'", "operand 1 'nope'", "not an input or node"}));
}

TEST(ValidateTest, Cycle) {
  EXPECT_TRUE(
      failsWith(validationError(kX23 + nodeText("a", "abs", {"b"}) +
                                nodeText("b", "abs", {"a"}) + outputText("b")),
                {"node 'a'", "cycle"}));
  EXPECT_TRUE(
      failsWith(validationError(kX23 + nodeText("self", "abs", {"self"}) +
                                outputText("self")),
                {"node 'self'", "cycle"}));
  // A node downstream of a cycle cannot be typed either.
  EXPECT_TRUE(failsWith(validationError(kX23 + nodeText("after", "neg", {"a"}) +
                                        nodeText("a", "add", {"x", "b"}) +
                                        nodeText("b", "abs", {"a"}) +
                                        outputText("after")),
                        {"node 'after'", "depends on a cycle"}));
}

TEST(ValidateTest, DuplicateNames) {
  EXPECT_TRUE(
      failsWith(validationError(kX23 + nodeText("a", "abs", {"x"}) +
                                nodeText("a", "neg", {"x"}) + outputText("a")),
                {"node 'a'", "duplicate name", "also node 0"}));
  EXPECT_TRUE(failsWith(
      validationError(kX23 + nodeText("x", "abs", {"x"}) + outputText("x")),
      {"node 'x'", "duplicate name", "also an input"}));
  EXPECT_TRUE(failsWith(
      validationError(kX23 + inputText("x", "f32", {"2"}) + outputText("x")),
      {"input 'x'", "duplicate name"}));
}

TEST(ValidateTest, EmptyNames) {
  EXPECT_TRUE(failsWith(
      validationError(kX23 + nodeText("", "abs", {"x"}) + outputText("x")),
      {"node 0", "empty name"}));
  EXPECT_TRUE(
      failsWith(validationError(inputText("", "f32", {"2"}) + outputText("x")),
                {"input 0", "empty name"}));
}

TEST(ValidateTest, EmptyOutputs) {
  EXPECT_TRUE(failsWith(validationError(kX23 + nodeText("a", "abs", {"x"})),
                        {"no outputs"}));
}

TEST(ValidateTest, OutputReferencesUnknownName) {
  EXPECT_TRUE(failsWith(validationError(kX23 + nodeText("a", "abs", {"x"}) +
                                        outputText("a") + outputText("zzz")),
                        {"output 1 'zzz'", "not an input or node"}));
}

// ---- types
// -------------------------------------------------------------------

TEST(ValidateTest, DtypeMismatch) {
  Status s =
      validationError(kX23 + inputText("y", "i32", {"2", "3"}) +
                      nodeText("s", "add", {"x", "y"}) + outputText("s"));
  EXPECT_TRUE(
      failsWith(s, {"node 's'", "dtypes differ", "f32[2, 3]", "i32[2, 3]"}));
  // Ops that need float operands.
  EXPECT_TRUE(
      failsWith(validationError(inputText("n", "i32", {"2"}) +
                                nodeText("e", "exp", {"n"}) + outputText("e")),
                {"node 'e'", "float"}));
  EXPECT_TRUE(failsWith(
      validationError(kX23 + nodeText("b", "not", {"x"}) + outputText("b")),
      {"node 'b'", "bool or integer"}));
  EXPECT_TRUE(failsWith(validationError(inputText("p", "bool", {"2"}) +
                                        nodeText("s", "add", {"p", "p"}) +
                                        outputText("s")),
                        {"node 's'", "numeric"}));
  EXPECT_TRUE(failsWith(
      validationError(kX23 + nodeText("s", "select", {"x", "x", "x"}) +
                      outputText("s")),
      {"node 's'", "predicate must be bool"}));
}

TEST(ValidateTest, RankMismatch) {
  EXPECT_TRUE(failsWith(validationError(kX23 + inputText("y", "f32", {"3"}) +
                                        nodeText("s", "mul", {"x", "y"}) +
                                        outputText("s")),
                        {"node 's'", "ranks differ"}));
  EXPECT_TRUE(
      failsWith(validationError(kX23 + inputText("p", "bool", {"2"}) +
                                nodeText("s", "select", {"p", "x", "x"}) +
                                outputText("s")),
                {"node 's'", "scalar or match"}));
}

TEST(ValidateTest, ContradictoryStaticDims) {
  EXPECT_TRUE(failsWith(
      validationError(kX23 + inputText("y", "f32", {"2", "4"}) +
                      nodeText("s", "sub", {"x", "y"}) + outputText("s")),
      {"node 's'", "differ at dim 1"}));
  EXPECT_TRUE(failsWith(
      validationError(kX23 + inputText("w", "f32", {"4", "5"}) +
                      nodeText("d", "dot_general", {"x", "w"},
                               "dot_general { lhs_contracting_dimensions: 1 "
                               "rhs_contracting_dimensions: 0 }") +
                      outputText("d")),
      {"node 'd'", "contracting dims differ", "3", "4"}));
  EXPECT_TRUE(
      failsWith(validationError(kX23 + inputText("y", "f32", {"3", "4"}) +
                                nodeText("c", "concatenate", {"x", "y"},
                                         "concatenate { dimension: 0 }") +
                                outputText("c")),
                {"node 'c'", "differs at dim 1"}));
}

TEST(ValidateTest, NegativeSizes) {
  EXPECT_TRUE(
      failsWith(validationError("inputs { name: \"x\" type { dtype: DTYPE_F32 "
                                "dims { size: 2 } dims { size: -2 } } }" +
                                outputText("x")),
                {"input 'x'", "negative size -2"}));
  // -1 means "inferred" in reshape only.
  EXPECT_TRUE(failsWith(
      validationError(inputText("x", "f32", {"-1"}) + outputText("x")),
      {"input 'x'", "negative"}));
  EXPECT_TRUE(failsWith(
      validationError(nodeText("c", "constant", {},
                               "constant { dtype: DTYPE_F32 shape: -1 "
                               "splat: 0 }") +
                      outputText("c")),
      {"node 'c'", "negative"}));
  EXPECT_TRUE(failsWith(
      validationError(nodeText("i", "iota", {},
                               "iota { dtype: DTYPE_I32 shape { size: -3 } }") +
                      outputText("i")),
      {"node 'i'", "negative"}));
  // Cropping more than the dim holds.
  EXPECT_TRUE(failsWith(
      validationError(kX23 + inputText("v", "f32", {}) +
                      nodeText("p", "pad", {"x", "v"},
                               "pad { edge_padding_low: -2 edge_padding_low: 0 "
                               "edge_padding_high: -1 edge_padding_high: 0 }") +
                      outputText("p")),
      {"node 'p'", "negative"}));
  // A symbolic input dim whose expression is a negative constant.
  EXPECT_TRUE(failsWith(validationError(inputText("x", "f32", {"n"}) +
                                        inputText("y", "f32", {"n - n - 1"}) +
                                        outputText("y")),
                        {"input 'y'", "negative"}));
}

TEST(ValidateTest, ElementCountOverflow) {
  const std::string big = std::to_string(int64_t(1) << 40);
  EXPECT_TRUE(failsWith(
      validationError(inputText("x", "f32", {big, big}) + outputText("x")),
      {"input 'x'", "element count"}));
  EXPECT_TRUE(
      failsWith(validationError(inputText("x", "f32", {"1"}) +
                                nodeText("b", "broadcast_in_dim", {"x"},
                                         "broadcast_in_dim { " +
                                             dimsText({big, big}, "shape") +
                                             "broadcast_dimensions: 0 }") +
                                outputText("b")),
                {"node 'b'", "element count"}));
  EXPECT_TRUE(failsWith(
      validationError(nodeText("c", "constant", {},
                               "constant { dtype: DTYPE_F32 shape: " + big +
                                   " shape: " + big + " splat: 0 }") +
                      outputText("c")),
      {"node 'c'", "overflows"}));
  // Symbolic dims do not hide an overflowing static part.
  EXPECT_TRUE(failsWith(
      validationError(inputText("x", "f32", {"n", big, big}) + outputText("x")),
      {"input 'x'", "element count"}));
  EXPECT_EQ(validationError(inputText("x", "f32", {big, big}) + outputText("x"))
                .code(),
            StatusCode::ResourceExhausted);
  // With no element limit to speak of, the product itself overflows int64.
  GraphLimits unlimited;
  unlimited.maxElementsPerTensor = std::numeric_limits<int64_t>::max();
  EXPECT_TRUE(failsWith(
      validationError(inputText("x", "f32", {big, big}) + outputText("x"),
                      unlimited),
      {"input 'x'", "element count"}));
  EXPECT_TRUE(
      validationError(inputText("x", "f32", {big, "2"}) + outputText("x"),
                      unlimited)
          .isOk());
}

// ---- attributes
// ----------------------------------------------------------------

TEST(ValidateTest, ReduceDimensionsOutOfRange) {
  auto reduce = [](const std::string &dims) {
    return validationError(kX23 +
                           nodeText("r", "reduce", {"x"},
                                    "reduce { kind: REDUCE_SUM " + dims + "}") +
                           outputText("r"));
  };
  EXPECT_TRUE(failsWith(reduce("dimensions: 2 "),
                        {"node 'r'", "reduce dimension 2 is out of range"}));
  EXPECT_TRUE(failsWith(reduce("dimensions: -1 "), {"node 'r'", "-1"}));
  EXPECT_TRUE(failsWith(reduce("dimensions: 1 dimensions: 1 "),
                        {"node 'r'", "appears twice"}));
  EXPECT_TRUE(failsWith(
      validationError(
          kX23 + nodeText("r", "reduce", {"x"}, "reduce { dimensions: 0 }") +
          outputText("r")),
      {"node 'r'", "no valid kind"}));
}

TEST(ValidateTest, TransposeNotAPermutation) {
  auto transpose = [](const std::string &perm) {
    return validationError(
        kX23 + nodeText("t", "transpose", {"x"}, "transpose { " + perm + "}") +
        outputText("t"));
  };
  EXPECT_TRUE(failsWith(transpose("permutation: 0 permutation: 0 "),
                        {"node 't'", "appears twice"}));
  EXPECT_TRUE(failsWith(transpose("permutation: 0 permutation: 2 "),
                        {"node 't'", "out of range"}));
  EXPECT_TRUE(failsWith(transpose("permutation: 0 "),
                        {"node 't'", "1 entries for rank 2"}));
}

TEST(ValidateTest, SliceBoundsOutOfRange) {
  auto slice = [](const std::string &attrs) {
    return validationError(kX23 + nodeText("s", "slice", {"x"}, attrs) +
                           outputText("s"));
  };
  EXPECT_TRUE(failsWith(slice(test::sliceText({"0", "3"}, {"2", "2"})),
                        {"node 's'", "start 3 exceeds limit 2"}));
  EXPECT_TRUE(failsWith(slice(test::sliceText({"0", "0"}, {"2", "4"})),
                        {"node 's'", "limit 4 exceeds the dim"}));
  EXPECT_TRUE(failsWith(slice(test::sliceText({"0", "0"}, {"2", "3"}, {1, 0})),
                        {"node 's'", "stride 0"}));
  EXPECT_TRUE(failsWith(slice(test::sliceText({"0", "-1"}, {"2", "3"})),
                        {"node 's'", "negative"}));
  EXPECT_TRUE(failsWith(slice(test::sliceText({"0"}, {"2"})),
                        {"node 's'", "one start and one limit per dim"}));
}

TEST(ValidateTest, GatherAxisOutOfRange) {
  auto gather = [](const std::string &indexType, int axis) {
    return validationError(
        kX23 + inputText("i", indexType, {"4"}) +
        nodeText("g", "gather", {"x", "i"},
                 "gather { axis: " + std::to_string(axis) + " }") +
        outputText("g"));
  };
  EXPECT_TRUE(failsWith(gather("i32", 2), {"node 'g'", "gather axis 2"}));
  EXPECT_TRUE(failsWith(gather("i64", -1), {"node 'g'", "gather axis -1"}));
  EXPECT_TRUE(failsWith(gather("f32", 0), {"node 'g'", "i32 or i64"}));
  EXPECT_TRUE(gather("i64", 1).isOk());
}

TEST(ValidateTest, BroadcastDimensionsOutOfRange) {
  auto broadcast = [](const std::vector<std::string> &shape,
                      const std::string &mapping) {
    return validationError(kX23 +
                           nodeText("b", "broadcast_in_dim", {"x"},
                                    "broadcast_in_dim { " +
                                        dimsText(shape, "shape") + mapping +
                                        "}") +
                           outputText("b"));
  };
  EXPECT_TRUE(failsWith(broadcast({"4", "2", "3"}, "broadcast_dimensions: 1 "
                                                   "broadcast_dimensions: 3 "),
                        {"node 'b'", "broadcast_dimensions entry 3"}));
  EXPECT_TRUE(failsWith(broadcast({"2", "3"}, "broadcast_dimensions: 0 "),
                        {"node 'b'", "1 entries for an operand of rank 2"}));
  EXPECT_TRUE(failsWith(broadcast({"2", "3"}, "broadcast_dimensions: 1 "
                                              "broadcast_dimensions: 1 "),
                        {"node 'b'", "appears twice"}));
  // Operand dim 1 (3) is neither 1 nor the result dim it maps to (5).
  EXPECT_TRUE(failsWith(broadcast({"2", "5"}, "broadcast_dimensions: 0 "
                                              "broadcast_dimensions: 1 "),
                        {"node 'b'", "neither 1 nor result dim 1"}));
  // An anonymous result dim needs an operand dim.
  EXPECT_TRUE(failsWith(broadcast({"2", "3", "?"}, "broadcast_dimensions: 0 "
                                                   "broadcast_dimensions: 1 "),
                        {"node 'b'", "anonymous"}));
}

TEST(ValidateTest, IotaDimensionOutOfRange) {
  EXPECT_TRUE(failsWith(
      validationError(nodeText("i", "iota", {},
                               "iota { dtype: DTYPE_I32 shape { size: 3 } "
                               "iota_dimension: 1 }") +
                      outputText("i")),
      {"node 'i'", "iota_dimension 1 is out of range for rank 1"}));
  EXPECT_TRUE(failsWith(
      validationError(nodeText("i", "iota", {},
                               "iota { dtype: DTYPE_BOOL shape { size: 3 } }") +
                      outputText("i")),
      {"node 'i'", "numeric dtype"}));
}

TEST(ValidateTest, DotGeneralDimensionsOutOfRange) {
  auto dot = [](const std::string &attrs) {
    return validationError(kX23 + inputText("w", "f32", {"3", "4"}) +
                           nodeText("d", "dot_general", {"x", "w"},
                                    "dot_general { " + attrs + "}") +
                           outputText("d"));
  };
  EXPECT_TRUE(dot("lhs_contracting_dimensions: 1 "
                  "rhs_contracting_dimensions: 0 ")
                  .isOk());
  EXPECT_TRUE(failsWith(dot("lhs_contracting_dimensions: 5 "
                            "rhs_contracting_dimensions: 0 "),
                        {"node 'd'", "lhs dimension 5 is out of range"}));
  EXPECT_TRUE(failsWith(dot("lhs_contracting_dimensions: 1 "
                            "rhs_contracting_dimensions: 2 "),
                        {"node 'd'", "rhs dimension 2"}));
  EXPECT_TRUE(failsWith(dot("lhs_contracting_dimensions: 1 "),
                        {"node 'd'", "different numbers"}));
  EXPECT_TRUE(failsWith(dot("lhs_batch_dimensions: 1 rhs_batch_dimensions: 0 "
                            "lhs_contracting_dimensions: 1 "
                            "rhs_contracting_dimensions: 1 "),
                        {"node 'd'", "appears twice"}));
}

TEST(ValidateTest, OtherAttributesOutOfRange) {
  EXPECT_TRUE(
      failsWith(validationError(kX23 +
                                nodeText("c", "concatenate", {"x"},
                                         "concatenate { dimension: 2 }") +
                                outputText("c")),
                {"node 'c'", "concatenate dimension 2"}));
  EXPECT_TRUE(failsWith(
      validationError(
          kX23 + nodeText("d", "dim_size", {"x"}, "dim_size { dimension: 2 }") +
          outputText("d")),
      {"node 'd'", "dim_size dimension 2"}));
  EXPECT_TRUE(failsWith(
      validationError(kX23 +
                      nodeText("c", "compare", {"x", "x"}, "compare { }") +
                      outputText("c")),
      {"node 'c'", "no valid direction"}));
  EXPECT_TRUE(failsWith(
      validationError(kX23 + inputText("v", "f32", {}) +
                      nodeText("p", "pad", {"x", "v"},
                               "pad { edge_padding_low: 0 edge_padding_low: 0 "
                               "edge_padding_high: 0 edge_padding_high: 0 "
                               "interior_padding: 0 interior_padding: -1 }") +
                      outputText("p")),
      {"node 'p'", "interior padding -1"}));
  EXPECT_TRUE(failsWith(
      validationError(kX23 +
                      nodeText("p", "pad", {"x", "x"},
                               "pad { edge_padding_low: 0 edge_padding_low: 0 "
                               "edge_padding_high: 0 edge_padding_high: 0 }") +
                      outputText("p")),
      {"node 'p'", "scalar"}));
}

TEST(ValidateTest, ConstantDataByteSizeMismatch) {
  v1::Graph g = test::parseGraph(
      nodeText("c", "constant", {}, "constant { dtype: DTYPE_F32 shape: 3 }") +
      outputText("c"));
  g.mutable_nodes(0)->mutable_constant()->set_data(std::string(8, '\0'));
  EXPECT_TRUE(
      failsWith(validationError(g), {"node 'c'", "8 bytes", "needs 12"}));
  g.mutable_nodes(0)->mutable_constant()->set_data(std::string(12, '\0'));
  EXPECT_TRUE(validationError(g).isOk());
}

TEST(ValidateTest, ConstantValueProblems) {
  auto constant = [](const std::string &attrs) {
    return validationError(
        nodeText("c", "constant", {}, "constant { " + attrs + " }") +
        outputText("c"));
  };
  EXPECT_TRUE(failsWith(constant("dtype: DTYPE_F32 shape: 2"),
                        {"node 'c'", "no value"}));
  EXPECT_TRUE(failsWith(constant("dtype: DTYPE_I32 splat: nan"),
                        {"node 'c'", "NaN splat"}));
  EXPECT_TRUE(constant("dtype: DTYPE_F32 splat: nan").isOk());
  EXPECT_TRUE(
      failsWith(constant("dtype: DTYPE_F32 seeded_uniform { low: 2 high: 1 }"),
                {"node 'c'", "low <= high"}));
  EXPECT_TRUE(failsWith(constant("dtype: DTYPE_F32 tensor_id: \"\""),
                        {"node 'c'", "empty tensor_id"}));
}

TEST(ValidateTest, MissingAttributes) {
  EXPECT_TRUE(failsWith(
      validationError(kX23 + nodeText("r", "reshape", {"x"}) + outputText("r")),
      {"node 'r'", "needs 'reshape' attributes, got 'none'"}));
  EXPECT_TRUE(failsWith(
      validationError(kX23 + nodeText("c", "convert", {"x"}) + outputText("c")),
      {"node 'c'", "needs 'convert'"}));
}

TEST(ValidateTest, WrongAttributesKind) {
  EXPECT_TRUE(failsWith(
      validationError(kX23 +
                      nodeText("r", "reshape", {"x"},
                               "transpose { permutation: 1 permutation: 0 }") +
                      outputText("r")),
      {"node 'r'", "needs 'reshape' attributes, got 'transpose'"}));
  EXPECT_TRUE(failsWith(
      validationError(kX23 +
                      nodeText("a", "abs", {"x"},
                               "reduce { kind: REDUCE_SUM dimensions: 0 }") +
                      outputText("a")),
      {"node 'a'", "takes no attributes, got 'reduce'"}));
}

TEST(ValidateTest, UnknownDTypeEnumNumber) {
  v1::Graph g = test::parseGraph(kX23 + outputText("x"));
  g.mutable_inputs(0)->mutable_type()->set_dtype(static_cast<v1::DType>(99));
  EXPECT_TRUE(failsWith(validationError(g), {"input 'x'", "dtype(99)"}));

  g = test::parseGraph(
      kX23 + nodeText("c", "convert", {"x"}, "convert { dtype: DTYPE_I32 }") +
      outputText("c"));
  g.mutable_nodes(0)->mutable_convert()->set_dtype(static_cast<v1::DType>(99));
  EXPECT_TRUE(failsWith(validationError(g), {"node 'c'", "dtype(99)"}));

  g = test::parseGraph(
      nodeText("k", "constant", {}, "constant { dtype: DTYPE_F32 splat: 1 }") +
      outputText("k"));
  g.mutable_nodes(0)->mutable_constant()->set_dtype(static_cast<v1::DType>(99));
  EXPECT_TRUE(failsWith(validationError(g), {"node 'k'", "dtype(99)"}));

  // DTYPE_UNSPECIFIED is no dtype either.
  g = test::parseGraph(kX23 + outputText("x"));
  g.mutable_inputs(0)->mutable_type()->set_dtype(v1::DTYPE_UNSPECIFIED);
  EXPECT_TRUE(failsWith(validationError(g), {"input 'x'", "unknown dtype"}));
}

TEST(ValidateTest, SymbolNotBoundByAnyInput) {
  EXPECT_TRUE(
      failsWith(validationError(
                    inputText("x", "f32", {"n"}) +
                    nodeText("r", "reshape", {"x"},
                             "reshape { " + dimsText({"zzz"}, "shape") + "}") +
                    outputText("r")),
                {"node 'r'", "'zzz'"}));
  EXPECT_TRUE(
      failsWith(validationError(inputText("x", "f32", {"n"}) +
                                nodeText("s", "slice", {"x"},
                                         test::sliceText({"0"}, {"m - 1"})) +
                                outputText("s")),
                {"node 's'", "'m'"}));
  // An input's expression dim may only use symbols some input binds.
  EXPECT_TRUE(failsWith(
      validationError(inputText("y", "f32", {"n + 1"}) + outputText("y")),
      {"input 'y'", "'n'"}));
  // Binding by a later input is fine.
  EXPECT_TRUE(validationError(inputText("y", "f32", {"n + 1"}) +
                              inputText("x", "f32", {"n"}) + outputText("y"))
                  .isOk());
}

TEST(ValidateTest, ReshapeProblems) {
  auto reshape = [](const std::vector<std::string> &shape) {
    return validationError(
        kX23 +
        nodeText("r", "reshape", {"x"},
                 "reshape { " + dimsText(shape, "shape") + "}") +
        outputText("r"));
  };
  EXPECT_TRUE(
      failsWith(reshape({"-1", "-1"}), {"node 'r'", "more than one -1"}));
  EXPECT_TRUE(failsWith(reshape({"2", "4"}),
                        {"node 'r'", "element count from 6 to 8"}));
  EXPECT_TRUE(failsWith(reshape({"4", "-1"}), {"node 'r'", "cannot split"}));
  EXPECT_TRUE(failsWith(reshape({"0", "-1"}), {"node 'r'", "0 dim"}));
  EXPECT_TRUE(failsWith(reshape({"-2", "-3"}), {"node 'r'", "negative"}));
  EXPECT_TRUE(failsWith(reshape({"?", "6"}), {"node 'r'", "anonymous"}));
}

TEST(ValidateTest, DynamicMustBeTrue) {
  v1::Graph g =
      test::parseGraph(inputText("x", "f32", {"?"}) + outputText("x"));
  EXPECT_TRUE(validationError(g).isOk());
  g.mutable_inputs(0)->mutable_type()->mutable_dims(0)->set_dynamic(false);
  EXPECT_TRUE(failsWith(validationError(g), {"input 'x'", "must be true"}));
  g.mutable_inputs(0)->mutable_type()->mutable_dims(0)->Clear();
  EXPECT_TRUE(failsWith(validationError(g), {"input 'x'", "dim 0"}));
}

TEST(ValidateTest, ExtremeCoefficientsDoNotTrap) {
  // x: f32[n, INT64_MIN*n] reshaped to [-1, -n]: inferring the -1 divides
  // INT64_MIN*n*n by -n, which must not reach INT64_MIN % -1 (SIGFPE).
  v1::Graph g = test::parseGraph(
      "inputs { name: \"x\" type { dtype: DTYPE_F32 dims { symbol: \"n\" } "
      "dims { expr { terms { coefficient: -9223372036854775808 "
      "symbols: \"n\" } } } } }\n" +
      nodeText("r", "reshape", {"x"},
               "reshape { shape { size: -1 } shape { expr { terms { "
               "coefficient: -1 symbols: \"n\" } } } }") +
      outputText("r"));
  auto info = validateGraph(g);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  EXPECT_EQ(info->nodeTypes[0].toString(), "f32[?0, -n]");
}

// ---- limits
// ------------------------------------------------------------------

TEST(ValidateTest, MaxNodesAndInputs) {
  std::string text = kX23 + nodeText("a", "abs", {"x"}) +
                     nodeText("b", "neg", {"a"}) + nodeText("c", "exp", {"b"}) +
                     outputText("c");
  GraphLimits limits;
  limits.maxNodes = 2;
  Status s = validationError(text, limits);
  EXPECT_EQ(s.code(), StatusCode::ResourceExhausted);
  EXPECT_TRUE(failsWith(s, {"3 nodes", "limit is 2"}));
  limits.maxNodes = 3;
  EXPECT_TRUE(validationError(text, limits).isOk());

  limits.maxInputs = 0;
  EXPECT_TRUE(failsWith(validationError(text, limits), {"1 inputs"}));
}

TEST(ValidateTest, MaxRank) {
  GraphLimits limits;
  limits.maxRank = 2;
  Status s = validationError(
      inputText("x", "f32", {"1", "2", "3"}) + outputText("x"), limits);
  EXPECT_EQ(s.code(), StatusCode::ResourceExhausted);
  EXPECT_TRUE(failsWith(s, {"input 'x'", "rank 3"}));
  // A node whose result exceeds the rank limit.
  EXPECT_TRUE(failsWith(
      validationError(kX23 +
                          nodeText("b", "broadcast_in_dim", {"x"},
                                   "broadcast_in_dim { " +
                                       dimsText({"4", "2", "3"}, "shape") +
                                       "broadcast_dimensions: 1 "
                                       "broadcast_dimensions: 2 }") +
                          outputText("b"),
                      limits),
      {"node 'b'", "rank 3"}));
}

TEST(ValidateTest, MaxElementsConstantBytesAndNameLength) {
  GraphLimits limits;
  limits.maxElementsPerTensor = 50;
  EXPECT_TRUE(failsWith(
      validationError(inputText("x", "f32", {"10", "10"}) + outputText("x"),
                      limits),
      {"input 'x'", "exceeds the limit of 50"}));
  EXPECT_TRUE(validationError(
                  inputText("x", "f32", {"5", "10"}) + outputText("x"), limits)
                  .isOk());

  limits = GraphLimits();
  limits.maxConstantBytes = 100;
  std::string constants =
      nodeText("c1", "constant", {},
               "constant { dtype: DTYPE_F32 shape: 20 splat: 0 }") +
      nodeText("c2", "constant", {},
               "constant { dtype: DTYPE_F32 shape: 20 splat: 0 }") +
      outputText("c2");
  Status s = validationError(constants, limits);
  EXPECT_EQ(s.code(), StatusCode::ResourceExhausted);
  EXPECT_TRUE(failsWith(s, {"node 'c2'", "100 bytes"}));

  // Only what the compiler embeds counts against maxEmbeddedConstantBytes:
  // splats and seeded uniforms past 4096 elements are generated, so 32 KiB
  // of them pass a 100-byte limit; 26 f32 of raw data or a small seeded
  // constant do not.
  limits = GraphLimits();
  limits.maxEmbeddedConstantBytes = 100;
  std::string generated =
      nodeText("s", "constant", {},
               "constant { dtype: DTYPE_F32 shape: 8192 splat: 1 }") +
      nodeText("u", "constant", {},
               "constant { dtype: DTYPE_F32 shape: 8192 "
               "seeded_uniform { seed: 1 low: 0 high: 1 } }");
  EXPECT_TRUE(validationError(generated + outputText("u"), limits).isOk());
  for (std::string value : {"data: '" + std::string(104, 'x') + "'",
                            std::string("seeded_uniform { seed: 1 }")}) {
    std::string small =
        nodeText("d", "constant", {},
                 "constant { dtype: DTYPE_F32 shape: 26 " + value + " }");
    s = validationError(generated + small + outputText("d"), limits);
    EXPECT_EQ(s.code(), StatusCode::ResourceExhausted) << value;
    EXPECT_TRUE(failsWith(
        s, {"node 'd'", "compiled into the code", "limit of 100 bytes"}))
        << value;
  }

  limits = GraphLimits();
  limits.maxNameLength = 4;
  EXPECT_TRUE(failsWith(
      validationError(
          kX23 + nodeText("toolong", "abs", {"x"}) + outputText("x"), limits),
      {"node 0", "longer than 4"}));
}

} // namespace
} // namespace anyshape

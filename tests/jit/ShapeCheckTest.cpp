// The generated shape checks (codegen/Common/ShapeCheckFunction.h) against the
// concrete shape walk (checkConcreteShapes), which applies the same shape
// rules to numbers. One graph per kind of run-time check, each compiled
// once and run at every combination of small input dims, most of which
// break some rule: the executable must accept exactly the shape lists the
// walk accepts, fail with the same status code otherwise, name an input
// dim in its error, and, when it accepts, compute what the reference
// evaluator computes.
#include "compiler/Compiler.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/Validate.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"

#include "RandomInputs.h"

#include <gtest/gtest.h>

using namespace anyshape;

namespace {

constexpr v1::DType F32 = v1::DTYPE_F32;

v1::Dim sym(const std::string &name) {
  v1::Dim d;
  d.set_symbol(name);
  return d;
}
v1::Dim size(int64_t n) {
  v1::Dim d;
  d.set_size(n);
  return d;
}
v1::Dim anonymous() {
  v1::Dim d;
  d.set_dynamic(true);
  return d;
}
/// coefficient * symbol + constant.
v1::DimExpr affine(int64_t coefficient, const std::string &symbol,
                   int64_t constant = 0) {
  v1::DimExpr e;
  auto *term = e.add_terms();
  term->set_coefficient(coefficient);
  term->add_symbols(symbol);
  e.set_constant(constant);
  return e;
}
v1::DimExpr constantExpr(int64_t value) {
  v1::DimExpr e;
  e.set_constant(value);
  return e;
}

void input(v1::Graph &g, const std::string &name, std::vector<v1::Dim> dims,
           v1::DType dtype = F32) {
  auto *in = g.add_inputs();
  in->set_name(name);
  in->mutable_type()->set_dtype(dtype);
  for (v1::Dim &d : dims)
    *in->mutable_type()->add_dims() = std::move(d);
}
v1::Node *node(v1::Graph &g, const std::string &name, const std::string &op,
               std::vector<std::string> operands) {
  auto *n = g.add_nodes();
  n->set_name(name);
  n->set_op(op);
  for (const std::string &o : operands)
    n->add_operands(o);
  return n;
}

/// Runs `graph` at every assignment of `sizes` to its inputs' dims.
void checkEveryShape(const v1::Graph &graph,
                     const std::vector<int64_t> &sizes) {
  auto info = validateGraph(graph);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  auto executable = compiler::Compiler::compile(graph);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  std::vector<int> rank;
  int dims = 0;
  for (const v1::Input &in : graph.inputs()) {
    rank.push_back(in.type().dims_size());
    dims += in.type().dims_size();
  }
  std::vector<size_t> at(dims, 0);
  int accepted = 0, rejected = 0;
  for (bool done = false; !done;) {
    std::vector<std::vector<int64_t>> shapes;
    int d = 0;
    for (int r : rank) {
      shapes.emplace_back();
      for (int i = 0; i < r; ++i)
        shapes.back().push_back(sizes[at[d++]]);
    }
    std::string where;
    for (const auto &shape : shapes) {
      where += "[";
      for (int64_t s : shape)
        where += std::to_string(s) + " ";
      where += "]";
    }
    auto expected = checkConcreteShapes(graph, *info, shapes);
    auto [inputs, tensors] = test::randomInputs(graph, shapes, 7);
    auto actual = (*executable)->run(tensors);
    ASSERT_EQ(expected.isOk(), actual.isOk())
        << graph.name() << " at " << where << ": walk " << expected.toString()
        << ", executable " << actual.status().toString();
    if (!actual.isOk()) {
      ++rejected;
      EXPECT_EQ(expected.code(), actual.status().code())
          << graph.name() << " at " << where << ": walk " << expected.toString()
          << ", executable " << actual.status().toString();
      EXPECT_NE(actual.status().message().find("dim"), std::string::npos)
          << actual.status().toString();
    } else {
      ++accepted;
      auto reference = evaluateGraph(graph, inputs);
      ASSERT_TRUE(reference.isOk()) << reference.status().toString();
      for (size_t o = 0; o < actual->size(); ++o) {
        NumericDiff c =
            compareLiterals(*literalFromTensor((*actual)[o]), (*reference)[o]);
        ASSERT_TRUE(c.ok())
            << graph.name() << " at " << where << ": " << c.firstMismatch;
      }
    }
    done = true;
    for (int k = dims - 1; k >= 0; --k) {
      if (++at[k] < sizes.size()) {
        done = false;
        break;
      }
      at[k] = 0;
    }
  }
  // Both outcomes must occur, or the graph tests nothing.
  EXPECT_GT(accepted, 0) << graph.name();
  EXPECT_GT(rejected, 0) << graph.name();
}

const std::vector<int64_t> kSizes = {0, 1, 2, 3, 4, 6};

TEST(ShapeChecks, InputDimsBindAndMatchDeclaredSizes) {
  v1::Graph g;
  g.set_name("inputs");
  input(g, "x", {sym("n"), size(2)});
  v1::Dim twice;
  *twice.mutable_expr() = affine(2, "n");
  input(g, "y", {std::move(twice)});
  input(g, "z", {sym("n")});
  node(g, "sum", "reduce", {"x"})->mutable_reduce()->set_kind(v1::REDUCE_SUM);
  g.mutable_nodes(0)->mutable_reduce()->add_dimensions(1);
  node(g, "out", "add", {"sum", "z"});
  g.add_outputs("out");
  g.add_outputs("y");
  checkEveryShape(g, kSizes);
}

TEST(ShapeChecks, ElementwiseOperandsOfDifferentSymbols) {
  v1::Graph g;
  g.set_name("elementwise");
  input(g, "x", {sym("n"), anonymous()});
  input(g, "y", {sym("m"), anonymous()});
  node(g, "out", "mul", {"x", "y"});
  node(g, "picked", "select", {"c", "x", "y"});
  node(g, "c", "compare", {"x", "y"})
      ->mutable_compare()
      ->set_direction(v1::COMPARE_LT);
  g.add_outputs("out");
  g.add_outputs("picked");
  checkEveryShape(g, kSizes);
}

TEST(ShapeChecks, BroadcastOperandIsOneOrTheTarget) {
  v1::Graph g;
  g.set_name("broadcast");
  input(g, "x", {sym("k")});
  input(g, "y", {sym("n"), size(3)});
  auto *b =
      node(g, "wide", "broadcast_in_dim", {"x"})->mutable_broadcast_in_dim();
  *b->add_shape() = sym("n");
  *b->add_shape() = size(3);
  b->add_broadcast_dimensions(0);
  node(g, "out", "add", {"wide", "y"});
  g.add_outputs("out");
  checkEveryShape(g, kSizes);
}

TEST(ShapeChecks, ReshapeKeepsCountsAndDividesInferredDims) {
  v1::Graph g;
  g.set_name("reshape");
  input(g, "x", {sym("a"), sym("b")});
  input(g, "c", {sym("c")});
  input(g, "f", {sym("f")});
  // [a, b] -> [-1, c]: c must divide a*b.
  auto *inferred = node(g, "split", "reshape", {"x"})->mutable_reshape();
  *inferred->add_shape() = size(-1);
  *inferred->add_shape() = sym("c");
  // [a, b] -> [f]: a*b must equal f.
  node(g, "flat", "reshape", {"x"})
      ->mutable_reshape()
      ->add_shape()
      ->set_symbol("f");
  node(g, "out", "add", {"flat", "f"});
  node(g, "rows", "reduce", {"split"})->mutable_reduce()->add_dimensions(0);
  g.mutable_nodes(3)->mutable_reduce()->set_kind(v1::REDUCE_SUM);
  node(g, "cols", "add", {"rows", "c"});
  g.add_outputs("out");
  g.add_outputs("cols");
  checkEveryShape(g, kSizes);
}

TEST(ShapeChecks, SliceBoundsAndStridedExtents) {
  v1::Graph g;
  g.set_name("slice");
  input(g, "x", {sym("n")});
  input(g, "y", {sym("m")});
  input(g, "p", {sym("p")});
  // x[1 : m] needs 1 <= m <= n.
  auto *s = node(g, "window", "slice", {"x"})->mutable_slice();
  *s->add_start_indices() = constantExpr(1);
  *s->add_limit_indices() = affine(1, "m");
  // x[0 : n : 2] has ceil(n / 2) elements, which must equal p.
  auto *t = node(g, "evens", "slice", {"x"})->mutable_slice();
  *t->add_start_indices() = constantExpr(0);
  *t->add_limit_indices() = affine(1, "n");
  t->add_strides(2);
  node(g, "out", "add", {"evens", "p"});
  g.add_outputs("window");
  g.add_outputs("out");
  checkEveryShape(g, kSizes);
}

TEST(ShapeChecks, PaddedDimsAndCrops) {
  v1::Graph g;
  g.set_name("pad");
  input(g, "x", {sym("n")});
  input(g, "p", {sym("p")});
  auto *zero = node(g, "zero", "constant", {})->mutable_constant();
  zero->set_dtype(F32);
  zero->set_splat(0);
  // Interior padding: n + 1*(n - 1) + 1 + 0 when n > 0, else 1.
  auto *interior = node(g, "spread", "pad", {"x", "zero"})->mutable_pad();
  interior->add_edge_padding_low(1);
  interior->add_edge_padding_high(0);
  interior->add_interior_padding(1);
  node(g, "out", "add", {"spread", "p"});
  // A crop of 3: n >= 3.
  auto *crop = node(g, "cropped", "pad", {"x", "zero"})->mutable_pad();
  crop->add_edge_padding_low(-2);
  crop->add_edge_padding_high(-1);
  g.add_outputs("out");
  g.add_outputs("cropped");
  checkEveryShape(g, kSizes);
}

TEST(ShapeChecks, ConcatenateGatherAndContractions) {
  v1::Graph g;
  g.set_name("structural");
  input(g, "x", {sym("n"), sym("k")});
  input(g, "y", {sym("m"), sym("j")});
  input(g, "ids", {sym("i")}, v1::DTYPE_I32);
  // Rows must agree: n == m.
  node(g, "joined", "concatenate", {"x", "y"})
      ->mutable_concatenate()
      ->set_dimension(1);
  // x @ y^T contracts k with j.
  auto *dot = node(g, "dot", "dot_general", {"x", "y"})->mutable_dot_general();
  dot->add_lhs_contracting_dimensions(1);
  dot->add_rhs_contracting_dimensions(1);
  // Gathering i rows of x needs n > 0 unless i == 0.
  node(g, "rows", "gather", {"x", "ids"})->mutable_gather()->set_axis(0);
  g.add_outputs("joined");
  g.add_outputs("dot");
  g.add_outputs("rows");
  checkEveryShape(g, {0, 1, 3});
}

TEST(ShapeChecks, ErrorsNameTheRuleAndTheInputDims) {
  v1::Graph g;
  g.set_name("named");
  input(g, "x", {sym("n"), anonymous()});
  input(g, "y", {sym("m"), anonymous()});
  input(g, "z", {sym("n")});
  node(g, "out", "mul", {"x", "y"});
  g.add_outputs("out");
  g.add_outputs("z");
  auto executable = compiler::Compiler::compile(g);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  auto run = [&](std::vector<std::vector<int64_t>> shapes) {
    return (*executable)->run(test::randomInputs(g, shapes, 0).tensors);
  };
  auto symbols = run({{2, 4}, {3, 4}, {2}});
  ASSERT_FALSE(symbols.isOk());
  EXPECT_EQ(symbols.status().message(),
            "node 'out' (mul): operand dims 0 (n and m) must be equal "
            "(m = 3 from input 'y' dim 0, n = 2 from input 'x' dim 0)");
  auto anonymousDims = run({{2, 4}, {2, 5}, {2}});
  ASSERT_FALSE(anonymousDims.isOk());
  EXPECT_EQ(anonymousDims.status().message(),
            "node 'out' (mul): operand dims 1 (?0 and ?1) must be equal "
            "(input 'x' dim 1 is 4, input 'y' dim 1 is 5)");
  auto declared = run({{2, 4}, {2, 4}, {3}});
  ASSERT_FALSE(declared.isOk());
  EXPECT_EQ(declared.status().message(),
            "input 'z' dim 0 is 3, expected n (n = 2 from input 'x' dim 0)");
  EXPECT_TRUE(run({{2, 4}, {2, 4}, {2}}).isOk());
}

TEST(ShapeChecks, ElementLimitOfIntermediates) {
  v1::Graph g;
  g.set_name("limit");
  input(g, "x", {sym("n")});
  // [n] -> [n, n, n]: 2^32 elements are exceeded at n = 1626.
  auto *b =
      node(g, "cube", "broadcast_in_dim", {"x"})->mutable_broadcast_in_dim();
  for (int i = 0; i < 3; ++i)
    *b->add_shape() = sym("n");
  b->add_broadcast_dimensions(0);
  node(g, "out", "reduce", {"cube"})
      ->mutable_reduce()
      ->set_kind(v1::REDUCE_MAX);
  for (int i = 0; i < 3; ++i)
    g.mutable_nodes(1)->mutable_reduce()->add_dimensions(i);
  g.add_outputs("out");
  auto executable = compiler::Compiler::compile(g);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  auto info = validateGraph(g);
  ASSERT_TRUE(info.isOk());
  EXPECT_TRUE(checkConcreteShapes(g, *info, {{1625}}).isOk());
  for (int64_t n : {int64_t(1626), int64_t(1) << 22}) { // 2^66 overflows
    EXPECT_EQ(checkConcreteShapes(g, *info, {{n}}).code(),
              StatusCode::ResourceExhausted);
    auto [inputs, tensors] = test::randomInputs(g, {{n}}, 1);
    auto actual = (*executable)->run(tensors);
    ASSERT_FALSE(actual.isOk()) << n;
    EXPECT_EQ(actual.status().code(), StatusCode::ResourceExhausted);
    EXPECT_NE(actual.status().message().find("n = " + std::to_string(n) +
                                             " from input 'x' dim 0"),
              std::string::npos)
        << actual.status().toString();
  }
}

} // namespace

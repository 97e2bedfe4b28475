// Graphs a hostile client can send, built at any size: the worst cases found
// for validation and fingerprinting (a dim expression repeating one symbol,
// a dim expression of many terms, products of wide sums that shape rules
// would multiply out, a node of many operands, long elementwise chains).
// The unit tests check each is rejected or validated; bench/graph_bench.cpp
// times each against its size, to show the cost is linear.
#pragma once

#include "anyshape/v1/graph.pb.h"

#include <initializer_list>
#include <string>

namespace anyshape::test {

/// Adds an f32 input named `name` with the symbol dims `symbols`, then
/// returns its type for more dims.
inline v1::TensorType *addInput(v1::Graph &g, const std::string &name,
                                std::initializer_list<const char *> symbols) {
  auto *input = g.add_inputs();
  input->set_name(name);
  input->mutable_type()->set_dtype(v1::DTYPE_F32);
  for (const char *symbol : symbols)
    input->mutable_type()->add_dims()->set_symbol(symbol);
  return input->mutable_type();
}

/// x: f32[seq]; y: f32[seq^n] (one term, seq repeated n times); out = y.
inline v1::Graph repeatedSymbolDim(int n) {
  v1::Graph g;
  addInput(g, "x", {"seq"});
  auto *term = addInput(g, "y", {})->add_dims()->mutable_expr()->add_terms();
  term->set_coefficient(1);
  for (int i = 0; i < n; ++i)
    term->add_symbols("seq");
  g.add_outputs("y");
  return g;
}

/// x: f32[seq]; y: f32[seq + seq + ... (n terms)]; out = y.
inline v1::Graph manyTermsDim(int n) {
  v1::Graph g = repeatedSymbolDim(1);
  auto *expr =
      g.mutable_inputs(1)->mutable_type()->mutable_dims(0)->mutable_expr();
  expr->clear_terms();
  for (int i = 0; i < n; ++i) {
    auto *term = expr->add_terms();
    term->set_coefficient(1);
    term->add_symbols("seq");
  }
  return g;
}

/// 16 symbols bound by two rank-8 inputs; z has `rank` dims, each the sum
/// of all 16; r = reshape(z, [-1]) must multiply them out (16^rank terms
/// unless bounded).
inline v1::Graph productOfWideSums(int rank) {
  v1::Graph g;
  for (int k = 0; k < 2; ++k) {
    v1::TensorType *type = addInput(g, k ? "b" : "a", {});
    for (int d = 0; d < 8; ++d)
      type->add_dims()->set_symbol("s" + std::to_string(8 * k + d));
  }
  v1::TensorType *z = addInput(g, "z", {});
  for (int d = 0; d < rank; ++d) {
    auto *expr = z->add_dims()->mutable_expr();
    for (int s = 0; s < 16; ++s) {
      auto *term = expr->add_terms();
      term->set_coefficient(1);
      term->add_symbols("s" + std::to_string(s));
    }
  }
  auto *r = g.add_nodes();
  r->set_name("r");
  r->set_op("reshape");
  r->add_operands("z");
  r->mutable_reshape()->add_shape()->set_size(-1);
  g.add_outputs("r");
  return g;
}

/// x: f32[seq, 4]; c = concatenate(x, x, ... n times) along dim 0.
inline v1::Graph wideConcatenate(int n) {
  v1::Graph g;
  addInput(g, "x", {"seq"})->add_dims()->set_size(4);
  auto *c = g.add_nodes();
  c->set_name("c");
  c->set_op("concatenate");
  for (int i = 0; i < n; ++i)
    c->add_operands("x");
  c->mutable_concatenate()->set_dimension(0);
  g.add_outputs("c");
  return g;
}

/// x0..x(n-1): f32[s(i % 7), 4], seven sizes; c = their concatenate along
/// dim 0: a graph of n inputs, whose shape checks and host flow are as long
/// as the kernel.
inline v1::Graph wideConcatenateOfInputs(int n) {
  v1::Graph g;
  auto *c = g.add_nodes();
  for (int i = 0; i < n; ++i) {
    std::string name = "x" + std::to_string(i);
    std::string symbol = "s" + std::to_string(i % 7);
    addInput(g, name, {symbol.c_str()})->add_dims()->set_size(4);
    c->add_operands(name);
  }
  c->set_name("c");
  c->set_op("concatenate");
  c->mutable_concatenate()->set_dimension(0);
  g.add_outputs("c");
  return g;
}

/// x: f32[n, 3]; n matrix products, each of the one before by the same
/// 3x3 constant: a host flow of n library calls, and one buffer that n
/// kernels view.
inline v1::Graph matmulChain(int n) {
  v1::Graph g;
  addInput(g, "x", {"n"})->add_dims()->set_size(3);
  auto *w = g.add_nodes();
  w->set_name("w");
  w->set_op("constant");
  w->mutable_constant()->set_dtype(v1::DTYPE_F32);
  w->mutable_constant()->add_shape(3);
  w->mutable_constant()->add_shape(3);
  w->mutable_constant()->set_splat(0.5);
  std::string previous = "x";
  for (int i = 0; i < n; ++i) {
    auto *node = g.add_nodes();
    node->set_name("m" + std::to_string(i));
    node->set_op("dot_general");
    node->add_operands(previous);
    node->add_operands("w");
    node->mutable_dot_general()->add_lhs_contracting_dimensions(1);
    node->mutable_dot_general()->add_rhs_contracting_dimensions(0);
    previous = node->name();
  }
  g.add_outputs(previous);
  return g;
}

/// x: f32[batch, seq]; n elementwise ops, each on the one before.
inline v1::Graph elementwiseChain(int n) {
  v1::Graph g;
  addInput(g, "x", {"batch", "seq"});
  std::string previous = "x";
  static const char *kOps[] = {"abs", "neg", "exp", "tanh"};
  for (int i = 0; i < n; ++i) {
    auto *node = g.add_nodes();
    node->set_name("n" + std::to_string(i));
    node->set_op(kOps[i % 4]);
    node->add_operands(previous);
    previous = node->name();
  }
  g.add_outputs(previous);
  return g;
}

} // namespace anyshape::test

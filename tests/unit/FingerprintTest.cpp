// The canonical graph fingerprint: each invariance (node names, node order,
// input and output names, consistent symbol renaming, run to run) and each
// sensitivity (op, attribute, dtype, rank, static dim, constant bytes and
// kinds, symbol equality structure, output order, expressions) of
// ir/graph/Fingerprint.h, on small graphs and on the examples.
#include "../support/ExampleGraph.h"
#include "TestUtil.h"

#include "ir/graph/Fingerprint.h"
#include "ir/graph/GraphText.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace anyshape;

namespace {

v1::Graph parse(const std::string &text) {
  auto graph = parseGraphText(text);
  EXPECT_TRUE(graph.isOk()) << graph.status().toString();
  return graph.isOk() ? *graph : v1::Graph();
}

Fingerprint fp(const v1::Graph &graph) {
  auto f = fingerprintGraph(graph);
  EXPECT_TRUE(f.isOk()) << f.status().toString();
  return f.isOk() ? *f : Fingerprint();
}

Fingerprint fp(const std::string &text) { return fp(parse(text)); }

// x[a] + y[b] -> exp, with everything a test might vary spelled out.
std::string addGraph(const std::string &symA = "a",
                     const std::string &symB = "b",
                     const std::string &op = "exp",
                     const std::string &dtype = "DTYPE_F32") {
  return "inputs { name: 'x' type { dtype: " + dtype + " dims { symbol: '" +
         symA +
         "' } dims { size: 4 } } }\n"
         "inputs { name: 'y' type { dtype: " +
         dtype + " dims { symbol: '" + symB +
         "' } dims { size: 4 } } }\n"
         "nodes { name: 's' op: 'add' operands: 'x' operands: 'y' }\n"
         "nodes { name: 'e' op: '" +
         op +
         "' operands: 's' }\n"
         "outputs: 'e'\n";
}

} // namespace

TEST(Fingerprint, IsStableAndHex) {
  Fingerprint a = fp(addGraph()), b = fp(addGraph());
  EXPECT_EQ(a, b);
  std::string hex = a.hex();
  EXPECT_EQ(hex.size(), 32u);
  EXPECT_TRUE(std::all_of(hex.begin(), hex.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) && !std::isupper(c);
  }));
}

TEST(Fingerprint, GoldenValueIsStableAcrossBuilds) {
  // Changing this value invalidates every persistent cache: only change it
  // together with the schema string in Fingerprint.cpp.
  EXPECT_EQ(fp(addGraph()).hex(), "7639967a70006d0d5165ecc9625df74d");
}

TEST(Fingerprint, InvariantToNodeNames) {
  std::string renamed = addGraph();
  for (auto [from, to] :
       {std::pair{"'s'", "'sum_node'"}, std::pair{"'e'", "'the_output'"}}) {
    size_t at;
    while ((at = renamed.find(from)) != std::string::npos)
      renamed.replace(at, std::string(from).size(), to);
  }
  EXPECT_EQ(fp(addGraph()), fp(renamed));
}

TEST(Fingerprint, InvariantToInputNames) {
  std::string renamed = addGraph();
  size_t at;
  while ((at = renamed.find("'x'")) != std::string::npos)
    renamed.replace(at, 3, "'tokens'");
  EXPECT_EQ(fp(addGraph()), fp(renamed));
}

TEST(Fingerprint, InvariantToNodeOrder) {
  v1::Graph graph = test::exampleGraph("bert_encoder_layer");
  Fingerprint original = fp(graph);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3; ++trial) {
    std::shuffle(graph.mutable_nodes()->begin(), graph.mutable_nodes()->end(),
                 rng);
    EXPECT_EQ(fp(graph), original);
  }
}

TEST(Fingerprint, InvariantToConsistentSymbolRenaming) {
  EXPECT_EQ(fp(addGraph("a", "b")), fp(addGraph("p", "q")));
  EXPECT_EQ(fp(addGraph("seq", "seq")), fp(addGraph("n", "n")));
  // The encoder layer with batch/seq renamed everywhere, expressions too.
  v1::Graph graph = test::exampleGraph("bert_encoder_layer");
  std::string text = graphToText(graph);
  for (auto [from, to] : {std::pair{std::string("\"seq\""), "\"tokens\""},
                          std::pair{std::string("\"batch\""), "\"rows\""}}) {
    size_t at;
    while ((at = text.find(from)) != std::string::npos)
      text.replace(at, from.size(), to);
  }
  EXPECT_NE(text, graphToText(graph));
  EXPECT_EQ(fp(text), fp(graph));
}

TEST(Fingerprint, QuotientsRenameWithTheirSymbols) {
  // x[n] sliced to its first (n + 1) floordiv d rows.
  auto halves = [](const std::string &symbol, int divisor) {
    return "inputs { name: 'x' type { dtype: DTYPE_F32 dims { symbol: '" +
           symbol +
           "' } } }\n"
           "nodes { name: 'h' op: 'slice' operands: 'x' slice { "
           "start_indices { constant: 0 } limit_indices { terms { "
           "coefficient: 1 quotients { dividend { terms { coefficient: 1 "
           "symbols: '" +
           symbol + "' } constant: 1 } divisor: " + std::to_string(divisor) +
           " } } } } }\noutputs: 'h'\n";
  };
  EXPECT_EQ(fp(halves("n", 2)), fp(halves("len", 2)));
  EXPECT_NE(fp(halves("n", 2)), fp(halves("n", 3)));
}

TEST(Fingerprint, SensitiveToSymbolEqualityStructure) {
  // x[seq] + y[seq] promises equal dims; x[a] + y[b] does not.
  EXPECT_NE(fp(addGraph("seq", "seq")), fp(addGraph("a", "b")));
  // Swapping which input gets the first symbol keeps the structure.
  EXPECT_EQ(fp(addGraph("a", "b")), fp(addGraph("b", "a")));
}

TEST(Fingerprint, SensitiveToOpDtypeRankAndStaticDims) {
  Fingerprint base = fp(addGraph());
  EXPECT_NE(base, fp(addGraph("a", "b", "tanh")));
  EXPECT_NE(base, fp(addGraph("a", "b", "exp", "DTYPE_F16")));
  std::string otherSize = addGraph();
  otherSize.replace(otherSize.find("size: 4"), 7, "size: 5");
  std::string otherSize2 = otherSize;
  otherSize2.replace(otherSize2.find("size: 4"), 7, "size: 5");
  EXPECT_NE(base, fp(otherSize2));
  std::string rank3 =
      "inputs { name: 'x' type { dtype: DTYPE_F32 dims { symbol: 'a' } dims "
      "{ size: 4 } dims { size: 1 } } }\n"
      "nodes { name: 'e' op: 'exp' operands: 'x' }\noutputs: 'e'\n";
  std::string rank2 =
      "inputs { name: 'x' type { dtype: DTYPE_F32 dims { symbol: 'a' } dims "
      "{ size: 4 } } }\n"
      "nodes { name: 'e' op: 'exp' operands: 'x' }\noutputs: 'e'\n";
  EXPECT_NE(fp(rank3), fp(rank2));
}

TEST(Fingerprint, SensitiveToAttributes) {
  auto reduceGraph = [](const std::string &attrs) {
    return "inputs { name: 'x' type { dtype: DTYPE_F32 dims { symbol: 'n' } "
           "dims { size: 8 } } }\n"
           "nodes { name: 'r' op: 'reduce' operands: 'x' reduce { " +
           attrs + " } }\noutputs: 'r'\n";
  };
  Fingerprint sum1 = fp(reduceGraph("kind: REDUCE_SUM dimensions: 1"));
  EXPECT_NE(sum1, fp(reduceGraph("kind: REDUCE_MAX dimensions: 1")));
  EXPECT_NE(sum1, fp(reduceGraph("kind: REDUCE_SUM dimensions: 0")));
  // Reshape targets: a symbol versus a different expression.
  auto reshapeGraph = [](const std::string &dim) {
    return "inputs { name: 'x' type { dtype: DTYPE_F32 dims { symbol: 'a' } "
           "dims { symbol: 'b' } } }\n"
           "nodes { name: 'r' op: 'reshape' operands: 'x' reshape { shape { " +
           dim + " } } }\noutputs: 'r'\n";
  };
  Fingerprint product =
      fp(reshapeGraph("expr { terms { coefficient: 1 symbols: 'a' symbols: "
                      "'b' } }"));
  EXPECT_NE(product, fp(reshapeGraph("size: -1")));
  EXPECT_EQ(product,
            fp(reshapeGraph("expr { terms { coefficient: 1 symbols: 'b' "
                            "symbols: 'a' } }")));
}

TEST(Fingerprint, SensitiveToConstantValues) {
  auto constantGraph = [](const std::string &value) {
    return "inputs { name: 'x' type { dtype: DTYPE_F32 dims { size: 2 } } }\n"
           "nodes { name: 'c' op: 'constant' constant { dtype: DTYPE_F32 "
           "shape: 2 " +
           value +
           " } }\n"
           "nodes { name: 'y' op: 'add' operands: 'x' operands: 'c' }\n"
           "outputs: 'y'\n";
  };
  Fingerprint a = fp(constantGraph("data: '\\000\\000\\200?\\000\\000\\200?'"));
  // One flipped bit in the data.
  EXPECT_NE(a, fp(constantGraph("data: '\\001\\000\\200?\\000\\000\\200?'")));
  // The same values as a splat are a different (but equally valid) graph.
  EXPECT_NE(a, fp(constantGraph("splat: 1")));
  EXPECT_NE(fp(constantGraph("splat: 1")), fp(constantGraph("splat: 2")));
  EXPECT_NE(fp(constantGraph("seeded_uniform { seed: 1 low: 0 high: 1 }")),
            fp(constantGraph("seeded_uniform { seed: 2 low: 0 high: 1 }")));
  EXPECT_NE(fp(constantGraph("tensor_id: 'abc'")),
            fp(constantGraph("tensor_id: 'abd'")));
}

TEST(Fingerprint, SensitiveToOutputOrderAndOperandOrder) {
  std::string twoOutputs =
      "inputs { name: 'x' type { dtype: DTYPE_F32 dims { size: 2 } } }\n"
      "nodes { name: 'e' op: 'exp' operands: 'x' }\n"
      "nodes { name: 't' op: 'tanh' operands: 'x' }\n";
  EXPECT_NE(fp(twoOutputs + "outputs: 'e' outputs: 't'"),
            fp(twoOutputs + "outputs: 't' outputs: 'e'"));
  std::string sub = "inputs { name: 'x' type { dtype: DTYPE_F32 dims { size: "
                    "2 } } }\n"
                    "inputs { name: 'y' type { dtype: DTYPE_F32 dims { size: "
                    "2 } } }\n";
  EXPECT_NE(fp(sub + "nodes { name: 'd' op: 'sub' operands: 'x' operands: 'y' "
                     "}\noutputs: 'd'"),
            fp(sub + "nodes { name: 'd' op: 'sub' operands: 'y' operands: 'x' "
                     "}\noutputs: 'd'"));
}

TEST(Fingerprint, AnonymousDimsDifferFromSharedSymbols) {
  std::string anon =
      "inputs { name: 'x' type { dtype: DTYPE_F32 dims { dynamic: true } } }\n"
      "inputs { name: 'y' type { dtype: DTYPE_F32 dims { dynamic: true } } }\n"
      "nodes { name: 's' op: 'add' operands: 'x' operands: 'y' }\n"
      "outputs: 's'\n";
  std::string shared = anon;
  size_t at;
  while ((at = shared.find("dynamic: true")) != std::string::npos)
    shared.replace(at, 13, "symbol: 'n'");
  EXPECT_NE(fp(anon), fp(shared));
}

TEST(Fingerprint, ExamplesAllDiffer) {
  std::vector<Fingerprint> all;
  for (const char *name :
       {"mlp", "bert_encoder_layer", "elementwise_reduce", "embedding"})
    all.push_back(fp(test::exampleGraph(name)));
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = i + 1; j < all.size(); ++j)
      EXPECT_NE(all[i], all[j]);
}

TEST(Fingerprint, RejectsInvalidGraphs) {
  auto f = fingerprintGraph(parse("inputs { name: 'x' type { dtype: "
                                  "DTYPE_F32 dims { size: 2 } } }\n"));
  EXPECT_FALSE(f.isOk()); // no outputs
}

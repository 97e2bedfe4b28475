// The row-independence proof (ir/graph/BatchAxes.h): proved graphs give
// each request, joined with others, exactly its own run's outputs under
// the reference evaluator; every way of mixing rows is refused, naming
// the node.
#include "TestUtil.h"

#include "GraphMutator.h"

#include "ir/graph/BatchAxes.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/GraphText.h"
#include "ir/reference/Evaluator.h"
#include "ir/reference/Literal.h"

#include <gtest/gtest.h>

using namespace anyshape;

namespace {

v1::Graph example(const std::string &name) {
  auto graph = loadGraphFile(std::string(ANYSHAPE_SOURCE_DIR) + "/examples/" +
                             name + ".pbtxt");
  EXPECT_TRUE(graph.isOk());
  return *graph;
}

std::optional<BatchAxes> prove(const v1::Graph &graph, const char *symbol,
                               std::string *why = nullptr) {
  auto info = validateGraph(graph);
  EXPECT_TRUE(info.isOk()) << info.status().toString();
  if (!info.isOk())
    return std::nullopt;
  return batchAxesAlong(graph, *info, symbol, why);
}

/// A graph of one input x: f32[b, s, 4] (b and s symbols) and the body's
/// nodes, output "y".
v1::Graph withBody(const std::string &body) {
  return test::parseGraph(R"(
    inputs { name: "x" type { dtype: DTYPE_F32 dims { symbol: "b" }
             dims { symbol: "s" } dims { size: 4 } } }
    )" + body + R"( outputs: "y")");
}

/// Each request's inputs alone and joined: the split of the joined run's
/// outputs equals each request's own outputs, element for element.
void expectJoinMatchesAlone(const v1::Graph &graph, const BatchAxes &axes,
                            const std::vector<std::vector<Literal>> &requests) {
  std::vector<std::vector<v1::Tensor>> inputs(requests.size());
  std::vector<int64_t> rows;
  for (size_t r = 0; r < requests.size(); ++r) {
    for (const Literal &l : requests[r])
      inputs[r].push_back(literalToTensor(l));
    rows.push_back(requests[r][0].shape[axes.inputAxes[0]]);
  }
  std::vector<Literal> joined;
  for (size_t k = 0; k < axes.inputAxes.size(); ++k) {
    std::vector<const v1::Tensor *> parts;
    for (auto &request : inputs)
      parts.push_back(&request[k]);
    auto literal = literalFromTensor(joinRows(parts, axes.inputAxes[k]));
    ASSERT_TRUE(literal.isOk()) << literal.status().toString();
    joined.push_back(*literal);
  }
  auto together = evaluateGraph(graph, joined);
  ASSERT_TRUE(together.isOk()) << together.status().toString();
  for (size_t r = 0; r < requests.size(); ++r) {
    auto alone = evaluateGraph(graph, requests[r]);
    ASSERT_TRUE(alone.isOk()) << alone.status().toString();
    for (size_t o = 0; o < alone->size(); ++o) {
      v1::Tensor part = splitRows(literalToTensor((*together)[o]),
                                  axes.outputAxes[o], rows)[r];
      EXPECT_EQ(literalToTensor((*alone)[o]).SerializeAsString(),
                part.SerializeAsString())
          << "request " << r << ", output " << o;
    }
  }
}

} // namespace

TEST(BatchAxes, TheEncoderLayerIsIndependentAlongBatchNotSeq) {
  v1::Graph graph = example("bert_encoder_layer");
  std::optional<BatchAxes> axes = prove(graph, "batch");
  ASSERT_TRUE(axes);
  EXPECT_EQ(axes->inputAxes, (std::vector<int>{0, 0}));
  EXPECT_EQ(axes->outputAxes, (std::vector<int>{0}));
  std::string why;
  EXPECT_FALSE(prove(graph, "seq", &why));
  EXPECT_NE(why.find("along 'seq'"), std::string::npos) << why;
  auto info = validateGraph(graph);
  ASSERT_TRUE(info.isOk());
  std::optional<BatchAxes> found = findBatchAxes(graph, *info);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->symbol, "batch");
}

TEST(BatchAxes, JoinedEncoderRunsEqualEachRequestsOwn) {
  v1::Graph graph = example("bert_encoder_layer");
  std::optional<BatchAxes> axes = prove(graph, "batch");
  ASSERT_TRUE(axes);
  std::vector<std::vector<Literal>> requests;
  int64_t seq = 3;
  for (int64_t batch : {1, 2, 0, 1}) {
    Literal mask = randomLiteral(v1::DTYPE_F32, {batch, seq}, 20 + batch);
    requests.push_back(
        {randomLiteral(v1::DTYPE_F32, {batch, seq, 768}, 10 + batch), mask});
  }
  expectJoinMatchesAlone(graph, *axes, requests);
}

TEST(BatchAxes, RowsMayMoveThroughTransposesGathersAndContractions) {
  // b moves to dim 1 and back; an embedding gather, a contraction with a
  // shared weight, a batched contraction of b with itself, a reduce and a
  // running sum over other dims, a reshape that keeps what precedes b.
  v1::Graph graph = test::parseGraph(R"(
    inputs { name: "x" type { dtype: DTYPE_F32 dims { symbol: "b" }
             dims { symbol: "s" } dims { size: 4 } } }
    inputs { name: "ids" type { dtype: DTYPE_I64 dims { symbol: "b" }
             dims { size: 2 } } }
    nodes { name: "table" op: "constant" constant { dtype: DTYPE_F32 shape: 5
            shape: 4 seeded_uniform { seed: 3 low: -1 high: 1 } } }
    nodes { name: "e" op: "gather" operands: "table" operands: "ids"
            gather { axis: 0 } }
    nodes { name: "t" op: "transpose" operands: "x"
            transpose { permutation: 1 permutation: 0 permutation: 2 } }
    nodes { name: "tt" op: "transpose" operands: "t"
            transpose { permutation: 1 permutation: 0 permutation: 2 } }
    nodes { name: "w" op: "constant" constant { dtype: DTYPE_F32 shape: 4
            shape: 4 seeded_uniform { seed: 4 low: -1 high: 1 } } }
    nodes { name: "p" op: "dot_general" operands: "tt" operands: "w"
            dot_general { lhs_contracting_dimensions: 2
                          rhs_contracting_dimensions: 0 } }
    nodes { name: "a" op: "dot_general" operands: "p" operands: "e"
            dot_general { lhs_batch_dimensions: 0 rhs_batch_dimensions: 0
                          lhs_contracting_dimensions: 2
                          rhs_contracting_dimensions: 2 } }
    nodes { name: "c" op: "cumulative" operands: "a"
            cumulative { axis: 1 kind: REDUCE_SUM } }
    nodes { name: "r" op: "reshape" operands: "c"
            reshape { shape { symbol: "b" } shape { size: -1 } } }
    nodes { name: "y" op: "reduce" operands: "r"
            reduce { kind: REDUCE_MAX dimensions: 1 } }
    outputs: "y" outputs: "a")");
  std::optional<BatchAxes> axes = prove(graph, "b");
  ASSERT_TRUE(axes);
  EXPECT_EQ(axes->inputAxes, (std::vector<int>{0, 0}));
  EXPECT_EQ(axes->outputAxes, (std::vector<int>{0, 0}));
  std::vector<std::vector<Literal>> requests;
  for (int64_t b : {2, 1, 3}) {
    Literal ids = randomLiteral(v1::DTYPE_I64, {b, 2}, 7 + b);
    for (int64_t &i : ids.i)
      i = (i % 5 + 5) % 5;
    requests.push_back({randomLiteral(v1::DTYPE_F32, {b, 3, 4}, b), ids});
  }
  expectJoinMatchesAlone(graph, *axes, requests);
}

TEST(BatchAxes, EveryWayOfMixingRowsIsRefusedNamingTheNode) {
  struct Case {
    const char *body;
    const char *reason;
  };
  const Case cases[] = {
      {R"(nodes { name: "y" op: "reduce" operands: "x"
            reduce { kind: REDUCE_SUM dimensions: 0 } })",
       "node 'y' (reduce) reduces along 'b'"},
      {R"(nodes { name: "y" op: "cumulative" operands: "x"
            cumulative { axis: 0 kind: REDUCE_SUM } })",
       "folds along 'b'"},
      {R"(nodes { name: "y" op: "argsort" operands: "x"
            argsort { axis: 0 } })",
       "sorts along 'b'"},
      {R"(nodes { name: "n" op: "dim_size" operands: "x"
            dim_size { dimension: 0 } }
          nodes { name: "y" op: "convert" operands: "n"
            convert { dtype: DTYPE_F32 } })",
       "node 'n' (dim_size) reads the size of 'b'"},
      {R"(nodes { name: "y" op: "iota" iota { dtype: DTYPE_F32 shape { symbol: "b" }
            shape { size: 4 } iota_dimension: 0 } })",
       "node 'y' (iota) makes rows along 'b' that differ by position"},
      {R"(nodes { name: "y" op: "reshape" operands: "x"
            reshape { shape { expr { terms { symbols: "b" symbols: "s" coefficient: 1 } } }
                      shape { size: 4 } } })",
       "node 'y' (reshape) has type f32[b*s, 4]"},
      {R"(nodes { name: "y" op: "dot_general" operands: "x" operands: "x"
            dot_general { lhs_contracting_dimensions: 0
                          rhs_contracting_dimensions: 0 } })",
       "contracts along 'b'"},
      {R"(nodes { name: "y" op: "slice" operands: "x"
            slice { start_indices { constant: 0 }
                    start_indices { terms { symbols: "b" coefficient: 1 } }
                    start_indices { constant: 0 }
                    limit_indices { terms { symbols: "b" coefficient: 1 } }
                    limit_indices { terms { symbols: "b" coefficient: 1 } constant: 1 }
                    limit_indices { constant: 4 } } })",
       "slices by 'b'"},
      {R"(nodes { name: "y" op: "pad" operands: "x" operands: "z"
            pad { edge_padding_low: 1 edge_padding_low: 0 edge_padding_low: 0
                  edge_padding_high: -1 edge_padding_high: 0
                  edge_padding_high: 0 } }
          nodes { name: "z" op: "constant" constant { dtype: DTYPE_F32
                  seeded_uniform { seed: 1 } } })",
       "pads along 'b'"},
      {R"(nodes { name: "i" op: "constant" constant { dtype: DTYPE_I64 shape: 1
                  seeded_uniform { seed: 1 low: 0 high: 0 } } }
          nodes { name: "y" op: "gather" operands: "x" operands: "i"
            gather { axis: 0 } })",
       "gathers along 'b'"},
      {R"(nodes { name: "y" op: "nonzero" operands: "x" nonzero {} })",
       "node 'y' (nonzero) mixes rows along 'b'"},
  };
  for (const Case &c : cases) {
    v1::Graph graph = withBody(c.body);
    std::string why;
    EXPECT_FALSE(prove(graph, "b", &why)) << c.body;
    EXPECT_NE(why.find(c.reason), std::string::npos)
        << "expected '" << c.reason << "' in: " << why;
  }
}

TEST(BatchAxes, WhatNoOutputReadsDoesNotCount) {
  // An exporter's leftover: the batch size read and never used (ONNX
  // exports read Shape of every input; the importer folds most uses).
  v1::Graph graph = withBody(R"(
    nodes { name: "n" op: "dim_size" operands: "x" dim_size { dimension: 0 } }
    nodes { name: "y" op: "exp" operands: "x" })");
  std::string why;
  std::optional<BatchAxes> axes = prove(graph, "b", &why);
  ASSERT_TRUE(axes) << why;
  EXPECT_EQ(axes->outputAxes, (std::vector<int>{0}));
  graph.add_outputs("n"); // read: the size of the joined run
  EXPECT_FALSE(prove(graph, "b", &why));
  EXPECT_NE(why.find("reads the size of 'b'"), std::string::npos) << why;
}

TEST(BatchAxes, FindNeedsEverySymbolOnEveryInput) {
  // w carries no b: joining requests would need its bytes to be equal.
  v1::Graph graph = test::parseGraph(R"(
    inputs { name: "x" type { dtype: DTYPE_F32 dims { symbol: "b" }
             dims { size: 4 } } }
    inputs { name: "w" type { dtype: DTYPE_F32 dims { size: 4 } } }
    nodes { name: "y" op: "dot_general" operands: "x" operands: "w"
            dot_general { lhs_contracting_dimensions: 1
                          rhs_contracting_dimensions: 0 } }
    outputs: "y")");
  auto info = validateGraph(graph);
  ASSERT_TRUE(info.isOk());
  std::optional<BatchAxes> axes = batchAxesAlong(graph, *info, "b");
  ASSERT_TRUE(axes);
  EXPECT_EQ(axes->inputAxes, (std::vector<int>{0, BatchAxes::kShared}));
  std::string why;
  EXPECT_FALSE(findBatchAxes(graph, *info, &why));
  EXPECT_NE(why.find("not every input has 'b'"), std::string::npos) << why;
}

TEST(BatchAxes, JoinAndSplitKeepRowsInOrderAlongAnyAxis) {
  // [2, r, 3] parts of 1, 0 and 2 rows along dim 1.
  std::vector<v1::Tensor> parts;
  for (int64_t rows : {1, 0, 2})
    parts.push_back(literalToTensor(
        randomLiteral(v1::DTYPE_I32, {2, rows, 3}, static_cast<int>(rows))));
  std::vector<const v1::Tensor *> pointers;
  for (const v1::Tensor &p : parts)
    pointers.push_back(&p);
  v1::Tensor joined = joinRows(pointers, 1);
  ASSERT_EQ(joined.shape_size(), 3);
  EXPECT_EQ(joined.shape(1), 3);
  // Row (o, 1) of the joined tensor is part 2's row (o, 0).
  const auto *values = reinterpret_cast<const int32_t *>(joined.data().data());
  const auto *second =
      reinterpret_cast<const int32_t *>(parts[2].data().data());
  for (int o = 0; o < 2; ++o)
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(values[(o * 3 + 1) * 3 + c], second[(o * 2 + 0) * 3 + c]);
  std::vector<v1::Tensor> back = splitRows(joined, 1, {1, 0, 2});
  ASSERT_EQ(back.size(), 3u);
  for (size_t k = 0; k < 3; ++k)
    EXPECT_EQ(back[k].SerializeAsString(), parts[k].SerializeAsString());
  std::vector<v1::Tensor> copies =
      splitRows(parts[0], BatchAxes::kShared, {4, 5});
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[1].SerializeAsString(), parts[0].SerializeAsString());
}

namespace {

/// Mutated graphs (GraphMutator.h): wherever a mutant is proved along a
/// symbol, requests of 1, 2 and 0 rows joined give each its own outputs
/// under the reference evaluator. A wrong rule in the proof shows as a
/// mismatch here; returns how many mutants were proved and checked.
int checkMutants(const v1::Graph &original, int iterations,
                 const std::map<std::string, int64_t> &otherSizes) {
  std::vector<std::string> names;
  for (const auto &input : original.inputs())
    names.push_back(input.name());
  for (const auto &node : original.nodes())
    names.push_back(node.name());
  EvalOptions options;
  options.limits.maxElementsPerTensor = 1 << 18; // the MLP's weights
  int checked = 0;
  for (int it = 0; it < iterations; ++it) {
    test::GraphMutator mutator(0xba7c0000u + it);
    v1::Graph graph = original;
    for (int m = 0; m <= it % 2; ++m)
      mutator.mutate(graph, names);
    auto info = validateGraph(graph, options.limits);
    if (!info)
      continue;
    for (const std::string &symbol : info->symbols) {
      std::optional<BatchAxes> axes = batchAxesAlong(graph, *info, symbol);
      if (!axes)
        continue;
      // The requests' inputs: a shared input is the same in each.
      std::vector<std::vector<Literal>> requests;
      bool runs = true;
      for (int64_t rows : {1, 2, 0}) {
        std::map<std::string, int64_t> sizes = otherSizes;
        sizes[symbol] = rows;
        auto shapes = inputShapesFor(graph, sizes, options.limits);
        if (!shapes) {
          runs = false;
          break;
        }
        std::vector<Literal> inputs;
        for (int k = 0; k < graph.inputs_size(); ++k)
          inputs.push_back(randomLiteral(
              graph.inputs(k).type().dtype(), (*shapes)[k],
              axes->inputAxes[k] == BatchAxes::kShared ? k : 10 * rows + k));
        runs = runs && evaluateGraph(graph, inputs, options).isOk();
        requests.push_back(std::move(inputs));
      }
      if (!runs)
        continue; // a request that fails alone proves nothing here
      std::vector<Literal> joined;
      for (size_t k = 0; k < axes->inputAxes.size(); ++k) {
        if (axes->inputAxes[k] == BatchAxes::kShared) {
          joined.push_back(requests[0][k]);
          continue;
        }
        std::vector<v1::Tensor> tensors;
        for (auto &request : requests)
          tensors.push_back(literalToTensor(request[k]));
        std::vector<const v1::Tensor *> parts;
        for (const v1::Tensor &t : tensors)
          parts.push_back(&t);
        joined.push_back(
            *literalFromTensor(joinRows(parts, axes->inputAxes[k])));
      }
      auto together = evaluateGraph(graph, joined, options);
      EXPECT_TRUE(together.isOk())
          << "mutant " << it << " along " << symbol << ": "
          << together.status().toString() << "\n"
          << graph.DebugString();
      if (!together.isOk())
        continue;
      std::vector<int64_t> rows{1, 2, 0};
      for (size_t r = 0; r < requests.size(); ++r) {
        auto alone = evaluateGraph(graph, requests[r], options);
        for (size_t o = 0; o < alone->size(); ++o) {
          v1::Tensor part = splitRows(literalToTensor((*together)[o]),
                                      axes->outputAxes[o], rows)[r];
          EXPECT_EQ(literalToTensor((*alone)[o]).SerializeAsString(),
                    part.SerializeAsString())
              << "mutant " << it << " along " << symbol << ", request " << r
              << ", output " << o << "\n"
              << graph.DebugString();
        }
      }
      ++checked;
    }
  }
  return checked;
}

} // namespace

TEST(BatchAxes, MutantsProvedAlongASymbolJoinExactly) {
  EXPECT_GT(checkMutants(example("mlp"), 400, {}), 40);
  EXPECT_GT(checkMutants(example("embedding"), 400, {{"seq", 3}}), 40);
  EXPECT_GT(checkMutants(example("elementwise_reduce"), 400, {{"cols", 3}}),
            20);
}

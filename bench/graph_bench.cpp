// Costs paid per request before any kernel runs: parsing a graph file and
// validating it (every Compile pays validation; a cache hit should cost
// little more). Also the reference evaluator on the encoder layer, so its
// interactive speed is tracked.
//
//   build/bin/anyshape-bench-graph
#include "ir/graph/GraphText.h"
#include "ir/graph/Validate.h"
#include "ir/reference/Evaluator.h"

#include <benchmark/benchmark.h>

using namespace anyshape;

namespace {

v1::Graph loadExample(const char *name) {
  auto graph =
      loadGraphFile(std::string(ANYSHAPE_SOURCE_DIR) + "/examples/" + name);
  if (!graph) {
    std::fprintf(stderr, "%s\n", graph.status().toString().c_str());
    std::exit(1);
  }
  return *graph;
}

void BM_ValidateBertEncoderLayer(benchmark::State &state) {
  v1::Graph graph = loadExample("bert_encoder_layer.pbtxt");
  for (auto _ : state) {
    auto info = validateGraph(graph);
    benchmark::DoNotOptimize(info);
  }
  state.counters["nodes"] = graph.nodes_size();
}
BENCHMARK(BM_ValidateBertEncoderLayer);

void BM_ParseBinaryBertEncoderLayer(benchmark::State &state) {
  std::string bytes =
      loadExample("bert_encoder_layer.pbtxt").SerializeAsString();
  for (auto _ : state) {
    v1::Graph graph;
    benchmark::DoNotOptimize(graph.ParseFromString(bytes));
  }
  state.SetBytesProcessed(state.iterations() * bytes.size());
}
BENCHMARK(BM_ParseBinaryBertEncoderLayer);

void BM_ReferenceEvalBertEncoderLayer(benchmark::State &state) {
  v1::Graph graph = loadExample("bert_encoder_layer.pbtxt");
  int64_t seq = state.range(0);
  auto shapes = inputShapesFor(graph, {{"batch", 1}, {"seq", seq}});
  std::vector<Literal> inputs;
  for (int k = 0; k < graph.inputs_size(); ++k)
    inputs.push_back(
        randomLiteral(graph.inputs(k).type().dtype(), (*shapes)[k], k));
  for (auto _ : state) {
    auto outputs = evaluateGraph(graph, inputs);
    benchmark::DoNotOptimize(outputs);
  }
}
BENCHMARK(BM_ReferenceEvalBertEncoderLayer)
    ->Arg(16)
    ->Arg(64)
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();

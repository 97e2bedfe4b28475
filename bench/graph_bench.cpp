// Costs paid per request before any kernel runs: parsing a graph file and
// validating it (every Compile pays validation; a cache hit should cost
// little more). Also the reference evaluator on the encoder layer, so its
// interactive speed is tracked.
//
//   build/bin/anyshape-bench-graph
#include "ir/graph/Fingerprint.h"
#include "ir/graph/GraphText.h"
#include "ir/graph/Validate.h"
#include "ir/reference/Evaluator.h"
#include "tests/support/HostileGraphs.h"

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

// A graph holding one large inline constant: fingerprinting must hash its
// bytes in place at memory speed (compare bytes_per_second with the
// one-thread read bandwidth, BM_ReadBandwidthBaseline).
void BM_FingerprintLargeConstant(benchmark::State &state) {
  int64_t bytes = state.range(0) << 20;
  v1::Graph graph;
  auto *node = graph.add_nodes();
  node->set_name("w");
  node->set_op("constant");
  node->mutable_constant()->set_dtype(v1::DTYPE_F32);
  node->mutable_constant()->add_shape(bytes / 4);
  node->mutable_constant()->set_data(std::string(bytes, '\x5a'));
  graph.add_outputs("w");
  auto info = validateGraph(graph);
  for (auto _ : state)
    benchmark::DoNotOptimize(fingerprintGraph(graph, *info));
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_FingerprintLargeConstant)->Arg(256)->Unit(benchmark::kMillisecond);

// The same bytes read once by a plain vectorisable sum: the one-thread
// read bandwidth that fingerprinting is measured against.
void BM_ReadBandwidthBaseline(benchmark::State &state) {
  int64_t bytes = state.range(0) << 20;
  std::vector<uint64_t> data(bytes / 8, 0x5a5a5a5a5a5a5a5aull);
  for (auto _ : state) {
    uint64_t sum = 0;
    for (uint64_t v : data)
      sum += v;
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_ReadBandwidthBaseline)->Arg(256)->Unit(benchmark::kMillisecond);

void BM_FingerprintBertEncoderLayer(benchmark::State &state) {
  v1::Graph graph = loadExample("bert_encoder_layer.pbtxt");
  auto info = validateGraph(graph);
  for (auto _ : state)
    benchmark::DoNotOptimize(fingerprintGraph(graph, *info));
}
BENCHMARK(BM_FingerprintBertEncoderLayer);

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

// The worst inputs found for validation and fingerprinting, at growing
// sizes: the time per unit of size (per_unit) must stay flat, i.e. the
// cost is linear. Rejected cases cost what reading them costs.
template <v1::Graph (*Make)(int)>
void BM_ValidateAndFingerprintHostile(benchmark::State &state) {
  v1::Graph graph = Make(static_cast<int>(state.range(0)));
  bool valid = false;
  for (auto _ : state) {
    auto info = validateGraph(graph);
    valid = info.isOk();
    if (valid)
      benchmark::DoNotOptimize(fingerprintGraph(graph, *info));
    benchmark::DoNotOptimize(info);
  }
  state.counters["valid"] = valid;
  state.counters["per_unit"] =
      benchmark::Counter(static_cast<double>(state.range(0)),
                         benchmark::Counter::kIsIterationInvariantRate |
                             benchmark::Counter::kInvert);
}
BENCHMARK_TEMPLATE(BM_ValidateAndFingerprintHostile, test::repeatedSymbolDim)
    ->RangeMultiplier(10)
    ->Range(1000, 1000000);
BENCHMARK_TEMPLATE(BM_ValidateAndFingerprintHostile, test::manyTermsDim)
    ->RangeMultiplier(10)
    ->Range(1000, 1000000);
BENCHMARK_TEMPLATE(BM_ValidateAndFingerprintHostile, test::wideConcatenate)
    ->RangeMultiplier(10)
    ->Range(10, 100000);
BENCHMARK_TEMPLATE(BM_ValidateAndFingerprintHostile, test::elementwiseChain)
    ->RangeMultiplier(10)
    ->Range(100, 100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_ValidateAndFingerprintHostile, test::productOfWideSums)
    ->DenseRange(1, 8);

} // namespace

BENCHMARK_MAIN();

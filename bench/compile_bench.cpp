// Compile time against graph size, for the shapes of graph whose compile
// time once grew faster than their size: a concatenate of N operands, a
// chain of N elementwise ops, and 1-12 stacked encoder layers. Each compile
// is timed once (they are long); the per_unit counter (time per operand,
// node or layer) stays flat where the compile is linear.
//
//   build/bin/anyshape-bench-compile [--benchmark_filter=...]
#include "anyshape/client/GraphBuilder.h"
#include "examples/ExampleGraphs.h"
#include "jit/Compiler.h"
#include "tests/support/HostileGraphs.h"

#include <benchmark/benchmark.h>

using namespace anyshape;

namespace {

void compileOnce(benchmark::State &state, const v1::Graph &graph) {
  for (auto _ : state) {
    jit::CompileReport report;
    auto compiled = jit::Compiler::compile(graph, {}, &report);
    if (!compiled.isOk()) {
      state.SkipWithError(compiled.status().toString().c_str());
      return;
    }
    state.counters["mlir_s"] = report.pipelineSeconds;
    state.counters["llvm_s"] = report.codegenSeconds;
  }
  state.counters["per_unit"] =
      benchmark::Counter(static_cast<double>(state.range(0)),
                         benchmark::Counter::kIsIterationInvariantRate |
                             benchmark::Counter::kInvert);
}

void BM_CompileConcatenate(benchmark::State &state) {
  compileOnce(state, test::wideConcatenate(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_CompileConcatenate)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

void BM_CompileElementwiseChain(benchmark::State &state) {
  compileOnce(state, test::elementwiseChain(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_CompileElementwiseChain)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

void BM_CompileEncoderLayers(benchmark::State &state) {
  client::GraphBuilder builder("bert_encoder");
  examples::bertEncoder(builder, static_cast<int>(state.range(0)));
  auto graph = builder.build();
  if (!graph.isOk()) {
    state.SkipWithError(graph.status().toString().c_str());
    return;
  }
  compileOnce(state, *graph);
}
BENCHMARK(BM_CompileEncoderLayers)
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Arg(12)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();

// Compile time against graph size, for the shapes of graph whose compile
// time once grew faster than their size: a concatenate of N operands (of
// one input, and of N inputs), a chain of N elementwise ops, a chain of N
// matrix products by one constant, and 1-12 stacked encoder layers. Each
// compile is timed once (they are long); the per_unit counter (time per
// operand, node or layer) stays flat where the compile is linear; `functions`
// is the kernel functions emitted. Then constants of 1-256 MiB, embedded (raw
// data) or generated at load (seeded). The peak_mib counter is the
// process's peak resident memory, so sizes run in ascending order and each
// reading is that compile's own peak: run one kind per process
// (--benchmark_filter=EncoderLayers) to read its peaks. The encoder
// emitted whole and in parts (BM_CompileEncoderInParts) compares the
// parallel emit with the serial one in one run.
//
//   build/bin/anyshape-bench-compile [--benchmark_filter=...]
#include "anyshape/client/GraphBuilder.h"
#include "compiler/Compiler.h"
#include "examples/ExampleGraphs.h"
#include "tests/support/HostileGraphs.h"

#include <benchmark/benchmark.h>

#include <sys/resource.h>

using namespace anyshape;

namespace {

/// The process's peak resident memory so far: benchmarks of one kind run
/// in ascending size, so each reading is its own compile's peak.
double peakMib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024; // ru_maxrss: KiB
}

void compileOnce(benchmark::State &state, const v1::Graph &graph,
                 const compiler::CompileOptions &options = {}) {
  for (auto _ : state) {
    compiler::CompileReport report;
    auto compiled = compiler::Compiler::compile(graph, options, &report);
    if (!compiled.isOk()) {
      state.SkipWithError(compiled.status().toString().c_str());
      return;
    }
    state.counters["mlir_s"] = report.pipelineSeconds;
    state.counters["llvm_s"] = report.codegenSeconds;
    state.counters["functions"] = static_cast<double>(report.kernelFunctions);
    for (const compiler::CompileStage &stage : report.stages)
      if (stage.name == "LLVM emit")
        state.counters["emit_s"] = stage.seconds;
  }
  state.counters["peak_mib"] = peakMib();
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

void BM_CompileConcatenateOfInputs(benchmark::State &state) {
  compileOnce(state,
              test::wideConcatenateOfInputs(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_CompileConcatenateOfInputs)
    ->Arg(10)
    ->Arg(100)
    ->Arg(400)
    ->Arg(1000)
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
    ->Arg(100000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

void BM_CompileMatmulChain(benchmark::State &state) {
  compileOnce(state, test::matmulChain(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_CompileMatmulChain)
    ->Arg(10)
    ->Arg(100)
    ->Arg(300)
    ->Arg(1000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

/// Compiles `state.range(0)` stacked encoder layers with `options`.
void compileEncoderLayers(benchmark::State &state,
                          const compiler::CompileOptions &options = {}) {
  client::GraphBuilder builder("bert_encoder");
  examples::bertEncoder(builder, static_cast<int>(state.range(0)));
  auto graph = builder.build();
  if (!graph.isOk()) {
    state.SkipWithError(graph.status().toString().c_str());
    return;
  }
  compileOnce(state, *graph, options);
}

void BM_CompileEncoderLayers(benchmark::State &state) {
  compileEncoderLayers(state);
}
BENCHMARK(BM_CompileEncoderLayers)
    ->Arg(1)
    ->Arg(2)
    ->Arg(6)
    ->Arg(12)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

/// The encoder's object code emitted whole (second argument 1) and in as
/// many parts as the module's size and the cores allow (0; jit/
/// ParallelCodegen.h), side by side: --benchmark_filter=InParts
/// --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true.
void BM_CompileEncoderInParts(benchmark::State &state) {
  compiler::CompileOptions options;
  options.codegenParts = static_cast<int>(state.range(1));
  compileEncoderLayers(state, options);
}
BENCHMARK(BM_CompileEncoderInParts)
    ->ArgNames({"layers", "parts"})
    ->Args({1, 1})
    ->Args({1, 0})
    ->Args({12, 1})
    ->Args({12, 0})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

/// x + c for a constant c of `mib` MiB of f32 (an input of the same static
/// shape, so nothing folds).
v1::Graph constantGraph(int64_t mib, bool seeded) {
  client::GraphBuilder b(seeded ? "seeded_constant" : "data_constant");
  int64_t count = mib << 18;
  client::Value c;
  if (seeded) {
    c = b.seededUniform(v1::DTYPE_F32, {count}, 7, -1, 1);
  } else {
    // Distinct values: MLIR stores an all-equal buffer as one splat.
    std::string bytes(static_cast<size_t>(count * 4), '\0');
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<char>(i * 131 + (i >> 9));
    c = b.constant(v1::DTYPE_F32, {count}, std::move(bytes));
  }
  b.output(b.add(b.parameter("x", v1::DTYPE_F32, {count}), c), "y");
  return *b.build();
}

/// Up to the object code, as a compile worker compiles: the peak is the
/// compiler's, not the loaded executable's constants.
void compileConstant(benchmark::State &state, bool seeded) {
  v1::Graph graph = constantGraph(state.range(0), seeded);
  for (auto _ : state) {
    auto object = compiler::Compiler::compileToObject(graph);
    if (!object.isOk()) {
      state.SkipWithError(object.status().toString().c_str());
      return;
    }
    state.counters["object_mib"] =
        static_cast<double>(object->objectCode.size()) / (1 << 20);
  }
  state.counters["peak_mib"] = peakMib();
}

void BM_CompileDataConstant(benchmark::State &state) {
  compileConstant(state, false);
}
void BM_CompileSeededConstant(benchmark::State &state) {
  compileConstant(state, true);
}
BENCHMARK(BM_CompileSeededConstant)
    ->Arg(1)
    ->Arg(16)
    ->Arg(256)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompileDataConstant)
    ->Arg(1)
    ->Arg(16)
    ->Arg(256)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();

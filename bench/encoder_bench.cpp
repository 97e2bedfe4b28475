// The encoder layer on the CPU backend: the shape-agnostic executable
// (compiled once, any seq) against an executable specialised to each seq
// (static fallback), side by side in one run. The ratio
// static_time / dynamic_time is the "fraction of static performance" the
// issue tracks; compiles are outside the timed loops.
//
//   build/bin/anyshape-bench-encoder [--benchmark_filter=...]
#include "ExampleFile.h"
#include "compiler/Compiler.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/GraphText.h"
#include "ir/graph/Validate.h"
#include "ir/reference/Literal.h"

#include <benchmark/benchmark.h>

#include <map>
#include <memory>

using namespace anyshape;

namespace {

const v1::Graph &encoder() { return bench::encoderLayer(); }

std::shared_ptr<jit::Executable>
compileOrDie(const compiler::CompileOptions &o) {
  auto executable = compiler::Compiler::compile(encoder(), o);
  if (!executable) {
    std::fprintf(stderr, "%s\n", executable.status().toString().c_str());
    std::exit(1);
  }
  return *executable;
}

void runLoop(benchmark::State &state, const jit::Executable &executable,
             const std::vector<v1::Tensor> &inputs) {
  auto warm = executable.run(inputs); // first call materialises the JIT code
  if (!warm)
    state.SkipWithError(warm.status().toString().c_str());
  for (auto _ : state)
    benchmark::DoNotOptimize(executable.run(inputs));
}

void BM_EncoderDynamic(benchmark::State &state) {
  static std::shared_ptr<jit::Executable> dynamic = compileOrDie({});
  runLoop(state, *dynamic, bench::encoderInputs(state.range(0)));
}

void BM_EncoderStatic(benchmark::State &state) {
  compiler::CompileOptions options;
  options.staticSymbols = {{"batch", 1}, {"seq", state.range(0)}};
  std::shared_ptr<jit::Executable> specialised = compileOrDie(options);
  runLoop(state, *specialised, bench::encoderInputs(state.range(0)));
}

void BM_EncoderDynamicUnfused(benchmark::State &state) {
  static std::shared_ptr<jit::Executable> unfused = [] {
    compiler::CompileOptions options;
    options.pipeline.fuse = false;
    return compileOrDie(options);
  }();
  runLoop(state, *unfused, bench::encoderInputs(state.range(0)));
}

/// The FFN's wide weight [768, 3072] as the graph has it (range(0) = 0)
/// or stored transposed (1; anyshape-transpose-wide-weights), whatever
/// this host's default: which layout its GEMM library reads faster.
void BM_EncoderWideWeights(benchmark::State &state) {
  static std::shared_ptr<jit::Executable> byLayout[2] = {nullptr, nullptr};
  std::shared_ptr<jit::Executable> &executable = byLayout[state.range(0)];
  if (!executable) {
    compiler::CompileOptions options;
    options.pipeline.target.transposeWideWeights = state.range(0) == 1;
    executable = compileOrDie(options);
  }
  runLoop(state, *executable, bench::encoderInputs(state.range(1)));
}
/// The GEMMs on the layer's weights as the library packs them in every
/// call (range(0) = 0) or from packs made by the first run (1;
/// anyshape-pack-constant-weights).
void BM_EncoderPackedWeights(benchmark::State &state) {
  static std::shared_ptr<jit::Executable> byChoice[2] = {nullptr, nullptr};
  std::shared_ptr<jit::Executable> &executable = byChoice[state.range(0)];
  if (!executable) {
    compiler::CompileOptions options;
    options.pipeline.packConstantWeights = state.range(0) == 1;
    executable = compileOrDie(options);
  }
  runLoop(state, *executable, bench::encoderInputs(state.range(1)));
}
/// The first run of a freshly loaded executable at range(1) tokens,
/// without (range(0) = 0) and with (1) Executable::warmUp at load, as the
/// server does; each iteration loads a new executable (compiled once,
/// outside the timing). Compare with BM_EncoderDynamic's steady runs.
void BM_EncoderFirstRun(benchmark::State &state) {
  static std::shared_ptr<jit::Executable> compiled = compileOrDie({});
  std::vector<v1::Tensor> inputs = bench::encoderInputs(state.range(1));
  std::shared_ptr<jit::Executable> loaded;
  for (auto _ : state) {
    state.PauseTiming();
    loaded.reset(); // the last one unloads outside the timing
    auto load =
        jit::Executable::load(compiled->graph(), compiled->objectCode());
    if (!load) {
      state.SkipWithError(load.status().toString().c_str());
      return;
    }
    loaded = std::move(*load);
    if (state.range(0) == 1)
      (void)loaded->warmUp();
    state.ResumeTiming();
    benchmark::DoNotOptimize(loaded->run(inputs));
  }
}

/// Host overhead: a graph whose kernel work is one element, so the time is
/// input checks (every shape rule), marshalling and the call itself.
void BM_HostOverheadTinyGraph(benchmark::State &state) {
  static std::shared_ptr<jit::Executable> tiny = [] {
    auto graph = parseGraphText(R"(
      inputs { name: "x" type { dtype: DTYPE_F32 dims { symbol: "n" } } }
      inputs { name: "y" type { dtype: DTYPE_F32 dims { symbol: "n" } } }
      nodes { name: "s" op: "add" operands: "x" operands: "y" }
      outputs: "s")");
    auto executable = compiler::Compiler::compile(*graph);
    if (!executable)
      std::exit(1);
    return *executable;
  }();
  std::vector<v1::Tensor> inputs;
  for (int k = 0; k < 2; ++k)
    inputs.push_back(literalToTensor(randomLiteral(v1::DTYPE_F32, {1}, k)));
  runLoop(state, *tiny, inputs);
}

/// Every shape check of the encoder, as the entry runs them: a call whose
/// last input has the wrong length fails the last check, so it evaluates
/// all of them (the check code is straight-line) and runs no kernel. The
/// time is the tiny graph's overhead plus the checks plus the error text.
void BM_ShapeChecksEncoderRejected(benchmark::State &state) {
  static std::shared_ptr<jit::Executable> dynamic = compileOrDie({});
  std::vector<v1::Tensor> inputs = bench::encoderInputs(state.range(0));
  inputs.back().set_shape(1, state.range(0) + 1); // mask [1, seq + 1]
  inputs.back().mutable_data()->append(sizeof(float), '\0');
  auto info = validateGraph(encoder());
  state.counters["checks"] = static_cast<double>(info->shapeChecks.size());
  for (auto _ : state) {
    auto result = dynamic->run(inputs);
    if (result.isOk())
      state.SkipWithError("the mismatched mask was accepted");
    benchmark::DoNotOptimize(result);
  }
}

} // namespace

BENCHMARK(BM_HostOverheadTinyGraph)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ShapeChecksEncoderRejected)
    ->Arg(128)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EncoderDynamicUnfused)
    ->Arg(16)
    ->Arg(128)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EncoderDynamic)
    ->Arg(16)
    ->Arg(64)
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EncoderWideWeights)
    ->ArgsProduct({{0, 1}, {4, 16, 64, 128, 256, 512}})
    ->ArgNames({"transposed", "seq"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EncoderPackedWeights)
    ->ArgsProduct({{0, 1}, {1, 4, 16, 64, 128, 256, 512}})
    ->ArgNames({"packed", "seq"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EncoderFirstRun)
    ->ArgsProduct({{0, 1}, {1, 2, 5, 8, 16, 128}})
    ->ArgNames({"warmed", "seq"})
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EncoderStatic)
    ->Arg(16)
    ->Arg(64)
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();

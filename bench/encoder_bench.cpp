// The encoder layer on the CPU backend: the shape-agnostic executable
// (compiled once, any seq) against an executable specialised to each seq
// (static fallback), side by side in one run. The ratio
// static_time / dynamic_time is the "fraction of static performance" the
// issue tracks; compiles are outside the timed loops.
//
//   build/bin/anyshape-bench-encoder [--benchmark_filter=...]
#include "ir/graph/Bindings.h"
#include "ir/graph/GraphText.h"
#include "ir/reference/Literal.h"
#include "jit/Compiler.h"

#include <benchmark/benchmark.h>

#include <map>
#include <memory>

using namespace anyshape;

namespace {

const v1::Graph &encoder() {
  static const v1::Graph graph = [] {
    auto g = loadGraphFile(std::string(ANYSHAPE_SOURCE_DIR) +
                           "/examples/bert_encoder_layer.pbtxt");
    if (!g) {
      std::fprintf(stderr, "%s\n", g.status().toString().c_str());
      std::exit(1);
    }
    return *g;
  }();
  return graph;
}

std::vector<v1::Tensor> inputsFor(int64_t seq) {
  auto shapes = inputShapesFor(encoder(), {{"batch", 1}, {"seq", seq}});
  std::vector<v1::Tensor> tensors;
  for (int k = 0; k < encoder().inputs_size(); ++k)
    tensors.push_back(literalToTensor(
        randomLiteral(encoder().inputs(k).type().dtype(), (*shapes)[k], k)));
  return tensors;
}

std::shared_ptr<jit::Executable> compileOrDie(const jit::CompileOptions &o) {
  auto executable = jit::Compiler::compile(encoder(), o);
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
  runLoop(state, *dynamic, inputsFor(state.range(0)));
}

void BM_EncoderStatic(benchmark::State &state) {
  jit::CompileOptions options;
  options.staticSymbols = {{"batch", 1}, {"seq", state.range(0)}};
  std::shared_ptr<jit::Executable> specialised = compileOrDie(options);
  runLoop(state, *specialised, inputsFor(state.range(0)));
}

} // namespace

BENCHMARK(BM_EncoderDynamic)
    ->Arg(16)
    ->Arg(64)
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EncoderStatic)
    ->Arg(16)
    ->Arg(64)
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();

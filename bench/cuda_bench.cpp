// The encoder layer on the CUDA backend (a real GPU; scripts/gpu-check
// runs it there): the shape-agnostic executable, compiled once for any
// seq, against one specialised to each seq (static fallback), side by
// side in one run. Both are timed end to end through Executable::run —
// inputs copied to the device, the host flow's launches and GEMMs, outputs
// copied back — so the copies are the same on both sides and
// static_time / dynamic_time is the fraction of static performance the
// CUDA issue tracks (goal >= 95%). Without a device every benchmark is
// skipped with the reason.
//
//   anyshape-bench-cuda [--benchmark_filter=...]
#include "ExampleFile.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/GraphText.h"
#include "ir/reference/Literal.h"
#include "jit/Compiler.h"
#include "runtime/cuda/CudaDevice.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <memory>

using namespace anyshape;

namespace {

const v1::Graph &encoder() { return bench::encoderLayer(); }

/// The device's chip, or the reason there is none.
StatusOr<int> deviceChip() {
  ANYSHAPE_ASSIGN_OR_RETURN(runtime::cuda::CudaDevice * device,
                            runtime::cuda::CudaDevice::get());
  return device->info().smVersion >= 90 ? 90 : 80;
}

StatusOr<std::shared_ptr<jit::Executable>>
compileFor(const std::map<std::string, int64_t> &staticSymbols) {
  ANYSHAPE_ASSIGN_OR_RETURN(int chip, deviceChip());
  jit::CompileOptions options;
  options.backend = jit::KernelBackend::kCuda;
  options.cuda.target.smVersion = chip;
  options.staticSymbols = staticSymbols;
  return jit::Compiler::compile(encoder(), options);
}

void runLoop(benchmark::State &state,
             const StatusOr<std::shared_ptr<jit::Executable>> &executable,
             const std::vector<v1::Tensor> &inputs) {
  if (!executable.isOk()) {
    state.SkipWithError(executable.status().toString().c_str());
    return;
  }
  // The first run loads the constants and picks the GEMM algorithms.
  auto warm = (*executable)->run(inputs);
  if (!warm.isOk()) {
    state.SkipWithError(warm.status().toString().c_str());
    return;
  }
  for (auto _ : state)
    benchmark::DoNotOptimize((*executable)->run(inputs));
}

void BM_CudaEncoderDynamic(benchmark::State &state) {
  static const auto dynamic = compileFor({});
  runLoop(state, dynamic, bench::encoderInputs(state.range(0)));
}

void BM_CudaEncoderStatic(benchmark::State &state) {
  runLoop(state, compileFor({{"batch", 1}, {"seq", state.range(0)}}),
          bench::encoderInputs(state.range(0)));
}

} // namespace

BENCHMARK(BM_CudaEncoderDynamic)
    ->Arg(16)
    ->Arg(128)
    ->Arg(512)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_CudaEncoderStatic)
    ->Arg(16)
    ->Arg(128)
    ->Arg(512)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();

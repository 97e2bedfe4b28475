// The CUDA backend on a real GPU (scripts/gpu-check runs it there), side
// by side in one run:
//   - BM_CudaEncoderDynamic / Static: the encoder layer's shape-agnostic
//     executable, compiled once for any seq, against one specialised to
//     each seq (static fallback). Both are timed end to end through
//     Executable::run — inputs copied to the device, the host flow's
//     launches and GEMMs, outputs copied back — so the copies are the same
//     on both sides and static_time / dynamic_time is the fraction of
//     static performance the CUDA issue tracks (goal >= 95%). Counters
//     from timed runs after the loop split a run's device time: gemm_ms
//     (cuBLASLt), kernels_ms (the fusions), and count its launches and
//     GEMMs (calls), per run. BM_CudaEncoderBatch8: the dynamic one at
//     batch 8.
//   - BM_CudaCopy: a device-to-device copy of 1 GiB, timed with CUDA
//     events: the bandwidth reference (as the triad is on the CPU).
//   - BM_CudaLoopFusion, BM_CudaGelu, BM_CudaSoftmax, BM_CudaMaskedSoftmax,
//     BM_CudaLayerNorm: memory-bound fusions, each timed by its kernels'
//     device time (Executable::timeDevice: events around each launch), so
//     bytes_per_second is the kernels' compulsory traffic (each input read
//     once, the output written once) over their time on the device, and
//     of_copy that against BM_CudaCopy's (goal >= 0.7 of HBM bandwidth).
//   - BM_CudaRowSchedules: softmax and layer norm at five row lengths with
//     the warp-per-row, block-per-row and chosen version side by side.
// Without a device every benchmark is skipped with the reason.
//
//   anyshape-bench-cuda [--benchmark_filter=...]
#include "ExampleFile.h"
#include "anyshape/client/GraphBuilder.h"
#include "compiler/Compiler.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/GraphText.h"
#include "ir/reference/Literal.h"
#include "runtime/cuda/CudaDevice.h"

#include <benchmark/benchmark.h>

#include <array>
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
compileFor(const v1::Graph &graph,
           const std::map<std::string, int64_t> &staticSymbols,
           const std::string &rowSchedule = "auto") {
  ANYSHAPE_ASSIGN_OR_RETURN(int chip, deviceChip());
  compiler::CompileOptions options;
  options.backend = compiler::KernelBackend::kCuda;
  options.cuda.target.smVersion = chip;
  options.staticSymbols = staticSymbols;
  options.cuda.rowSchedule = rowSchedule;
  return compiler::Compiler::compile(graph, options);
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

/// An executable's device time since timing went on: the GEMMs' and the
/// other kernels' milliseconds, and how many calls.
struct DeviceSplit {
  double gemm = 0, kernels = 0;
  int64_t calls = 0;
};

DeviceSplit deviceSplit(const jit::Executable &e) {
  DeviceSplit split;
  for (const auto &time : e.deviceTimes()) {
    (time.name == runtime::cuda::kGemmName ? split.gemm : split.kernels) +=
        time.milliseconds;
    split.calls += time.calls;
  }
  return split;
}

/// After the timed loop: `runs` timed runs, their device time per run
/// split into the counters gemm_ms and kernels_ms.
void reportDeviceTime(benchmark::State &state, const jit::Executable &e,
                      const std::vector<v1::Tensor> &inputs, int runs = 10) {
  if (!e.timeDevice(true).isOk())
    return;
  for (int k = 0; k < runs; ++k)
    if (!e.run(inputs).isOk())
      return;
  DeviceSplit split = deviceSplit(e);
  (void)e.timeDevice(false);
  state.counters["gemm_ms"] = split.gemm / runs;
  state.counters["kernels_ms"] = split.kernels / runs;
  state.counters["calls"] = static_cast<double>(split.calls) / runs;
}

void BM_CudaEncoderDynamic(benchmark::State &state) {
  static const auto dynamic = compileFor(encoder(), {});
  auto inputs = bench::encoderInputs(state.range(0));
  runLoop(state, dynamic, inputs);
  if (dynamic.isOk())
    reportDeviceTime(state, **dynamic, inputs);
}

/// The same executable at batch 8: bigger GEMMs, and rows enough for the
/// warp-per-row layer norms at seq 512 (4,096 rows of 768).
void BM_CudaEncoderBatch8(benchmark::State &state) {
  static const auto dynamic = compileFor(encoder(), {});
  auto inputs = bench::encoderInputs(state.range(0), 8);
  runLoop(state, dynamic, inputs);
  if (dynamic.isOk())
    reportDeviceTime(state, **dynamic, inputs);
}

void BM_CudaEncoderStatic(benchmark::State &state) {
  auto executable =
      compileFor(encoder(), {{"batch", 1}, {"seq", state.range(0)}});
  auto inputs = bench::encoderInputs(state.range(0));
  runLoop(state, executable, inputs);
  if (executable.isOk())
    reportDeviceTime(state, **executable, inputs);
}

/// The device's copy bandwidth in bytes per second (read + write), from
/// the last BM_CudaCopy; 0 before it ran.
double copyBytesPerSecond = 0;

void BM_CudaCopy(benchmark::State &state) {
  auto device = runtime::cuda::CudaDevice::get();
  if (!device.isOk()) {
    state.SkipWithError(device.status().toString().c_str());
    return;
  }
  const runtime::cuda::Driver &d = (*device)->driver();
  if (!d.cuEventCreate || !(*device)->makeCurrent().isOk()) {
    state.SkipWithError("this driver has no CUDA events");
    return;
  }
  constexpr int64_t kBytes = int64_t{1} << 30;
  int64_t fromSize = 0, toSize = 0;
  auto from = (*device)->memory().allocate(kBytes, &fromSize);
  auto to = (*device)->memory().allocate(kBytes, &toSize);
  auto stream = (*device)->acquireStream();
  void *start = nullptr, *stop = nullptr;
  if (!from.isOk() || !to.isOk() || !stream.isOk() ||
      d.cuEventCreate(&start, 0) != 0 || d.cuEventCreate(&stop, 0) != 0) {
    state.SkipWithError("no device memory, stream or event for the copy");
    return;
  }
  double seconds = 0;
  for (auto _ : state) {
    float milliseconds = 0;
    if (d.cuEventRecord(start, *stream) != 0 ||
        d.cuMemcpyDtoDAsync_v2(*to, *from, kBytes, *stream) != 0 ||
        d.cuEventRecord(stop, *stream) != 0 ||
        d.cuStreamSynchronize(*stream) != 0 ||
        d.cuEventElapsedTime(&milliseconds, start, stop) != 0) {
      state.SkipWithError("the copy failed");
      break;
    }
    state.SetIterationTime(milliseconds / 1e3);
    seconds += milliseconds / 1e3;
  }
  d.cuEventDestroy_v2(start);
  d.cuEventDestroy_v2(stop);
  (*device)->releaseStream(*stream);
  (*device)->memory().recycle(*from, fromSize);
  (*device)->memory().recycle(*to, toSize);
  state.SetBytesProcessed(state.iterations() * 2 * kBytes);
  if (seconds > 0)
    copyBytesPerSecond = 2.0 * kBytes * state.iterations() / seconds;
}

/// A memory-bound graph on the device, each iteration's time its kernels'
/// device time; `bytes` its compulsory traffic per run.
void runFusion(benchmark::State &state, const v1::Graph &graph,
               const std::vector<v1::Tensor> &inputs, int64_t bytes,
               const std::string &rowSchedule = "auto") {
  auto executable = compileFor(graph, {}, rowSchedule);
  if (!executable.isOk()) {
    state.SkipWithError(executable.status().toString().c_str());
    return;
  }
  const jit::Executable &e = **executable;
  if (Status on = e.timeDevice(true); !on.isOk()) {
    state.SkipWithError(on.toString().c_str());
    return;
  }
  double before = 0;
  for (auto _ : state) {
    if (auto run = e.run(inputs); !run.isOk()) {
      state.SkipWithError(run.status().toString().c_str());
      return;
    }
    double total = deviceSplit(e).kernels;
    state.SetIterationTime((total - before) / 1e3);
    before = total;
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  if (copyBytesPerSecond > 0 && before > 0)
    state.counters["of_copy"] = static_cast<double>(bytes) *
                                state.iterations() / (before / 1e3) /
                                copyBytesPerSecond;
}

constexpr int64_t kElements = int64_t{32} << 20; // 128 MiB of f32

std::vector<v1::Tensor>
randomInputs(const std::vector<std::vector<int64_t>> &shapes) {
  std::vector<v1::Tensor> tensors;
  for (size_t k = 0; k < shapes.size(); ++k)
    tensors.push_back(literalToTensor(
        randomLiteral(v1::DTYPE_F32, shapes[k], static_cast<uint64_t>(k))));
  return tensors;
}

void BM_CudaLoopFusion(benchmark::State &state) {
  client::GraphBuilder b("loop");
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"n"});
  client::Value z = b.parameter("z", v1::DTYPE_F32, {"n"});
  b.output(b.add(b.mul(x, b.scalar(0.5)), z), "y");
  runFusion(state, *b.build(), randomInputs({{kElements}, {kElements}}),
            3 * kElements * 4);
}

void BM_CudaGelu(benchmark::State &state) {
  client::GraphBuilder b("gelu");
  b.output(b.gelu(b.parameter("x", v1::DTYPE_F32, {"n"})), "y");
  runFusion(state, *b.build(), randomInputs({{kElements}}), 2 * kElements * 4);
}

/// Softmax (or layer norm, with gamma and beta inputs) over `rows` rows
/// of `n`, and its inputs' shapes.
std::pair<v1::Graph, std::vector<std::vector<int64_t>>>
rowGraph(bool layerNorm, int64_t rows, int64_t n) {
  client::GraphBuilder b(layerNorm ? "layer_norm" : "softmax");
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"rows", n});
  std::vector<std::vector<int64_t>> shapes{{rows, n}};
  if (layerNorm) {
    client::Value gamma = b.parameter("gamma", v1::DTYPE_F32, {n});
    client::Value beta = b.parameter("beta", v1::DTYPE_F32, {n});
    b.output(b.layerNorm(x, gamma, beta), "y");
    shapes.push_back({n});
    shapes.push_back({n});
  } else {
    b.output(b.softmax(x, 1), "y");
  }
  return {*b.build(), shapes};
}

void BM_CudaSoftmax(benchmark::State &state) {
  auto [graph, shapes] = rowGraph(false, kElements / 1024, 1024);
  runFusion(state, graph, randomInputs(shapes), 2 * kElements * 4);
}

/// Attention's softmax over a BERT layer's scores: [12 seq, seq] per
/// sequence, here 32 sequences of 512 (384 MiB).
void BM_CudaMaskedSoftmax(benchmark::State &state) {
  client::GraphBuilder b("masked_softmax");
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"rows", "n"});
  client::Value mask = b.parameter("mask", v1::DTYPE_F32, {1, "n"});
  b.output(b.softmax(b.add(b.mul(x, b.scalar(0.125)), mask), 1), "y");
  int64_t rows = 32 * 12 * 512, n = 512;
  runFusion(state, *b.build(), randomInputs({{rows, n}, {1, n}}),
            2 * rows * n * 4);
}

void BM_CudaLayerNorm(benchmark::State &state) {
  int64_t rows = kElements / 768;
  auto [graph, shapes] = rowGraph(true, rows, 768);
  runFusion(state, graph, randomInputs(shapes), 2 * rows * 768 * 4);
}

/// The row schedules side by side: softmax (range(2) = 0) or layer norm
/// (1) over rows of range(0) elements, 64 MiB in all, each row shared by
/// a warp (range(1) = 0), a block (1), or as the host flow picks per run
/// (2): where the warp version's limit (CudaTarget::warpMaxRow) belongs.
void BM_CudaRowSchedules(benchmark::State &state) {
  int64_t n = state.range(0), rows = (kElements / 2) / n;
  const char *schedule = std::array{"warp", "block", "auto"}[state.range(1)];
  bool layerNorm = state.range(2) == 1;
  auto [graph, shapes] = rowGraph(layerNorm, rows, n);
  state.SetLabel(std::string(layerNorm ? "layer norm" : "softmax") + ", " +
                 schedule);
  runFusion(state, graph, randomInputs(shapes), 2 * rows * n * 4, schedule);
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

BENCHMARK(BM_CudaEncoderBatch8)
    ->Arg(128)
    ->Arg(512)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_CudaCopy)->Iterations(20)->UseManualTime();
// Fixed iterations: each run also copies its inputs and output over PCIe
// (tens of ms), which the manual time leaves out.
BENCHMARK(BM_CudaLoopFusion)->Iterations(10)->UseManualTime();
BENCHMARK(BM_CudaGelu)->Iterations(10)->UseManualTime();
BENCHMARK(BM_CudaSoftmax)->Iterations(10)->UseManualTime();
BENCHMARK(BM_CudaMaskedSoftmax)->Iterations(10)->UseManualTime();
BENCHMARK(BM_CudaLayerNorm)->Iterations(10)->UseManualTime();
BENCHMARK(BM_CudaRowSchedules)
    ->ArgsProduct({{128, 512, 768, 1024, 3072}, {0, 1, 2}, {0, 1}})
    ->Iterations(10)
    ->UseManualTime();

BENCHMARK_MAIN();

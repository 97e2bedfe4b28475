// Memory-bound fusions against the machine's memory bandwidth, side by
// side in one run:
//   - BM_Triad: a STREAM-style triad a = b + s * c over 64 MiB arrays on
//     all hardware threads (std::thread, one contiguous block each) — the
//     bandwidth reference;
//   - BM_LoopFusion: y = x * 0.5 + z (one kLoop kernel) compiled once for
//     every n, run at n = 16 Mi (64 MiB per tensor);
//   - BM_LoopFusionToTensors: the same through run(), the output copied
//     into a wire tensor;
//   - BM_Gelu: GELU (erf form) over 64 MiB: arithmetic-bound, erf's
//     rational approximation divides once per element;
//   - BM_SinCos: sin and cos of one 64 MiB input (RoPE's tables):
//     arithmetic-bound, the quadrant reduction and both polynomials;
//   - BM_LoopFusionOneRow: the same on [1, n]: one row, shared among the
//     threads in chunks of the innermost dim;
//   - BM_StitchSoftmax: softmax over rows of [rows, 1024] (one kStitch
//     kernel: max, exp-sum, divide per row), at 64 MiB in and out and at
//     256 KiB (in cache);
//   - BM_StitchSoftmaxDynamicRowLength: the same with the row length
//     symbolic too, at 1024 and 1023 (a multiple of the 16-lane vector
//     width and not);
//   - BM_StitchMaskedSoftmax: attention's softmax(x * 0.125 + mask) over
//     a BERT layer's scores at seq 128 (in cache) and 512 (12 MiB);
//   - BM_SoftmaxOneRow: softmax over [1, n], its row shared among the
//     threads (the split-row version) or on one thread, at 64 MiB, in
//     cache and on either side of the split-row threshold;
//   - BM_Sum: a 64 MiB sum over rows, over columns and over a middle dim;
//   - BM_ImplicitBroadcastAdd: y = x + broadcast(b) for x [rows, m] and b
//     [k], where k may be 1 or m at run time (the shape analysis cannot
//     tell), run with k = m = 1024 (the kernel's no-stretch version) at
//     64 MiB and at 256 KiB (in cache).
// Bytes counted are the kernel's compulsory traffic (each input read once,
// the output written once). Executables are timed through runToBuffers:
// input checks, host flow and kernels, without run()'s copy of outputs
// into wire tensors.
//
//   build/bin/anyshape-bench-kernels [--benchmark_filter=...]
#include "anyshape/client/GraphBuilder.h"
#include "compiler/Compiler.h"
#include "ir/reference/Literal.h"
#include "runtime/Threading.h"

#include <benchmark/benchmark.h>

#include <limits>
#include <thread>

using namespace anyshape;

namespace {

constexpr int64_t kElements = int64_t{16} << 20; // 64 MiB of f32

void BM_Triad(benchmark::State &state) {
  std::vector<float> a(kElements), b(kElements, 1.0f), c(kElements, 2.0f);
  int threads = runtime::hardwareThreads();
  for (auto _ : state) {
    std::vector<std::thread> team;
    for (int t = 0; t < threads; ++t)
      team.emplace_back([&, t] {
        int64_t begin = kElements * t / threads;
        int64_t end = kElements * (t + 1) / threads;
        for (int64_t i = begin; i < end; ++i)
          a[i] = b[i] + 3.0f * c[i];
      });
    for (std::thread &member : team)
      member.join();
    benchmark::DoNotOptimize(a.data());
  }
  state.SetBytesProcessed(state.iterations() * 3 * kElements * 4);
}

std::shared_ptr<jit::Executable>
compileOrDie(const v1::Graph &graph,
             const compiler::CompileOptions &options = {}) {
  auto executable = compiler::Compiler::compile(graph, options);
  if (!executable) {
    std::fprintf(stderr, "%s\n", executable.status().toString().c_str());
    std::exit(1);
  }
  return *executable;
}

/// Times runToBuffers: input checks, the host flow and the kernels, with
/// the outputs left where the kernels wrote them (run() would add a copy
/// into wire tensors).
void runExecutable(benchmark::State &state, const jit::Executable &executable,
                   const std::vector<v1::Tensor> &inputs, int64_t bytes) {
  std::vector<const v1::Tensor *> pointers;
  for (const v1::Tensor &t : inputs)
    pointers.push_back(&t);
  auto warm = executable.runToBuffers(pointers);
  if (!warm)
    state.SkipWithError(warm.status().toString().c_str());
  for (auto _ : state)
    benchmark::DoNotOptimize(executable.runToBuffers(pointers));
  state.SetBytesProcessed(state.iterations() * bytes);
}

/// y = x * 0.5 + z (one kLoop kernel), compiled once for every n, and
/// its inputs at n = kElements.
const jit::Executable &loopFusion() {
  static auto executable = [] {
    client::GraphBuilder b("loop");
    client::Value x = b.parameter("x", v1::DTYPE_F32, {"n"});
    client::Value z = b.parameter("z", v1::DTYPE_F32, {"n"});
    b.output(b.add(b.mul(x, b.scalar(0.5)), z), "y");
    return compileOrDie(*b.build());
  }();
  return *executable;
}

std::vector<v1::Tensor> loopFusionInputs() {
  std::vector<v1::Tensor> inputs;
  for (int k = 0; k < 2; ++k)
    inputs.push_back(
        literalToTensor(randomLiteral(v1::DTYPE_F32, {kElements}, k)));
  return inputs;
}

void BM_LoopFusion(benchmark::State &state) {
  runExecutable(state, loopFusion(), loopFusionInputs(), 3 * kElements * 4);
}

/// The same through run(): the kernel, then the output copied into a wire
/// tensor (what a caller of run() and the server's responses pay).
void BM_LoopFusionToTensors(benchmark::State &state) {
  std::vector<v1::Tensor> inputs = loopFusionInputs();
  for (auto _ : state)
    benchmark::DoNotOptimize(loopFusion().run(inputs));
  state.SetBytesProcessed(state.iterations() * 3 * kElements * 4);
}

/// GELU (erf form, as BERT's FFN): one loop kernel whose cost is its
/// arithmetic (erf's rational approximation), not its memory traffic.
void BM_Gelu(benchmark::State &state) {
  static auto executable = [] {
    client::GraphBuilder b("gelu");
    b.output(b.gelu(b.parameter("x", v1::DTYPE_F32, {"n"})), "y");
    return compileOrDie(*b.build());
  }();
  std::vector<v1::Tensor> inputs{
      literalToTensor(randomLiteral(v1::DTYPE_F32, {kElements}, 0))};
  runExecutable(state, *executable, inputs, 2 * kElements * 4);
}

/// sin and cos of one input, as RoPE's tables are made: one loop kernel
/// whose cost is its arithmetic.
void BM_SinCos(benchmark::State &state) {
  static auto executable = [] {
    client::GraphBuilder b("sincos");
    client::Value x = b.parameter("x", v1::DTYPE_F32, {"n"});
    b.output(b.sin(x), "s");
    b.output(b.cos(x), "c");
    return compileOrDie(*b.build());
  }();
  std::vector<v1::Tensor> inputs{
      literalToTensor(randomLiteral(v1::DTYPE_F32, {kElements}, 0))};
  runExecutable(state, *executable, inputs, 3 * kElements * 4);
}

void BM_LoopFusionOneRow(benchmark::State &state) {
  static auto executable = [] {
    client::GraphBuilder b("loop_one_row");
    client::Value x = b.parameter("x", v1::DTYPE_F32, {"rows", "n"});
    client::Value z = b.parameter("z", v1::DTYPE_F32, {"rows", "n"});
    b.output(b.add(b.mul(x, b.scalar(0.5)), z), "y");
    return compileOrDie(*b.build());
  }();
  std::vector<v1::Tensor> inputs;
  for (int k = 0; k < 2; ++k)
    inputs.push_back(
        literalToTensor(randomLiteral(v1::DTYPE_F32, {1, kElements}, k)));
  runExecutable(state, *executable, inputs, 3 * kElements * 4);
}

void BM_StitchSoftmax(benchmark::State &state) {
  static auto executable = [] {
    client::GraphBuilder b("softmax");
    client::Value x = b.parameter("x", v1::DTYPE_F32, {"rows", 1024});
    b.output(b.softmax(x, 1), "y");
    return compileOrDie(*b.build());
  }();
  int64_t rows = state.range(0);
  std::vector<v1::Tensor> inputs{
      literalToTensor(randomLiteral(v1::DTYPE_F32, {rows, 1024}, 0))};
  runExecutable(state, *executable, inputs, 2 * rows * 1024 * 4);
}

void BM_StitchSoftmaxDynamicRowLength(benchmark::State &state) {
  static auto executable = [] {
    client::GraphBuilder b("softmax_dynamic_row");
    client::Value x = b.parameter("x", v1::DTYPE_F32, {"rows", "cols"});
    b.output(b.softmax(x, 1), "y");
    return compileOrDie(*b.build());
  }();
  int64_t rows = state.range(0), cols = state.range(1);
  std::vector<v1::Tensor> inputs{
      literalToTensor(randomLiteral(v1::DTYPE_F32, {rows, cols}, 0))};
  runExecutable(state, *executable, inputs, 2 * rows * cols * 4);
}

/// Attention's softmax: softmax(x * 0.125 + mask) over rows of [rows, n],
/// the mask [1, n] broadcast over the rows; at seq s a BERT layer's scores
/// are [12 s, s]. The stitch stores the scaled, masked row first; the
/// exp-sum and the quotient then reuse what it stored (one exp per
/// element).
void BM_StitchMaskedSoftmax(benchmark::State &state) {
  static auto executable = [] {
    client::GraphBuilder b("masked_softmax");
    client::Value x = b.parameter("x", v1::DTYPE_F32, {"rows", "n"});
    client::Value mask = b.parameter("mask", v1::DTYPE_F32, {1, "n"});
    b.output(b.softmax(b.add(b.mul(x, b.scalar(0.125)), mask), 1), "y");
    return compileOrDie(*b.build());
  }();
  int64_t rows = state.range(0), n = state.range(1);
  std::vector<v1::Tensor> inputs{
      literalToTensor(randomLiteral(v1::DTYPE_F32, {rows, n}, 0)),
      literalToTensor(randomLiteral(v1::DTYPE_F32, {1, n}, 1))};
  runExecutable(state, *executable, inputs, 2 * rows * n * 4);
}

/// Softmax over one row of n: with split-row at every row length (range(1)
/// = 1), the row is shared among the threads; off, the whole row runs on
/// one thread (what every row reduction did before the split-row version).
/// Side by side they place the split-row threshold.
void BM_SoftmaxOneRow(benchmark::State &state) {
  auto compileSoftmax = [](int64_t splitRowMinWork) {
    client::GraphBuilder b("softmax_one_row");
    client::Value x = b.parameter("x", v1::DTYPE_F32, {"rows", "n"});
    b.output(b.softmax(x, 1), "y");
    compiler::CompileOptions options;
    options.pipeline.splitRowMinWork = splitRowMinWork;
    return compileOrDie(*b.build(), options);
  };
  static auto rowPerThread =
      compileSoftmax(std::numeric_limits<int64_t>::max());
  static auto splitRow = compileSoftmax(0);
  int64_t n = state.range(0);
  std::vector<v1::Tensor> inputs{
      literalToTensor(randomLiteral(v1::DTYPE_F32, {1, n}, 0))};
  runExecutable(state, state.range(1) ? *splitRow : *rowPerThread, inputs,
                2 * n * 4);
}

/// Sums of 64 MiB: [4096, 4096] over its rows (range(0) = 1: each row's
/// innermost dim) or its columns (0: the outer dim), and [1, 4096, 4096]
/// over its middle dim (2: one row of 4096 x 4096, shared by columns).
void BM_Sum(benchmark::State &state) {
  auto compileSum = [](std::vector<client::Dim> dims, int64_t dim) {
    client::GraphBuilder b("sum");
    client::Value x = b.parameter("x", v1::DTYPE_F32, std::move(dims));
    b.output(b.reduce(x, {dim}, client::Reduction::Sum), "y");
    return compileOrDie(*b.build());
  };
  static auto columns = compileSum({"m", "n"}, 0);
  static auto rows = compileSum({"m", "n"}, 1);
  static auto middle = compileSum({"b", "m", "n"}, 1);
  int64_t shape = state.range(0);
  std::vector<int64_t> dims{4096, 4096};
  if (shape == 2)
    dims.insert(dims.begin(), 1);
  std::vector<v1::Tensor> inputs{
      literalToTensor(randomLiteral(v1::DTYPE_F32, dims, 0))};
  const jit::Executable &executable = shape == 0   ? *columns
                                      : shape == 1 ? *rows
                                                   : *middle;
  runExecutable(state, executable, inputs, 4096 * 4096 * 4);
}

void BM_ImplicitBroadcastAdd(benchmark::State &state) {
  static auto executable = [] {
    client::GraphBuilder b("implicit_broadcast");
    client::Value x = b.parameter("x", v1::DTYPE_F32, {"rows", "m"});
    client::Value bias = b.parameter("b", v1::DTYPE_F32, {"k"});
    b.output(b.add(x, b.broadcastInDim(bias, {"rows", "m"}, {1})), "y");
    return compileOrDie(*b.build());
  }();
  int64_t rows = state.range(0);
  std::vector<v1::Tensor> inputs{
      literalToTensor(randomLiteral(v1::DTYPE_F32, {rows, 1024}, 0)),
      literalToTensor(randomLiteral(v1::DTYPE_F32, {1024}, 1))};
  runExecutable(state, *executable, inputs, 2 * rows * 1024 * 4);
}

} // namespace

BENCHMARK(BM_Triad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoopFusion)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoopFusionToTensors)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoopFusionOneRow)->Unit(benchmark::kMillisecond)->UseRealTime();
// 64 MiB (memory-bound) and 256 KiB (in cache: the kernel's own speed).
BENCHMARK(BM_Gelu)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SinCos)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StitchSoftmax)
    ->Arg(kElements / 1024)
    ->Arg(64)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
// Row lengths a multiple of 16 lanes and not, in cache and in memory.
BENCHMARK(BM_StitchSoftmaxDynamicRowLength)
    ->Args({64, 1024})
    ->Args({64, 1023})
    ->Args({kElements / 1024, 1024})
    ->Args({kElements / 1024, 1023})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
// A BERT layer's scores at seq 128 (in cache) and 512 (12 MiB).
BENCHMARK(BM_StitchMaskedSoftmax)
    ->Args({12 * 128, 128})
    ->Args({12 * 512, 512})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
// One row of 64 MiB, of 1 MiB (in L2 cache), and of 16 Ki and 64 Ki (on
// either side of the split-row threshold), split among the threads (1) or
// not (0).
BENCHMARK(BM_SoftmaxOneRow)
    ->ArgsProduct({{kElements, 256 << 10, 16 << 10, 64 << 10}, {0, 1}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_Sum)
    ->DenseRange(0, 2)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_ImplicitBroadcastAdd)
    ->Arg(kElements / 1024)
    ->Arg(64)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_MAIN();

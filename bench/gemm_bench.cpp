// The compiled executable's GEMM against oneDNN called directly on the same
// shapes, side by side in one run: a graph holding one f32 dot_general
// [M, 768] x [768, 3072] (the BERT FFN), compiled once for every M, versus
// a oneDNN matmul primitive created for that exact M (the best the library
// offers: shape-specialised, weights in plain layout). Ratio goal >= 90%.
// And the runtime's two GEMM entries on BERT's three weight shapes: the
// library packing the weight in every call, and a pack made once
// (runtime/PackedGemm.h).
//
//   build/bin/anyshape-bench-gemm
#include "compiler/Compiler.h"
#include "ir/graph/GraphText.h"
#include "ir/reference/Literal.h"
#include "runtime/ExecutionContext.h"
#include "runtime/PackedGemm.h"
#include "runtime/Threading.h"

#include <benchmark/benchmark.h>
#include <oneapi/dnnl/dnnl.hpp>

using namespace anyshape;

namespace {

constexpr int64_t K = 768, N = 3072;

std::shared_ptr<jit::Executable> &executable() {
  static std::shared_ptr<jit::Executable> e = [] {
    auto graph = parseGraphText(R"(
      inputs { name: "x" type { dtype: DTYPE_F32 dims { symbol: "m" } dims { size: 768 } } }
      nodes { name: "w" op: "constant" constant { dtype: DTYPE_F32 shape: 768 shape: 3072 seeded_uniform { seed: 1 low: -0.05 high: 0.05 } } }
      nodes { name: "y" op: "dot_general" operands: "x" operands: "w"
              dot_general { lhs_contracting_dimensions: 1 rhs_contracting_dimensions: 0 } }
      outputs: "y")");
    auto compiled = compiler::Compiler::compile(*graph);
    if (!compiled) {
      std::fprintf(stderr, "%s\n", compiled.status().toString().c_str());
      std::exit(1);
    }
    return *compiled;
  }();
  return e;
}

void BM_CompiledGemm(benchmark::State &state) {
  int64_t m = state.range(0);
  std::vector<v1::Tensor> inputs{
      literalToTensor(randomLiteral(v1::DTYPE_F32, {m, K}, 1))};
  (void)executable()->run(inputs);
  for (auto _ : state)
    benchmark::DoNotOptimize(executable()->run(inputs));
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * K * N * state.iterations(), benchmark::Counter::kIsRate,
      benchmark::Counter::kIs1000);
}

void BM_OneDnnDirect(benchmark::State &state) {
  using dnnl::memory;
  int64_t m = state.range(0);
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  auto md = [](memory::dims d) {
    return memory::desc(d, memory::data_type::f32, memory::format_tag::ab);
  };
  dnnl::matmul::desc desc(md({m, K}), md({K, N}), md({m, N}));
  dnnl::matmul matmul(dnnl::matmul::primitive_desc(desc, engine));
  std::vector<float> a(m * K, 0.5f), b(K * N, 0.25f), c(m * N);
  memory src(md({m, K}), engine, a.data()), wei(md({K, N}), engine, b.data()),
      dst(md({m, N}), engine, c.data());
  for (auto _ : state) {
    matmul.execute(
        stream,
        {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
    stream.wait();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * K * N * state.iterations(), benchmark::Counter::kIsRate,
      benchmark::Counter::kIs1000);
}

/// [M, K] x [K, N] through the runtime's plain entry (range(0) = 0) or
/// from a packed weight (1), for BERT's weights (range(1): 0 the FFN's
/// [768, 3072] stored transposed, as the CPU pipeline stores it on hosts
/// without AVX-512; 1 [3072, 768]; 2 [768, 768]), on every core; the
/// weight stays hot in the cache between calls.
void BM_RuntimeGemm(benchmark::State &state) {
  using namespace anyshape::runtime;
  bool packed = state.range(0) == 1;
  int64_t shapes[3][2] = {{768, 3072}, {3072, 768}, {768, 768}};
  int64_t k = shapes[state.range(1)][0], n = shapes[state.range(1)][1];
  bool transposed = state.range(1) == 0;
  int64_t m = state.range(2);
  std::vector<float> a(m * k, 0.5f), w(k * n, 0.25f), c(m * n);
  Memref3D x{a.data(), a.data(), 0, {1, m, k}, {m * k, k, 1}};
  Memref3D weight{w.data(),
                  w.data(),
                  0,
                  {1, k, n},
                  {k * n, transposed ? 1 : n, transposed ? k : 1}};
  Memref3D out{c.data(), c.data(), 0, {1, m, n}, {m * n, n, 1}};
  int64_t slotValue = 0;
  SlotMemref slot{&slotValue, &slotValue, 0, {1}, {1}};
  AnyshapeExecutionContext context = cachingContext(anyshapeTeamSize());
  auto call = [&] {
    if (packed)
      anyshapeBatchMatmulPackedF32(&x, &weight, &out, &slot, &context);
    else
      anyshapeBatchMatmulF32(&x, &weight, &out, &context);
  };
  call(); // packs
  for (auto _ : state)
    call();
  anyshapeReleaseGemmPack(reinterpret_cast<int64_t>(&slotValue));
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * k * n * state.iterations(), benchmark::Counter::kIsRate,
      benchmark::Counter::kIs1000);
}

/// Attention's two products per head as the pipeline passes them (12
/// heads of 64, range(0) tokens): scores = Q K^T with K^T a transposed
/// view of K, then P V; the runtime's plain entry on every core.
void BM_AttentionGemm(benchmark::State &state) {
  using namespace anyshape::runtime;
  int64_t s = state.range(0), heads = 12, d = 64;
  std::vector<float> q(heads * s * d, 0.5f), k(heads * s * d, 0.25f),
      scores(heads * s * s), v(heads * s * d, 0.5f), out(heads * s * d);
  Memref3D qView{q.data(), q.data(), 0, {heads, s, d}, {s * d, d, 1}};
  Memref3D kTransposed{k.data(), k.data(), 0, {heads, d, s}, {s * d, 1, d}};
  Memref3D scoreView{
      scores.data(), scores.data(), 0, {heads, s, s}, {s * s, s, 1}};
  Memref3D vView{v.data(), v.data(), 0, {heads, s, d}, {s * d, d, 1}};
  Memref3D outView{out.data(), out.data(), 0, {heads, s, d}, {s * d, d, 1}};
  AnyshapeExecutionContext context = cachingContext(anyshapeTeamSize());
  for (auto _ : state) {
    anyshapeBatchMatmulF32(&qView, &kTransposed, &scoreView, &context);
    anyshapeBatchMatmulF32(&scoreView, &vView, &outView, &context);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      4.0 * heads * s * s * d * state.iterations(), benchmark::Counter::kIsRate,
      benchmark::Counter::kIs1000);
}

} // namespace

BENCHMARK(BM_AttentionGemm)
    ->Arg(16)
    ->Arg(64)
    ->Arg(256)
    ->Arg(512)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RuntimeGemm)
    ->ArgsProduct({{0, 1}, {0, 1, 2}, {1, 4, 8, 16, 64, 256}})
    ->ArgNames({"packed", "weight", "m"})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CompiledGemm)
    ->Arg(1)
    ->Arg(32)
    ->Arg(128)
    ->Arg(512)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OneDnnDirect)
    ->Arg(1)
    ->Arg(32)
    ->Arg(128)
    ->Arg(512)
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();

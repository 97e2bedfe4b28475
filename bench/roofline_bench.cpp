// The encoder layer against its GEMM roofline, side by side in one run: the
// compiled layer (examples/bert_encoder_layer, compiled once for every
// length) against the layer's matrix products alone, each run by the same
// oneDNN GEMM the compiled code calls (runtime/Gemm.h; the six weight
// products from weights packed once, runtime/PackedGemm.h, as the compiled
// code runs them), on dense operands in the layout the GEMM likes best. The
// GEMMs alone are what the layer would cost if everything that is not a GEMM
// (bias, softmax, layer norm, GELU, transposes, the host flow, allocation) were
// free, so
//
//   roofline = gemm time / layer time
//
// is the fraction of the GEMM roofline the layer reaches (issue 18's item
// 4 asks for >= 0.95 on the uniform trace). Each iteration runs the layer
// and then its GEMMs at the same lengths, so both see the same machine
// moment (these machines are shared and noisy).
//
//   build/bin/anyshape-bench-roofline [--benchmark_filter=...]
//
// BM_Roofline/SEQ: one length. BM_RooflineTrace/0 (uniform 1..512) and
// /1 (skewed: mostly short), 60 lengths each, seed 0 (anyshape-load's
// traces, tools/load/Workload.h).
#include "ExampleFile.h"
#include "compiler/Compiler.h"
#include "runtime/Gemm.h"
#include "runtime/PackedGemm.h"
#include "tools/load/Workload.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <vector>

using namespace anyshape;

namespace {

constexpr int64_t kHidden = 768, kHeads = 12, kHeadDim = 64, kFfn = 3072;

std::shared_ptr<jit::Executable> compiledLayer() {
  static std::shared_ptr<jit::Executable> layer = [] {
    auto executable = compiler::Compiler::compile(bench::encoderLayer(), {});
    if (!executable) {
      std::fprintf(stderr, "%s\n", executable.status().toString().c_str());
      std::exit(1);
    }
    return *executable;
  }();
  return layer;
}

/// One batched product c[b] = a[b] x w[b], its dims at a length.
struct Product {
  int64_t batch, m, k, n;
  double flops() const { return 2.0 * batch * m * k * n; }
};

/// The layer's products at batch 1 and `seq`: Q, K, V and the output
/// projection; the two FFN products (these six on weights); scores QK^T
/// and their product with V per head.
std::vector<Product> layerProducts(int64_t seq) {
  std::vector<Product> products(4, {1, seq, kHidden, kHidden});
  products.push_back({1, seq, kHidden, kFfn});
  products.push_back({1, seq, kFfn, kHidden});
  products.push_back({kHeads, seq, kHeadDim, seq});
  products.push_back({kHeads, seq, seq, kHeadDim});
  return products;
}
constexpr size_t kWeightProducts = 6;

/// Dense buffers for every product at lengths up to `longest`, made once:
/// the layer keeps one set of weights whatever the length, so the GEMMs
/// alone must too (a weight set per length would be read cold from
/// memory each time and flatter the layer).
class LayerGemms {
public:
  explicit LayerGemms(int64_t longest) {
    for (const Product &p : layerProducts(longest))
      buffers_.emplace_back(p.batch * p.m * p.k, p.batch * p.k * p.n,
                            p.batch * p.m * p.n);
  }
  void run(int64_t seq) {
    std::vector<Product> products = layerProducts(seq);
    for (size_t i = 0; i < products.size(); ++i) {
      const Product &p = products[i];
      Buffers &b = buffers_[i];
      runtime::Memref3D a = dense(b.a, p.batch, p.m, p.k),
                        w = dense(b.w, p.batch, p.k, p.n),
                        c = dense(b.c, p.batch, p.m, p.n);
      if (i < kWeightProducts)
        runtime::anyshapeBatchMatmulPackedF32(&a, &w, &c, &b.slotView, nullptr);
      else
        runtime::anyshapeBatchMatmulF32(&a, &w, &c, nullptr);
    }
  }
  ~LayerGemms() {
    for (Buffers &b : buffers_)
      runtime::anyshapeReleaseGemmPack(reinterpret_cast<int64_t>(&b.slot));
  }

private:
  struct Buffers {
    Buffers(int64_t as, int64_t ws, int64_t cs)
        : a(as, 0.5f), w(ws, 0.01f), c(cs) {}
    Buffers(const Buffers &) = delete; // the slot's view points into it
    std::vector<float> a, w, c;
    int64_t slot = 0; // a weight's pack, as generated code's slot
    runtime::SlotMemref slotView{&slot, &slot, 0, {1}, {1}};
  };
  static runtime::Memref3D dense(std::vector<float> &data, int64_t d0,
                                 int64_t d1, int64_t d2) {
    return {data.data(), data.data(), 0, {d0, d1, d2}, {d1 * d2, d2, 1}};
  }
  std::deque<Buffers> buffers_; // stable addresses: the slots
};

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

/// Runs every length of `lengths` through the layer and then through its
/// GEMMs alone, per iteration; reports both and their ratio.
void measure(benchmark::State &state, const std::vector<int64_t> &lengths) {
  std::shared_ptr<jit::Executable> layer = compiledLayer();
  std::vector<std::vector<v1::Tensor>> inputs;
  double flops = 0;
  int64_t longest = 0;
  for (int64_t seq : lengths) {
    inputs.push_back(bench::encoderInputs(seq));
    for (const Product &product : layerProducts(seq))
      flops += product.flops();
    longest = std::max(longest, seq);
  }
  LayerGemms gemms(longest);
  for (size_t i = 0; i < lengths.size(); ++i) { // first runs are not timed
    gemms.run(lengths[i]);
    if (auto warm = layer->run(inputs[i]); !warm) {
      state.SkipWithError(warm.status().toString().c_str());
      return;
    }
  }
  double layerSeconds = 0, gemmSeconds = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < lengths.size(); ++i) {
      auto start = std::chrono::steady_clock::now();
      benchmark::DoNotOptimize(layer->run(inputs[i]));
      layerSeconds += seconds(start);
      start = std::chrono::steady_clock::now();
      gemms.run(lengths[i]);
      gemmSeconds += seconds(start);
    }
  }
  double n = static_cast<double>(state.iterations());
  state.counters["layer_ms"] = layerSeconds / n * 1e3;
  state.counters["gemms_ms"] = gemmSeconds / n * 1e3;
  state.counters["roofline"] = gemmSeconds / layerSeconds;
  state.counters["layer_GFLOP/s"] = flops * n / layerSeconds * 1e-9;
  state.counters["gemm_GFLOP/s"] = flops * n / gemmSeconds * 1e-9;
}

void BM_Roofline(benchmark::State &state) { measure(state, {state.range(0)}); }

void BM_RooflineTrace(benchmark::State &state) {
  auto distribution = state.range(0) == 0 ? load::LengthDistribution::Uniform
                                          : load::LengthDistribution::Skewed;
  state.SetLabel(load::distributionName(distribution));
  measure(state, load::drawLengths(distribution, 1, 512, 60, 0));
}

} // namespace

BENCHMARK(BM_Roofline)
    ->Arg(8)
    ->Arg(64)
    ->Arg(256)
    ->Arg(512)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RooflineTrace)
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();

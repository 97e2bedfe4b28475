// A convolution with its bias and ReLU, two ways, side by side in one run
// on ResNet-50's layer shapes (batch 1): anyshape's, the convolution a
// oneDNN call from the host flow and bias + ReLU the following kLoop
// kernel (a compiled graph; `conv_only` is the same graph without them,
// so the difference is that kernel's cost); and oneDNN's post-ops, bias
// and ReLU inside the primitive, called directly with the same layouts
// and reorders as the runtime (constant weights reordered once). The
// question: does folding them into the primitive pay (docs/benchmarks.md)?
//
//   build/bin/anyshape-bench-conv
#include "compiler/Compiler.h"
#include "ir/graph/GraphText.h"
#include "ir/reference/Literal.h"

#include <benchmark/benchmark.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <string>

using namespace anyshape;

namespace {

struct Layer {
  int64_t c, h, o, k, s; // channels, side, filters, kernel, stride
};
const Layer kLayers[] = {
    {3, 224, 64, 7, 2},   // the stem
    {64, 56, 64, 3, 1},   // a 3x3 of the first stage
    {256, 56, 64, 1, 1},  // a 1x1 reduction
    {128, 28, 128, 3, 1}, // the second stage's 3x3
    {256, 14, 256, 3, 1}, // the third stage's 3x3
};

std::string graphText(const Layer &l, bool biasRelu) {
  std::string p = std::to_string(l.k / 2);
  std::string text =
      "inputs { name: \"x\" type { dtype: DTYPE_F32 dims { size: 1 } dims { "
      "size: " +
      std::to_string(l.c) +
      " } dims { symbol: \"h\" } dims { symbol: \"w\" } "
      "} }\n"
      "nodes { name: \"k\" op: \"constant\" constant { dtype: DTYPE_F32 "
      "shape: " +
      std::to_string(l.o) + " shape: " + std::to_string(l.c) +
      " shape: " + std::to_string(l.k) + " shape: " + std::to_string(l.k) +
      " seeded_uniform { seed: 1 low: -0.1 high: 0.1 } } }\n"
      "nodes { name: \"y\" op: \"convolution\" operands: \"x\" operands: "
      "\"k\" convolution { strides: " +
      std::to_string(l.s) + " strides: " + std::to_string(l.s) +
      " dilations: 1 dilations: 1 padding_low: " + p + " padding_low: " + p +
      " padding_high: " + p + " padding_high: " + p + " groups: 1 } }\n";
  if (!biasRelu)
    return text + "outputs: \"y\"\n";
  return text +
         "nodes { name: \"b\" op: \"constant\" constant { dtype: DTYPE_F32 "
         "shape: " +
         std::to_string(l.o) +
         " seeded_uniform { seed: 2 low: -0.1 high: 0.1 } } }\n"
         "nodes { name: \"bb\" op: \"broadcast_in_dim\" operands: \"b\" "
         "broadcast_in_dim { shape { size: 1 } shape { size: " +
         std::to_string(l.o) +
         " } shape { symbol: \"h\" } shape { symbol: \"w\" } "
         "broadcast_dimensions: 1 } }\n"
         "nodes { name: \"z\" op: \"constant\" constant { dtype: DTYPE_F32 "
         "splat: 0 } }\n"
         "nodes { name: \"zz\" op: \"broadcast_in_dim\" operands: \"z\" "
         "broadcast_in_dim { shape { size: 1 } shape { size: " +
         std::to_string(l.o) +
         " } shape { symbol: \"h\" } shape { symbol: \"w\" } } }\n"
         "nodes { name: \"biased\" op: \"add\" operands: \"y\" operands: "
         "\"bb\" }\n"
         "nodes { name: \"r\" op: \"max\" operands: \"biased\" operands: "
         "\"zz\" }\n"
         "outputs: \"r\"\n";
}

void anyshapeWay(benchmark::State &state, bool biasRelu) {
  const Layer &l = kLayers[state.range(0)];
  Layer same = l;
  // A stride keeps the output's symbols only at stride 1; the strided
  // stem is measured with its output sizes as the input's.
  same.s = 1;
  auto graph = parseGraphText(graphText(same, biasRelu));
  if (!graph.isOk()) {
    state.SkipWithError(graph.status().toString().c_str());
    return;
  }
  auto compiled = compiler::Compiler::compile(*graph);
  if (!compiled.isOk()) {
    state.SkipWithError(compiled.status().toString().c_str());
    return;
  }
  int64_t side = l.h / l.s;
  v1::Tensor x =
      literalToTensor(Literal::zeros(v1::DTYPE_F32, {1, l.c, side, side}));
  // The outputs left where the generated code wrote them: no copy into
  // wire tensors, which the direct calls below do not make either.
  for (auto _ : state) {
    auto out = (*compiled)->runToBuffers({&x});
    benchmark::DoNotOptimize(out);
  }
}

void postOps(benchmark::State &state) {
  const Layer &l = kLayers[state.range(0)];
  using dnnl::memory;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  int64_t side = l.h / l.s, p = l.k / 2;
  auto f32 = memory::data_type::f32;
  memory::desc src({1, l.c, side, side}, f32, memory::format_tag::any),
      weights({l.o, l.c, l.k, l.k}, f32, memory::format_tag::any),
      bias({l.o}, f32, memory::format_tag::a),
      dst({1, l.o, side, side}, f32, memory::format_tag::any);
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      src, weights, bias, dst, {1, 1}, {0, 0}, {p, p}, {p, p});
  dnnl::post_ops ops;
  ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attributes;
  attributes.set_post_ops(ops);
  dnnl::convolution_forward::primitive_desc pd(desc, attributes, engine);
  dnnl::convolution_forward conv(pd);
  memory wireSrc({{1, l.c, side, side}, f32, memory::format_tag::nchw}, engine);
  memory wireDst({{1, l.o, side, side}, f32, memory::format_tag::nchw}, engine);
  memory s(pd.src_desc(), engine), w(pd.weights_desc(), engine),
      b(bias, engine), d(pd.dst_desc(), engine);
  // Zeros in, small weights and bias (uninitialised memory may hold
  // denormals, which would time something else).
  auto fill = [](memory &m, float v) {
    auto *data = static_cast<float *>(m.get_data_handle());
    for (size_t i = 0; i < m.get_desc().get_size() / sizeof(float); ++i)
      data[i] = v;
  };
  fill(wireSrc, 0.0f);
  fill(w, 0.01f);
  fill(b, 0.01f);
  dnnl::reorder in(wireSrc, s), out(d, wireDst);
  for (auto _ : state) {
    in.execute(stream, wireSrc, s);
    conv.execute(stream, {{DNNL_ARG_SRC, s},
                          {DNNL_ARG_WEIGHTS, w},
                          {DNNL_ARG_BIAS, b},
                          {DNNL_ARG_DST, d}});
    out.execute(stream, d, wireDst);
    stream.wait();
  }
}

void BM_ConvOnly(benchmark::State &state) { anyshapeWay(state, false); }
void BM_ConvThenBiasReluKernel(benchmark::State &state) {
  anyshapeWay(state, true);
}
void BM_ConvWithPostOps(benchmark::State &state) { postOps(state); }

BENCHMARK(BM_ConvOnly)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConvThenBiasReluKernel)
    ->DenseRange(0, 4)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConvWithPostOps)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();

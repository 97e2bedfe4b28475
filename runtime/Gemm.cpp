// Batched f32 GEMM through oneDNN's matmul with runtime dims (see Gemm.h).
#include "Gemm.h"

#include "ExecutionContext.h"
#include "Threading.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace anyshape::runtime {
namespace {

using dnnl::memory;

constexpr int64_t kRuntime = DNNL_RUNTIME_DIM_VAL;

using Tag = memory::format_tag;

// One primitive for every shape: all dims runtime, each operand dense in
// plain order (abc) or with its last two dims swapped (acb, a transposed
// view: attention's K^T). Runtime strides would select oneDNN's reference
// implementation, an order of magnitude slower; these get its JIT GEMM.
struct MatmulKernel {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::matmul matmul;
  std::string implementation; // the library's name for what it chose

  MatmulKernel(Tag a, Tag b) {
    memory::dims dims{kRuntime, kRuntime, kRuntime};
    auto desc = [&](Tag tag) {
      return memory::desc(dims, memory::data_type::f32, tag);
    };
    // oneDNN 2.x (Debian 12)
    dnnl::matmul::desc matmulDesc(desc(a), desc(b), desc(Tag::abc));
    dnnl::matmul::primitive_desc chosen(matmulDesc, engine);
    implementation = chosen.impl_info_str();
    matmul = dnnl::matmul(chosen);
  }
};

/// Each layout pair's primitive, made on its first use (thread-safe
/// initialisation; execution is too).
MatmulKernel &kernel(Tag a, Tag b) {
  if (a == Tag::abc && b == Tag::abc) {
    static MatmulKernel k(Tag::abc, Tag::abc);
    return k;
  }
  if (a == Tag::acb && b == Tag::abc) {
    static MatmulKernel k(Tag::acb, Tag::abc);
    return k;
  }
  if (a == Tag::abc) {
    static MatmulKernel k(Tag::abc, Tag::acb);
    return k;
  }
  static MatmulKernel k(Tag::acb, Tag::acb);
  return k;
}

bool isDense(const Memref3D &m) {
  int64_t expected = 1;
  for (int d = 2; d >= 0; --d) {
    if (m.sizes[d] != 1 && m.strides[d] != expected)
      return false;
    expected *= m.sizes[d];
  }
  return true;
}

int64_t count(const Memref3D &m) {
  return m.sizes[0] * m.sizes[1] * m.sizes[2];
}

/// Visits every element's offset (relative to aligned + offset).
template <typename Fn> void forEach(const Memref3D &m, Fn &&fn) {
  int64_t k = 0;
  for (int64_t i = 0; i < m.sizes[0]; ++i)
    for (int64_t j = 0; j < m.sizes[1]; ++j)
      for (int64_t l = 0; l < m.sizes[2]; ++l)
        fn(k++, i * m.strides[0] + j * m.strides[1] + l * m.strides[2]);
}

/// `m` with its last two dims swapped.
Memref3D swapped(Memref3D m) {
  std::swap(m.sizes[1], m.sizes[2]);
  std::swap(m.strides[1], m.strides[2]);
  return m;
}

/// An operand as oneDNN reads it: its own buffer if dense (abc) or dense
/// transposed (acb), else a dense packed copy in `scratch`.
struct Operand {
  float *data;
  Tag tag;
};
Operand operandOf(const Memref3D &m, std::vector<float> &scratch) {
  float *base = m.aligned + m.offset;
  if (isDense(m))
    return {base, Tag::abc};
  if (isDense(swapped(m)))
    return {base, Tag::acb};
  scratch.resize(count(m));
  forEach(m, [&](int64_t k, int64_t at) { scratch[k] = base[at]; });
  return {scratch.data(), Tag::abc};
}

memory::desc descOf(const Memref3D &m, Tag tag) {
  return memory::desc({m.sizes[0], m.sizes[1], m.sizes[2]},
                      memory::data_type::f32, tag);
}

} // namespace

const char *gemmImplementation(bool aTransposed, bool bTransposed) {
  try {
    return kernel(aTransposed ? Tag::acb : Tag::abc,
                  bTransposed ? Tag::acb : Tag::abc)
        .implementation.c_str();
  } catch (const std::exception &) { // no primitive for this layout
    return "none";
  }
}

extern "C" void anyshapeBatchMatmulF32(Memref3D *a, Memref3D *b, Memref3D *c,
                                       AnyshapeExecutionContext *context) {
  std::optional<ScopedThreads> team;
  if (context && context->teamSize != anyshapeTeamSize())
    team.emplace(static_cast<int>(context->teamSize));
  int64_t batch = c->sizes[0], m = c->sizes[1], n = c->sizes[2];
  int64_t k = a->sizes[2];
  if (batch == 0 || m == 0 || n == 0)
    return;
  if (k == 0) { // an empty sum: zeros
    for (int64_t i = 0; i < batch; ++i)
      for (int64_t r = 0; r < m; ++r)
        for (int64_t col = 0; col < n; ++col)
          c->aligned[c->offset + i * c->strides[0] + r * c->strides[1] +
                     col * c->strides[2]] = 0.0f;
    return;
  }
  // oneDNN reports failures by throwing; an exception must not unwind
  // through generated code (it has no unwind tables: the process would
  // abort), so it becomes the run's error.
  try {
    std::vector<float> aScratch, bScratch, cScratch;
    Operand aOperand = operandOf(*a, aScratch);
    Operand bOperand = operandOf(*b, bScratch);
    MatmulKernel &kk = kernel(aOperand.tag, bOperand.tag);
    float *cBase = c->aligned + c->offset;
    bool cDense = isDense(*c);
    if (!cDense)
      cScratch.resize(count(*c));
    float *cData = cDense ? cBase : cScratch.data();
    dnnl::stream stream(kk.engine);
    memory src(descOf(*a, aOperand.tag), kk.engine, aOperand.data);
    memory weights(descOf(*b, bOperand.tag), kk.engine, bOperand.data);
    memory dst(descOf(*c, Tag::abc), kk.engine, cData);
    kk.matmul.execute(stream, {{DNNL_ARG_SRC, src},
                               {DNNL_ARG_WEIGHTS, weights},
                               {DNNL_ARG_DST, dst}});
    stream.wait();
    if (!cDense)
      forEach(*c, [&](int64_t k, int64_t at) { cBase[at] = cScratch[k]; });
  } catch (const std::exception &error) { // dnnl::error, std::bad_alloc
    std::string message = std::string("oneDNN matmul failed: ") + error.what();
    anyshapeRuntimeError(context, message.c_str());
  }
}

} // namespace anyshape::runtime

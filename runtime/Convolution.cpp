// f32 convolution through oneDNN's forward convolution (see Convolution.h).
#include "Convolution.h"

#include "NonZero.h" // StridedBytes
#include "Threading.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <atomic>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace anyshape::runtime {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

/// Everything a primitive is specialised to: the concrete sizes and the
/// attributes, compared as one array (map key).
struct Geometry {
  // rank, groups, N, C, O, then per spatial dim (3 each): input size,
  // kernel size, stride, dilation, low and high padding; last the team
  // size (oneDNN sizes a primitive's per-thread scratch for the threads
  // it is made with: run on more, it writes past it).
  std::array<int64_t, 5 + 6 * 3 + 1> values{};
  int64_t rank() const { return values[0]; }
  int64_t groups() const { return values[1]; }
  int64_t at(int field, int64_t i) const { return values[5 + field * 3 + i]; }
  bool operator<(const Geometry &o) const { return values < o.values; }
};
enum Field { kInput, kKernel, kStride, kDilation, kLow, kHigh };

/// The row-major tag of `rank` dims.
Tag plainTag(int64_t rank) {
  switch (rank) {
  case 3:
    return Tag::abc;
  case 4:
    return Tag::abcd;
  case 5:
    return Tag::abcde;
  default:
    return Tag::abcdef;
  }
}

/// At most this many multiply-adds, a convolution runs on the wire
/// layouts: a few us of work, what each reorder call costs. Above it
/// oneDNN's blocked kernels win even with the reorders (at 2^22, the
/// zoo's ResNet at 224 pixels, whose 56x56 layers are 1.8 M, ran 10-20%
/// slower; at 256 output pixels, a 256-channel 14x14 layer 1.6x slower).
constexpr int64_t kWireLayoutWork = int64_t{1} << 19;
/// The most each thread keeps of each staging buffer between calls.
constexpr size_t kKeptStagingBytes = size_t{64} << 20;

/// A primitive for one geometry, its operands in the wire layouts (plain
/// row-major), so the buffers are passed as they are. Its scratch memory
/// is the caller's (scratchpad_mode::user): oneDNN's own is a thread-local
/// of the thread that made the primitive, null on every other thread,
/// and the server runs a cached primitive on whichever thread serves.
struct Primitive {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  memory::desc src, weights, dst, scratchpad;
  dnnl::convolution_forward convolution;
  /// The layouts the convolution chose (format any) where they are not
  /// the wire's, each with its reorder from (src, weights) or to (dst)
  /// the wire layout; empty where the wire layout is the chosen one.
  struct Staged {
    memory::desc chosen;
    std::optional<dnnl::reorder> reorder;
    memory::desc scratchpad;
  };
  Staged stagedSrc, stagedWeights, stagedDst;

  Staged stage(const memory::desc &wire, const memory::desc &chosen,
               bool toWire) {
    Staged staged{chosen, std::nullopt, {}};
    if (chosen == wire)
      return staged;
    dnnl::primitive_attr attributes;
    attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::reorder::primitive_desc made =
        toWire ? dnnl::reorder::primitive_desc(engine, chosen, engine, wire,
                                               attributes)
               : dnnl::reorder::primitive_desc(engine, wire, engine, chosen,
                                               attributes);
    staged.scratchpad = made.scratchpad_desc();
    staged.reorder = dnnl::reorder(made);
    return staged;
  }

  explicit Primitive(const Geometry &g) {
    int64_t r = g.rank(), groups = g.groups();
    memory::dims srcDims{g.values[2], g.values[3]},
        dstDims{g.values[2], g.values[4]}, weightDims, strides, dilates, low,
        high;
    if (groups > 1)
      weightDims = {groups, g.values[4] / groups, g.values[3] / groups};
    else
      weightDims = {g.values[4], g.values[3]};
    for (int64_t i = 0; i < r; ++i) {
      int64_t extent = (g.at(kKernel, i) - 1) * g.at(kDilation, i) + 1;
      srcDims.push_back(g.at(kInput, i));
      dstDims.push_back(
          (g.at(kInput, i) + g.at(kLow, i) + g.at(kHigh, i) - extent) /
              g.at(kStride, i) +
          1);
      weightDims.push_back(g.at(kKernel, i));
      strides.push_back(g.at(kStride, i));
      dilates.push_back(g.at(kDilation, i) - 1); // oneDNN counts the gaps
      low.push_back(g.at(kLow, i));
      high.push_back(g.at(kHigh, i));
    }
    auto f32 = memory::data_type::f32;
    src = memory::desc(srcDims, f32, plainTag(r + 2));
    dst = memory::desc(dstDims, f32, plainTag(r + 2));
    weights = memory::desc(weightDims, f32,
                           plainTag(static_cast<int64_t>(weightDims.size())));
    // Layouts left to oneDNN: its direct JIT convolutions want blocked
    // channels, and a reorder each way costs less than its GEMM-based
    // convolution on plain ones, except on small convolutions, where the
    // reorders' calls are most of the time. (Sizes are bounded by the
    // element limit: the product cannot overflow.)
    double work = 1.0;
    for (int64_t d : dstDims)
      work *= static_cast<double>(d);
    for (size_t i = 1; i < weightDims.size(); ++i) // one filter's taps
      work *= static_cast<double>(weightDims[i]);
    bool wire = work <= static_cast<double>(kWireLayoutWork);
    auto layoutOf = [&](const memory::desc &d) {
      return wire ? d : memory::desc(d.dims(), f32, Tag::any);
    };
    // oneDNN 2.x (Debian 12)
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
        layoutOf(src), layoutOf(weights), layoutOf(dst), strides, dilates, low,
        high);
    dnnl::primitive_attr attributes;
    attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::convolution_forward::primitive_desc made(desc, attributes, engine);
    scratchpad = made.scratchpad_desc();
    convolution = dnnl::convolution_forward(made);
    stagedSrc = stage(src, made.src_desc(), false);
    stagedWeights = stage(weights, made.weights_desc(), false);
    stagedDst = stage(dst, made.dst_desc(), true);
  }
};

/// The bounded cache: the most recently used geometry first.
class PrimitiveCache {
public:
  std::shared_ptr<Primitive> get(const Geometry &g) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto found = index_.find(g); found != index_.end()) {
        order_.splice(order_.begin(), order_, found->second);
        ++counts_.reused;
        return found->second->second;
      }
    }
    // Made outside the lock (it generates code): two threads meeting a new
    // geometry at once may both make it; the second one is kept.
    auto made = std::make_shared<Primitive>(g);
    std::lock_guard<std::mutex> lock(mutex_);
    ++counts_.created;
    if (auto found = index_.find(g); found != index_.end()) {
      order_.erase(found->second);
      index_.erase(found);
    }
    order_.emplace_front(g, made);
    index_[g] = order_.begin();
    if (static_cast<int64_t>(order_.size()) > kConvolutionCacheEntries) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return made;
  }

  ConvolutionCacheCounts counts() {
    std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
  }

private:
  using Entry = std::pair<Geometry, std::shared_ptr<Primitive>>;
  std::mutex mutex_;
  std::list<Entry> order_;
  std::map<Geometry, std::list<Entry>::iterator> index_;
  ConvolutionCacheCounts counts_;
};

PrimitiveCache &cache() {
  static PrimitiveCache instance;
  return instance;
}

/// Constant weights in the layouts primitives chose for them, each
/// reordered once: what a convolution's slot holds.
struct ReorderedWeights {
  std::mutex mutex;
  std::vector<std::pair<memory::desc, std::shared_ptr<std::vector<char>>>>
      layouts;
};

std::atomic<int64_t> weightReorders{0};

/// The slot's weights, made and installed on first use.
ReorderedWeights &weightsIn(int64_t slotAddress) {
  auto *slot = reinterpret_cast<int64_t *>(slotAddress);
  int64_t held = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (held != 0)
    return *reinterpret_cast<ReorderedWeights *>(held);
  auto *made = new ReorderedWeights;
  int64_t expected = 0;
  if (__atomic_compare_exchange_n(slot, &expected,
                                  reinterpret_cast<int64_t>(made), false,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return *made;
  delete made; // another thread installed one first
  return *reinterpret_cast<ReorderedWeights *>(expected);
}

StridedBytes viewOf(const UnrankedMemref &memref) {
  auto *words = static_cast<const int64_t *>(memref.descriptor);
  return StridedBytes::of(memref, reinterpret_cast<const void *>(words[1]),
                          sizeof(float));
}

bool isDense(const StridedBytes &v) {
  int64_t expected = 1;
  for (int64_t d = v.rank - 1; d >= 0; --d) {
    if (v.sizes[d] != 1 && v.strides[d] != expected)
      return false;
    expected *= v.sizes[d];
  }
  return true;
}

/// Calls fn(k, at) for element k (row-major) at element offset `at`.
template <typename Fn> void forEach(const StridedBytes &v, Fn &&fn) {
  int64_t count = v.elementCount();
  std::vector<int64_t> index(v.rank, 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t at = 0;
    for (int64_t d = 0; d < v.rank; ++d)
      at += index[d] * v.strides[d];
    fn(k, at);
    for (int64_t d = v.rank - 1; d >= 0; --d) {
      if (++index[d] < v.sizes[d])
        break;
      index[d] = 0;
    }
  }
}

/// `v`'s elements, dense: its own memory, or a packed copy in `scratch`.
const float *denseData(const StridedBytes &v, std::vector<float> &scratch) {
  auto *first = reinterpret_cast<const float *>(v.first);
  if (isDense(v))
    return first;
  scratch.resize(v.elementCount());
  forEach(v, [&](int64_t k, int64_t at) { scratch[k] = first[at]; });
  return scratch.data();
}

} // namespace

ConvolutionCacheCounts convolutionCacheCounts() { return cache().counts(); }

int64_t convolutionWeightReorders() { return weightReorders.load(); }

extern "C" void anyshapeReleaseConvolutionWeights(int64_t slotAddress) {
  auto *slot = reinterpret_cast<int64_t *>(slotAddress);
  int64_t held = __atomic_exchange_n(slot, 0, __ATOMIC_ACQ_REL);
  delete reinterpret_cast<ReorderedWeights *>(held);
}

extern "C" void anyshapeConvolutionF32(
    UnrankedMemref *input, UnrankedMemref *weights, UnrankedMemref *result,
    int64_t rank, int64_t groups, int64_t stride0, int64_t stride1,
    int64_t stride2, int64_t dilation0, int64_t dilation1, int64_t dilation2,
    int64_t low0, int64_t low1, int64_t low2, int64_t high0, int64_t high1,
    int64_t high2, int64_t weightsSlot, AnyshapeExecutionContext *context) {
  StridedBytes x = viewOf(*input), w = viewOf(*weights), y = viewOf(*result);
  auto *out = reinterpret_cast<float *>(const_cast<unsigned char *>(y.first));
  if (y.elementCount() == 0)
    return;
  if (x.elementCount() == 0 || w.elementCount() == 0) { // empty sums
    forEach(y, [&](int64_t, int64_t at) { out[at] = 0.0f; });
    return;
  }
  Geometry g;
  g.values[0] = rank;
  g.values[1] = groups;
  g.values[2] = x.sizes[0];
  g.values[3] = x.sizes[1];
  g.values[4] = w.sizes[0];
  const int64_t perDim[6][3] = {{0, 0, 0},
                                {0, 0, 0},
                                {stride0, stride1, stride2},
                                {dilation0, dilation1, dilation2},
                                {low0, low1, low2},
                                {high0, high1, high2}};
  for (int64_t i = 0; i < rank; ++i) {
    g.values[5 + kInput * 3 + i] = x.sizes[2 + i];
    g.values[5 + kKernel * 3 + i] = w.sizes[2 + i];
    for (int field = kStride; field <= kHigh; ++field)
      g.values[5 + field * 3 + i] = perDim[field][i];
  }
  std::optional<ScopedThreads> team;
  if (context && context->teamSize != anyshapeTeamSize())
    team.emplace(static_cast<int>(context->teamSize));
  g.values.back() = anyshapeTeamSize();
  // oneDNN reports failures by throwing; an exception must not unwind
  // through generated code (it has no unwind tables), so it becomes the
  // run's error.
  try {
    std::shared_ptr<Primitive> p = cache().get(g);
    std::vector<float> xScratch, wScratch, yScratch;
    const float *xData = denseData(x, xScratch);
    const float *wData = denseData(w, wScratch);
    bool yDense = isDense(y);
    if (!yDense)
      yScratch.resize(y.elementCount());
    float *yData = yDense ? out : yScratch.data();
    dnnl::stream stream(p->engine);
    // Each thread keeps the largest buffers it has needed: oneDNN's
    // scratch, and each operand in the layout the convolution chose.
    // Kept per thread up to kKeptStagingBytes each; larger ones are this
    // call's, so a server thread does not hold its largest image forever.
    thread_local std::vector<unsigned char> keptBuffers[4];
    std::vector<unsigned char> callBuffers[4];
    auto buffer = [&](int slot, size_t bytes) {
      std::vector<unsigned char> &b =
          bytes <= kKeptStagingBytes ? keptBuffers[slot] : callBuffers[slot];
      if (b.size() < bytes)
        b.resize(bytes);
      return static_cast<void *>(b.data());
    };
    auto scratchOf = [&](const memory::desc &d) {
      return memory(d, p->engine, buffer(3, d.get_size()));
    };
    memory wireSrc(p->src, p->engine, const_cast<float *>(xData));
    memory wireWeights(p->weights, p->engine, const_cast<float *>(wData));
    memory wireDst(p->dst, p->engine, yData);
    auto chosen = [&](const Primitive::Staged &staged, memory &wire, int slot,
                      bool in) {
      if (!staged.reorder)
        return wire;
      memory inLayout(staged.chosen, p->engine,
                      buffer(slot, staged.chosen.get_size()));
      if (in)
        staged.reorder->execute(
            stream, {{DNNL_ARG_FROM, wire},
                     {DNNL_ARG_TO, inLayout},
                     {DNNL_ARG_SCRATCHPAD, scratchOf(staged.scratchpad)}});
      return inLayout;
    };
    memory src = chosen(p->stagedSrc, wireSrc, 0, true);
    // Constant weights: reordered into this layout once, then kept.
    std::shared_ptr<std::vector<char>> kept;
    if (weightsSlot != 0 && p->stagedWeights.reorder) {
      ReorderedWeights &weights = weightsIn(weightsSlot);
      std::lock_guard<std::mutex> lock(weights.mutex);
      for (auto &[layout, bytes] : weights.layouts)
        if (layout == p->stagedWeights.chosen)
          kept = bytes;
      if (!kept) {
        kept = std::make_shared<std::vector<char>>(
            p->stagedWeights.chosen.get_size());
        memory into(p->stagedWeights.chosen, p->engine, kept->data());
        p->stagedWeights.reorder->execute(
            stream,
            {{DNNL_ARG_FROM, wireWeights},
             {DNNL_ARG_TO, into},
             {DNNL_ARG_SCRATCHPAD, scratchOf(p->stagedWeights.scratchpad)}});
        stream.wait();
        weights.layouts.emplace_back(p->stagedWeights.chosen, kept);
        ++weightReorders;
      }
    }
    memory kernel =
        kept ? memory(p->stagedWeights.chosen, p->engine, kept->data())
             : chosen(p->stagedWeights, wireWeights, 1, true);
    memory dst = chosen(p->stagedDst, wireDst, 2, false);
    p->convolution.execute(stream,
                           {{DNNL_ARG_SRC, src},
                            {DNNL_ARG_WEIGHTS, kernel},
                            {DNNL_ARG_DST, dst},
                            {DNNL_ARG_SCRATCHPAD, scratchOf(p->scratchpad)}});
    if (p->stagedDst.reorder)
      p->stagedDst.reorder->execute(
          stream, {{DNNL_ARG_FROM, dst},
                   {DNNL_ARG_TO, wireDst},
                   {DNNL_ARG_SCRATCHPAD, scratchOf(p->stagedDst.scratchpad)}});
    stream.wait();
    if (!yDense)
      forEach(y, [&](int64_t k, int64_t at) { out[at] = yScratch[k]; });
  } catch (const std::exception &error) { // dnnl::error, std::bad_alloc
    std::string message =
        std::string("oneDNN convolution failed: ") + error.what();
    anyshapeRuntimeError(context, message.c_str());
  }
}

} // namespace anyshape::runtime

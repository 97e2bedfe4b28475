// anyshape-example-encoder-client: the service's main job from a user's
// side, and what scripts/demo runs. It builds one BERT-base encoder layer
// with the graph builder (batch and seq symbolic), uploads its weights once,
// compiles it once, then runs it at many sequence lengths from that one
// compile, printing each run's latency and output shape, and finally the
// server's compile count and cache hits.
//
//   anyshape-example-encoder-client --server HOST:PORT
//       [--lengths 1,2,3,...] [--batch N] [--seed N]
//
// The builder's weights are SeededUniform (a few bytes each); a real model
// brings them as bytes from a checkpoint, so the example materialises them
// into inline bytes first and lets offloadConstants upload them: every
// request afterwards carries only activations.
#include "anyshape/client/Client.h"
#include "anyshape/client/GraphBuilder.h"
#include "examples/ExampleGraphs.h"
#include "ir/graph/ConstantData.h"
#include "ir/graph/DType.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace anyshape;

namespace {

const char *kUsage =
    R"(usage: anyshape-example-encoder-client --server HOST:PORT [options]

Builds a BERT-base encoder layer, uploads its weights once, compiles it once
on the server and runs it at every length of --lengths.

  --server ADDR     the anyshape server (required)
  --lengths N,N,..  sequence lengths (default: 22 lengths from 1 to 512)
  --batch N         batch size (default 1)
  --seed N          seed of the random activations (default 0)
)";

constexpr const char *kDefaultLengths =
    "1,2,3,5,8,13,16,21,32,34,55,64,89,100,128,144,200,233,256,377,500,512";
constexpr int64_t kHidden = 768;

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

bool parseUnsigned(const std::string &text, uint64_t &out) {
  char *end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 10);
  return !text.empty() && text[0] != '-' && *end == '\0' && errno != ERANGE;
}

/// "1,2,3" -> {1, 2, 3}; every size at least 1.
bool parseSizes(const std::string &text, std::vector<int64_t> &out) {
  out.clear();
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma - start);
    char *end = nullptr;
    long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 1)
      return false;
    out.push_back(v);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return !out.empty();
}

/// The graph with every seeded constant of at least `minBytes` bytes
/// replaced by its values as inline bytes, as a checkpoint would give them.
StatusOr<v1::Graph> withInlineWeights(v1::Graph graph, int64_t minBytes) {
  for (v1::Node &node : *graph.mutable_nodes()) {
    if (!node.has_constant() || !node.constant().has_seeded_uniform())
      continue;
    int64_t bytes = dtypeByteSize(node.constant().dtype());
    for (int64_t d : node.constant().shape())
      bytes *= d;
    if (bytes < minBytes)
      continue;
    ANYSHAPE_ASSIGN_OR_RETURN(v1::Tensor value,
                              materializeConstant(node.constant(), nullptr));
    node.mutable_constant()->set_data(std::move(*value.mutable_data()));
  }
  return graph;
}

v1::Tensor randomTensor(std::vector<int64_t> shape, std::mt19937_64 &rng) {
  v1::Tensor tensor;
  tensor.set_dtype(v1::DTYPE_F32);
  int64_t n = 1;
  for (int64_t d : shape) {
    tensor.add_shape(d);
    n *= d;
  }
  std::vector<float> values(n);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float &v : values)
    v = uniform(rng);
  tensor.set_data(values.data(), values.size() * sizeof(float));
  return tensor;
}

v1::Tensor onesMask(int64_t batch, int64_t seq) {
  v1::Tensor tensor;
  tensor.set_dtype(v1::DTYPE_F32);
  tensor.add_shape(batch);
  tensor.add_shape(seq);
  std::vector<float> ones(batch * seq, 1.0f);
  tensor.set_data(ones.data(), ones.size() * sizeof(float));
  return tensor;
}

std::string typeString(const v1::Tensor &tensor) {
  std::string out = dtypeName(tensor.dtype()) + "[";
  for (int k = 0; k < tensor.shape_size(); ++k)
    out += (k ? ", " : "") + std::to_string(tensor.shape(k));
  return out + "]";
}

int fail(const char *what, const Status &status) {
  std::fprintf(stderr, "error: %s: %s\n", what, status.toString().c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  std::string server, lengthsText = kDefaultLengths;
  int64_t batch = 1;
  uint64_t seed = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "unknown or incomplete option '%s'\n%s", arg.c_str(),
                   kUsage);
      return 2;
    }
    std::string value = argv[++i];
    std::vector<int64_t> one;
    bool ok = true;
    if (arg == "--server")
      server = value;
    else if (arg == "--lengths")
      lengthsText = value;
    else if (arg == "--batch")
      ok = parseSizes(value, one) && one.size() == 1 && (batch = one[0]);
    else if (arg == "--seed")
      ok = parseUnsigned(value, seed);
    else
      ok = false;
    if (!ok) {
      std::fprintf(stderr, "bad option '%s %s'\n%s", arg.c_str(), value.c_str(),
                   kUsage);
      return 2;
    }
  }
  std::vector<int64_t> lengths;
  if (server.empty() || !parseSizes(lengthsText, lengths)) {
    std::fprintf(stderr, "%s%s",
                 server.empty() ? "--server is required\n" : "bad --lengths\n",
                 kUsage);
    return 2;
  }

  client::GraphBuilder builder("bert_encoder_layer");
  examples::bertEncoderLayer(builder);
  auto built = builder.build();
  if (!built)
    return fail("building the encoder layer", built.status());
  auto graph = withInlineWeights(std::move(*built), 4096);
  if (!graph)
    return fail("materialising weights", graph.status());

  auto connected = client::Client::connect(server);
  if (!connected)
    return fail("connecting", connected.status());
  client::Client &anyshape = **connected;

  auto start = std::chrono::steady_clock::now();
  auto offloaded = anyshape.offloadConstants(*graph);
  if (!offloaded)
    return fail("uploading weights", offloaded.status());
  int weights = 0;
  int64_t weightBytes = 0;
  for (int k = 0; k < graph->nodes_size(); ++k)
    if (offloaded->nodes(k).has_constant() &&
        offloaded->nodes(k).constant().has_tensor_id()) {
      ++weights;
      weightBytes += graph->nodes(k).constant().data().size();
    }
  std::printf("uploaded %d weight tensors (%.1f MiB) once in %.0f ms\n",
              weights, weightBytes / 1048576.0, millisecondsSince(start));

  start = std::chrono::steady_clock::now();
  auto compiled = anyshape.compile(*offloaded);
  if (!compiled)
    return fail("compiling", compiled.status());
  std::printf("compiled once in %.0f ms (%s): executable %s, %lld kernels\n",
              millisecondsSince(start),
              compiled->cacheHit ? "served from the server's cache"
                                 : "a new compile",
              compiled->id.c_str(),
              static_cast<long long>(compiled->info.kernel_count()));

  std::mt19937_64 rng(seed);
  std::printf("%8s %6s %12s  %s\n", "batch", "seq", "latency_ms", "output");
  for (int64_t seq : lengths) {
    std::vector<v1::Tensor> inputs = {randomTensor({batch, seq, kHidden}, rng),
                                      onesMask(batch, seq)};
    start = std::chrono::steady_clock::now();
    auto outputs = anyshape.run(*compiled, inputs);
    double ms = millisecondsSince(start);
    if (!outputs)
      return fail(("seq " + std::to_string(seq)).c_str(), outputs.status());
    std::printf("%8lld %6lld %12.2f  y: %s\n", static_cast<long long>(batch),
                static_cast<long long>(seq), ms,
                typeString(outputs->front()).c_str());
  }

  auto stats = anyshape.stats();
  if (!stats)
    return fail("reading server stats", stats.status());
  std::printf("server: %lld compiles, %lld cache hits, %lld cache misses, "
              "%lld executions (%zu lengths from one executable)\n",
              static_cast<long long>(stats->compiles()),
              static_cast<long long>(stats->cache_hits()),
              static_cast<long long>(stats->cache_misses()),
              static_cast<long long>(stats->executions()), lengths.size());
  return 0;
}

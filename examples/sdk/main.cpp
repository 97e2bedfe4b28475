// sdk-example ADDRESS: builds y = tanh(x @ w + b) for x f32[batch, 8] with
// the installed SDK's GraphBuilder, compiles it once on the anyshape
// server at ADDRESS, runs it at three batch sizes and checks every output
// against the same arithmetic done here. Exits 0 and prints "ok" when all
// match and the server compiled once.
#include "anyshape/client/Client.h"
#include "anyshape/client/GraphBuilder.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace anyshape;

namespace {

std::string bytesOf(const std::vector<float> &values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(float));
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: sdk-example HOST:PORT\n");
    return 2;
  }
  std::vector<float> w(8 * 4), b(4);
  for (size_t k = 0; k < w.size(); ++k)
    w[k] = 0.05f * float(int(k % 7) - 3);
  for (size_t k = 0; k < b.size(); ++k)
    b[k] = 0.1f * float(k);

  client::GraphBuilder builder("sdk_example");
  client::Value x = builder.parameter("x", v1::DTYPE_F32, {"batch", 8});
  client::Value weights = builder.constant(v1::DTYPE_F32, {8, 4}, bytesOf(w));
  client::Value bias = builder.constant(v1::DTYPE_F32, {4}, bytesOf(b));
  builder.output(builder.tanh(builder.linear(x, weights, bias)), "y");
  StatusOr<v1::Graph> graph = builder.build();
  if (!graph.isOk()) {
    std::fprintf(stderr, "build: %s\n", graph.status().toString().c_str());
    return 1;
  }

  auto connected = client::Client::connect(argv[1]);
  if (!connected.isOk()) {
    std::fprintf(stderr, "connect: %s\n",
                 connected.status().toString().c_str());
    return 1;
  }
  client::Client &server = **connected;
  auto compiled = server.compile(*graph);
  if (!compiled.isOk()) {
    std::fprintf(stderr, "compile: %s\n", compiled.status().toString().c_str());
    return 1;
  }
  auto before = server.stats();
  for (int64_t batch : {1, 3, 17}) {
    std::vector<float> input(size_t(batch) * 8);
    for (size_t k = 0; k < input.size(); ++k)
      input[k] = std::sin(float(k));
    v1::Tensor tensor;
    tensor.set_dtype(v1::DTYPE_F32);
    tensor.add_shape(batch);
    tensor.add_shape(8);
    tensor.set_data(bytesOf(input));
    auto outputs = server.run(*compiled, {tensor});
    if (!outputs.isOk()) {
      std::fprintf(stderr, "run: %s\n", outputs.status().toString().c_str());
      return 1;
    }
    const std::string &data = outputs->at(0).data();
    if (data.size() != size_t(batch) * 4 * sizeof(float)) {
      std::fprintf(stderr, "batch %lld: %zu output bytes\n", (long long)batch,
                   data.size());
      return 1;
    }
    std::vector<float> y(size_t(batch) * 4);
    std::memcpy(y.data(), data.data(), data.size());
    for (int64_t r = 0; r < batch; ++r)
      for (int64_t j = 0; j < 4; ++j) {
        double expected = b[j];
        for (int64_t k = 0; k < 8; ++k)
          expected += double(input[r * 8 + k]) * w[k * 4 + j];
        expected = std::tanh(expected);
        if (std::fabs(y[r * 4 + j] - expected) > 1e-5) {
          std::fprintf(stderr, "batch %lld y[%lld][%lld] = %g, not %g\n",
                       (long long)batch, (long long)r, (long long)j,
                       y[r * 4 + j], expected);
          return 1;
        }
      }
  }
  auto after = server.stats();
  if (!before.isOk() || !after.isOk() ||
      after->compiles() != before->compiles()) {
    std::fprintf(stderr, "the runs compiled again\n");
    return 1;
  }
  std::printf("sdk example: 3 batch sizes, one compile (%s), ok\n",
              compiled->cacheHit ? "a cache hit" : "compiled now");
  return 0;
}

// See Soak.h.
#include "Soak.h"

#include "Metrics.h"

#include "anyshape/client/Client.h"
#include "anyshape/client/GraphBuilder.h"
#include "examples/ExampleGraphs.h"
#include "ir/graph/Bindings.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"
#include "ir/reference/Literal.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

namespace anyshape::load {
namespace {

using Clock = std::chrono::steady_clock;

/// x: f32[batch, seq]; `length` elementwise ops drawn from `seed`, each on
/// the one before and sometimes x again: distinct graphs, distinct compiles.
v1::Graph randomChain(uint64_t seed, int length) {
  client::GraphBuilder b("soak_chain_" + std::to_string(seed));
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"batch", "seq"});
  client::Value y = x;
  std::mt19937_64 rng(seed);
  for (int k = 0; k < length; ++k) {
    switch (rng() % 6) {
    case 0:
      y = b.tanh(y);
      break;
    case 1:
      y = b.add(y, x);
      break;
    case 2:
      y = b.mul(y, x);
      break;
    case 3:
      y = b.abs(y);
      break;
    case 4:
      y = b.exp(b.neg(b.abs(y)));
      break;
    default:
      y = b.max(y, x);
      break;
    }
  }
  b.output(y, "y");
  return *b.build();
}

std::vector<v1::Graph> soakGraphs() {
  std::vector<v1::Graph> graphs;
  for (void (*build)(client::GraphBuilder &) :
       {examples::mlp, examples::elementwiseReduce}) {
    client::GraphBuilder b("example");
    build(b);
    graphs.push_back(*b.build());
  }
  for (uint64_t seed = 1; seed <= 6; ++seed)
    graphs.push_back(randomChain(seed, 2 + static_cast<int>(seed % 5)));
  return graphs;
}

/// What the clients saw, shared.
struct Tally {
  std::atomic<int64_t> requests{0}, executions{0}, checked{0},
      refusedAsExpected{0}, unexpected{0}, mismatches{0};
  std::mutex mutex;
  std::string firstProblem;

  void problem(std::atomic<int64_t> &counter, const std::string &what) {
    ++counter;
    std::lock_guard<std::mutex> lock(mutex);
    if (firstProblem.empty())
      firstProblem = what;
  }
};

/// One malformed request of kind `kind`; true if it got the code it must.
bool sendMalformed(client::Client &client, const v1::Graph &graph,
                   const client::Compiled &compiled, int kind,
                   std::string &got) {
  Status status;
  StatusCode expected = StatusCode::InvalidArgument;
  if (kind == 0) { // an operand that names nothing
    v1::Graph broken = graph;
    v1::Node *last = broken.mutable_nodes(broken.nodes_size() - 1);
    if (last->operands_size() > 0)
      last->set_operands(0, "no_such_value");
    else
      last->add_operands("no_such_value");
    status = client.compile(broken).status();
  } else if (kind == 1) { // an id that is no executable
    expected = StatusCode::NotFound;
    status = client.run(std::string(32, 'f'), {}).status();
  } else { // too few bytes for the declared shape
    std::vector<v1::Tensor> inputs;
    for (const v1::Input &input : graph.inputs()) {
      v1::Tensor t;
      t.set_dtype(input.type().dtype());
      for (int d = 0; d < input.type().dims_size(); ++d)
        t.add_shape(3);
      t.set_data("xyz");
      inputs.push_back(std::move(t));
    }
    status = client.run(compiled, inputs).status();
  }
  got = status.toString();
  return status.code() == expected;
}

void runClient(const SoakOptions &options, int64_t index,
               const std::vector<v1::Graph> &graphs, Clock::time_point end,
               Tally &tally) {
  auto connected = client::connectWithEnvironment(options.server);
  if (!connected.isOk()) {
    tally.problem(tally.unexpected,
                  "connect: " + connected.status().toString());
    return;
  }
  client::Client &client = **connected;
  std::mt19937_64 rng(options.seed * 1000 + static_cast<uint64_t>(index));
  std::uniform_real_distribution<double> share(0, 1);
  std::vector<std::optional<client::Compiled>> compiled(graphs.size());
  while (Clock::now() < end) {
    ++tally.requests;
    size_t g = rng() % graphs.size();
    const v1::Graph &graph = graphs[g];
    if (!compiled[g]) {
      auto made = client.compile(graph);
      if (!made.isOk()) {
        tally.problem(tally.unexpected, "compile " + graph.name() + ": " +
                                            made.status().toString());
        continue;
      }
      compiled[g] = std::move(*made);
    }
    if (share(rng) < options.malformed) {
      std::string got;
      if (sendMalformed(client, graph, *compiled[g],
                        static_cast<int>(rng() % 3), got))
        ++tally.refusedAsExpected;
      else
        tally.problem(tally.unexpected, "malformed request answered " + got);
      continue;
    }
    std::map<std::string, int64_t> symbols;
    for (const v1::Input &input : graph.inputs())
      for (const v1::Dim &dim : input.type().dims())
        if (dim.has_symbol())
          symbols.emplace(dim.symbol(), 1 + static_cast<int64_t>(rng() % 48));
    auto shapes = inputShapesFor(graph, symbols);
    if (!shapes.isOk()) {
      tally.problem(tally.unexpected, "shapes: " + shapes.status().toString());
      continue;
    }
    std::vector<Literal> literals;
    std::vector<v1::Tensor> inputs;
    uint64_t seed = rng();
    for (int k = 0; k < graph.inputs_size(); ++k) {
      literals.push_back(randomLiteral(graph.inputs(k).type().dtype(),
                                       (*shapes)[k], seed + k));
      inputs.push_back(literalToTensor(literals.back()));
    }
    auto outputs = client.run(*compiled[g], inputs);
    ++tally.executions;
    if (!outputs.isOk()) {
      tally.problem(tally.unexpected,
                    "run " + graph.name() + ": " + outputs.status().toString());
      continue;
    }
    if (share(rng) >= options.checked)
      continue;
    ++tally.checked;
    auto expected = evaluateGraph(graph, literals);
    for (size_t k = 0; expected.isOk() && k < outputs->size(); ++k) {
      auto actual = literalFromTensor((*outputs)[k]);
      NumericDiff diff = actual.isOk()
                             ? compareLiterals(*actual, (*expected)[k])
                             : NumericDiff{0, 0, 1, "undecodable"};
      if (!diff.ok())
        tally.problem(tally.mismatches, graph.name() + " output " +
                                            std::to_string(k) + ": " +
                                            diff.firstMismatch);
    }
  }
}

std::optional<double> serverRssMib(const std::string &metrics) {
  if (metrics.empty())
    return std::nullopt;
  auto text = fetchMetrics(metrics, std::chrono::milliseconds(2000));
  if (!text.isOk())
    return std::nullopt;
  auto bytes = findMetric(*text, "anyshape_process_resident_memory_bytes");
  if (!bytes)
    return std::nullopt;
  return *bytes / (1 << 20);
}

} // namespace

int runSoak(const SoakOptions &options) {
  std::vector<v1::Graph> graphs = soakGraphs();
  Tally tally;
  Clock::time_point start = Clock::now();
  auto duration = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options.seconds));
  Clock::time_point end = start + duration;
  std::fprintf(stderr,
               "soak: %lld clients for %.0f s, %zu graphs, %.0f%% malformed, "
               "%.0f%% of executions checked\n",
               static_cast<long long>(options.clients), options.seconds,
               graphs.size(), options.malformed * 100, options.checked * 100);
  std::vector<std::thread> clients;
  for (int64_t c = 0; c < options.clients; ++c)
    clients.emplace_back(runClient, std::cref(options), c, std::cref(graphs),
                         end, std::ref(tally));
  // The warm-up is the first quarter: compiles, caches and pools fill.
  std::this_thread::sleep_until(start + duration / 4);
  std::optional<double> warmRss = serverRssMib(options.metrics);
  for (std::thread &t : clients)
    t.join();
  std::optional<double> endRss = serverRssMib(options.metrics);
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();

  std::printf("soak: %lld requests in %.1f s (%.0f/s): %lld executions, "
              "%lld checked against the reference, %lld malformed refused "
              "as they must be\n",
              static_cast<long long>(tally.requests.load()), elapsed,
              tally.requests.load() / elapsed,
              static_cast<long long>(tally.executions.load()),
              static_cast<long long>(tally.checked.load()),
              static_cast<long long>(tally.refusedAsExpected.load()));
  std::printf("soak: %lld unexpected errors, %lld mismatches\n",
              static_cast<long long>(tally.unexpected.load()),
              static_cast<long long>(tally.mismatches.load()));
  bool ok = tally.unexpected == 0 && tally.mismatches == 0;
  if (!tally.firstProblem.empty())
    std::printf("soak: first problem: %s\n", tally.firstProblem.c_str());
  if (warmRss && endRss) {
    double growth = *endRss - *warmRss;
    std::printf("soak: server RSS %.0f MiB after the warm-up, %.0f MiB at the "
                "end (%+.0f MiB; bound %lld)\n",
                *warmRss, *endRss, growth,
                static_cast<long long>(options.maxRssGrowthMib));
    ok = ok && growth <= options.maxRssGrowthMib;
  } else if (!options.metrics.empty()) {
    std::printf("soak: could not read the server's RSS from %s\n",
                options.metrics.c_str());
    ok = false;
  }
  std::printf("soak: %s\n", ok ? "passed" : "FAILED");
  return ok ? 0 : 1;
}

} // namespace anyshape::load

// anyshape-load: a load generator for an anyshape server. It uploads a
// graph's weights once, compiles it once, then N client threads (each its
// own connection) issue a fixed number of Execute requests with random
// inputs whose length along one symbol is drawn from a distribution; it
// reports throughput, latency percentiles, errors, the server's compiles and
// cache hit rate over the run, and the server's peak resident memory.
// With --in-process it compiles the graph itself and its client threads
// run the executable directly, sharing the cores as the server does
// (runtime::CoreShare): the same trace without the service, so the
// service's overhead is the difference; --against-in-process measures
// that difference in one run, both ways block by block (Compare.h).
// Progress goes to stderr, results to stdout (text, or one JSON object).
#include "Compare.h"
#include "Metrics.h"
#include "Options.h"
#include "Soak.h"
#include "Workload.h"
#include "frontend/onnx/OnnxImport.h"

#include "Target.h"
#include "anyshape/client/Client.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/GraphText.h"
#include "ir/graph/Validate.h"
#include "ir/reference/Literal.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <sys/resource.h>

using namespace anyshape;
using load::Options;
using load::parseArgs;
using load::parseDims;
using load::usageError;

namespace {

int fail(const char *what, const Status &status) {
  std::fprintf(stderr, "anyshape-load: %s: %s\n", what,
               status.toString().c_str());
  return 1;
}

/// Random input data, made once at the largest length: a request of a
/// smaller length sends a prefix of it (any prefix is valid data).
struct InputPool {
  std::vector<v1::DType> dtypes;
  std::vector<std::string> bytes;
};

/// Samples the server's RSS from its metrics endpoint until stopped.
class RssSampler {
public:
  explicit RssSampler(std::string address) : address_(std::move(address)) {
    if (!address_.empty())
      thread_ = std::thread([this] { loop(); });
  }
  ~RssSampler() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable())
      thread_.join();
  }
  std::optional<double> peak() const { return peak_; }
  const std::string &error() const { return error_; }

private:
  void loop() {
    while (true) {
      sample();
      for (int k = 0; k < 10 && !stop_; ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (stop_) {
        sample(); // the end of the run counts too
        return;
      }
    }
  }
  void sample() {
    auto text = load::fetchMetrics(address_, std::chrono::milliseconds(1000));
    if (!text) {
      error_ = text.status().message();
      return;
    }
    auto rss =
        load::findMetric(*text, "anyshape_process_resident_memory_bytes");
    if (!rss) {
      error_ = "no anyshape_process_resident_memory_bytes at " + address_;
      return;
    }
    peak_ = std::max(peak_.value_or(0), *rss);
  }

  std::string address_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::optional<double> peak_; // written by the sampler thread only
  std::string error_;          // until stop() returns
};

struct Results {
  std::mutex mutex;
  std::vector<double> latencyMs; // guarded by mutex
  /// A server's run time of each request and the rest of its latency
  /// (queue, transport, (de)serialisation); empty in process.
  std::vector<double> serverRunMs, overheadMs; // guarded by mutex
  /// Of the server's answers: how many requests their runs joined.
  int64_t joinedSum = 0, joinedCount = 0;      // guarded by mutex
  std::map<std::string, int64_t> errorsByCode; // guarded by mutex
  std::string firstError;                      // guarded by mutex
  std::atomic<int64_t> next{0}, finished{0};
};

/// `value` printed with `format` (one double), or null.
std::string jsonNumberOrNull(std::optional<double> value, const char *format) {
  if (!value)
    return "null";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, *value);
  return buffer;
}

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

using load::CacheCounts;
using load::Target;

int connectAndCompile(const Options &options, const v1::Graph &graph,
                      Target &target) {
  auto control = client::connectWithEnvironment(options.server);
  if (!control)
    return fail("connecting", control.status());
  target.control = std::move(*control);
  target.counts = [&target]() -> StatusOr<CacheCounts> {
    auto stats = target.control->stats();
    if (!stats)
      return stats.status();
    return CacheCounts{stats->compiles(), stats->cache_hits(),
                       stats->cache_misses()};
  };
  auto before = target.counts();
  if (!before)
    return fail("reading stats", before.status());
  target.before = *before;
  // Uploaded tensors stay on the server that took them: with several
  // servers the weights travel inline, in the compile.
  StatusOr<v1::Graph> offloaded = graph;
  if (client::namesSeveralServers(options.server)) {
    std::fprintf(stderr,
                 "several servers: %s's weights go inline with the "
                 "compile; stats are one server's\n",
                 graph.name().c_str());
  } else {
    std::fprintf(stderr, "uploading weights of %s...\n", graph.name().c_str());
    offloaded = target.control->offloadConstants(graph);
    if (!offloaded)
      return fail("uploading weights", offloaded.status());
  }
  std::fprintf(stderr, "compiling...\n");
  auto compiled = target.control->compile(*offloaded);
  if (!compiled)
    return fail("compiling", compiled.status());
  std::fprintf(stderr, "compiled %s (%s, %.0f ms)\n", compiled->id.c_str(),
               compiled->cacheHit ? "cache hit" : "compiled",
               compiled->compileMs);
  target.compileMs = compiled->compileMs;
  target.compiled = std::move(*compiled);
  for (int64_t c = 0; c < options.clients; ++c) {
    auto connected = client::connectWithEnvironment(options.server);
    if (!connected)
      return fail("connecting a client", connected.status());
    target.clients.push_back(std::move(*connected));
  }
  target.execute = [&target](int64_t client, int64_t,
                             std::vector<v1::Tensor> &inputs,
                             load::ServerTiming &timing) {
    v1::ExecuteTiming reported;
    Status status = target.clients[client]
                        ->run(*target.compiled, std::move(inputs), &reported)
                        .status();
    timing.queueMs = reported.queue_us() / 1e3;
    timing.runMs = reported.run_us() / 1e3;
    timing.joined = reported.joined_requests();
    return status;
  };
  return 0;
}

StatusOr<std::string> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return notFound("cannot open " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// This process's peak resident memory, in bytes.
double ownPeakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024; // ru_maxrss: KiB
}

/// --against-in-process, once the server has the graph: compiles it here
/// too, runs the passes both ways (Compare.h) and prints them; the exit
/// status.
int compareWithInProcess(const Options &options, const v1::Graph &graph,
                         const std::map<std::string, int64_t> &otherDims,
                         const std::vector<int64_t> &lengths,
                         const load::MakeInputs &inputsFor, Target &server) {
  Target inProcess;
  if (Status compiled =
          load::compileInProcess(graph, load::CompileMode::Dynamic,
                                 options.symbol, otherDims, inProcess);
      !compiled.isOk())
    return fail("compiling in this process", compiled);
  auto on = [](Target &target) -> load::RunRequest {
    return [&target](int64_t length, std::vector<v1::Tensor> &inputs,
                     load::ServerTiming &timing) {
      return target.execute(0, length, inputs, timing);
    };
  };
  load::CompareOptions compare;
  std::fprintf(stderr, "running %zu requests both ways, in blocks of %lld...\n",
               lengths.size(), static_cast<long long>(compare.blockSize));
  std::vector<load::ComparisonSummary> passes;
  int64_t errors = 0;
  for (int64_t p = 0; p < options.passes; ++p) {
    load::Comparison pass = load::compareAgainstInProcess(
        lengths, inputsFor, on(server), on(inProcess), compare);
    if (pass.errors > 0)
      std::fprintf(stderr, "anyshape-load: pass %lld: %lld failed; first: %s\n",
                   static_cast<long long>(p + 1),
                   static_cast<long long>(pass.errors),
                   pass.firstError.c_str());
    errors += pass.errors;
    passes.push_back(load::summarise(pass));
  }
  load::printComparison(
      passes, static_cast<int64_t>(lengths.size()), errors, options.json,
      "anyshape-load: " + graph.name() + " on " + options.server +
          " against this process, block by block",
      "\"server\": " + jsonString(options.server) +
          ", \"graph\": " + jsonString(options.graph) +
          ", \"symbol\": " + jsonString(options.symbol));
  return errors == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (int status = parseArgs(argc, argv, options))
    return status < 0 ? 0 : status;
  if (options.soakSeconds > 0) {
    load::SoakOptions soak;
    soak.server = options.server;
    soak.metrics = options.metrics;
    soak.seconds = static_cast<double>(options.soakSeconds);
    soak.clients = options.clients;
    soak.seed = options.seed;
    return load::runSoak(soak);
  }
  auto graph = onnx::loadModelFile(options.graph);
  if (!graph)
    return fail("loading the graph", graph.status());
  auto info = validateGraph(*graph);
  if (!info)
    return fail("validating the graph", info.status());
  auto dims = parseDims(options.dims);
  if (!dims)
    return usageError(dims.status().message());
  if (std::find(info->symbols.begin(), info->symbols.end(), options.symbol) ==
      info->symbols.end())
    return usageError("'" + options.symbol + "' is not a symbol of " +
                      options.graph);
  for (auto it = dims->begin(); it != dims->end();) {
    bool known = std::find(info->symbols.begin(), info->symbols.end(),
                           it->first) != info->symbols.end();
    if (!known && options.dimsGiven)
      return usageError("'" + it->first + "' is not a symbol of " +
                        options.graph);
    // The default batch=1 does not apply to a graph without batch.
    it = known ? std::next(it) : dims->erase(it);
  }
  auto bindingFor = [&](int64_t length) {
    std::map<std::string, int64_t> binding = *dims;
    binding[options.symbol] = length;
    return binding;
  };
  std::vector<int64_t> lengths;
  if (!options.lengthsFile.empty()) {
    auto text = readFile(options.lengthsFile);
    if (!text)
      return fail("reading --lengths", text.status());
    auto parsed = load::parseLengths(*text, 1 << 20);
    if (!parsed)
      return fail("reading --lengths", parsed.status());
    lengths = std::move(*parsed);
    options.requests = static_cast<int64_t>(lengths.size());
    options.min = *std::min_element(lengths.begin(), lengths.end());
    options.max = *std::max_element(lengths.begin(), lengths.end());
  } else {
    lengths = load::drawLengths(options.dist, options.min, options.max,
                                options.requests, options.seed);
  }

  // Input data for the largest length, checked before the server is asked.
  auto maxShapes = inputShapesFor(*graph, bindingFor(options.max));
  if (!maxShapes)
    return fail("sizing inputs (set other symbols with --dims)",
                maxShapes.status());
  InputPool pool;
  for (int k = 0; k < graph->inputs_size(); ++k) {
    v1::DType dtype = graph->inputs(k).type().dtype();
    pool.dtypes.push_back(dtype);
    pool.bytes.push_back(
        literalToTensor(randomLiteral(dtype, (*maxShapes)[k], options.seed + k))
            .data());
  }

  Target target;
  if (options.inProcess) {
    std::map<std::string, int64_t> otherDims = *dims;
    otherDims.erase(options.symbol);
    if (Status s = load::compileInProcess(*graph, options.mode, options.symbol,
                                          otherDims, target);
        !s.isOk())
      return fail("compiling", s);
  } else if (int code = connectAndCompile(options, *graph, target)) {
    return code;
  }
  const CacheCounts *before = &target.before;

  auto inputsFor = [&](int64_t length) -> StatusOr<std::vector<v1::Tensor>> {
    ANYSHAPE_ASSIGN_OR_RETURN(auto shapes,
                              inputShapesFor(*graph, bindingFor(length)));
    std::vector<v1::Tensor> inputs(graph->inputs_size());
    for (int k = 0; k < graph->inputs_size(); ++k) {
      v1::Tensor &tensor = inputs[k];
      tensor.set_dtype(pool.dtypes[k]);
      int64_t n = 1;
      for (int64_t d : shapes[k]) {
        tensor.add_shape(d);
        n *= d;
      }
      int64_t bytes = n * dtypeByteSize(pool.dtypes[k]);
      if (bytes <= static_cast<int64_t>(pool.bytes[k].size()))
        tensor.set_data(pool.bytes[k].data(), bytes);
      else // a shape that does not grow with the symbol
        tensor = literalToTensor(
            randomLiteral(pool.dtypes[k], shapes[k], options.seed + k));
    }
    return inputs;
  };
  if (options.againstInProcess) {
    std::map<std::string, int64_t> otherDims = *dims;
    otherDims.erase(options.symbol);
    return compareWithInProcess(options, *graph, otherDims, lengths, inputsFor,
                                target);
  }

  Results results;
  RssSampler rss(options.metrics);
  auto work = [&](int64_t client) {
    for (int64_t i; (i = results.next++) < options.requests;) {
      Status error;
      double ms = 0;
      load::ServerTiming timing;
      auto inputs = inputsFor(lengths[i]);
      if (!inputs) {
        error = inputs.status();
      } else {
        auto start = std::chrono::steady_clock::now();
        error = target.execute(client, lengths[i], *inputs, timing);
        ms = std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now() - start)
                 .count();
      }
      {
        std::lock_guard<std::mutex> lock(results.mutex);
        if (error.isOk()) {
          results.latencyMs.push_back(ms);
          if (timing.runMs >= 0) {
            results.serverRunMs.push_back(timing.runMs);
            results.overheadMs.push_back(ms - timing.runMs);
          }
          if (timing.joined >= 1) {
            results.joinedSum += timing.joined;
            ++results.joinedCount;
          }
        } else {
          ++results.errorsByCode[statusCodeName(error.code())];
          if (results.firstError.empty())
            results.firstError = error.toString();
        }
      }
      int64_t done = ++results.finished;
      if (done * 10 / options.requests != (done - 1) * 10 / options.requests)
        std::fprintf(stderr, "  %lld/%lld requests\n",
                     static_cast<long long>(done),
                     static_cast<long long>(options.requests));
    }
  };
  const char *distName = options.lengthsFile.empty()
                             ? load::distributionName(options.dist)
                             : "lengths-file";
  std::fprintf(stderr,
               "running %lld requests from %lld clients, %s %s in "
               "[%lld, %lld]...\n",
               static_cast<long long>(options.requests),
               static_cast<long long>(options.clients), options.symbol.c_str(),
               distName, static_cast<long long>(options.min),
               static_cast<long long>(options.max));
  // Each pass runs the whole trace; latencies are kept per pass, sorted.
  struct Pass {
    double wallS = 0;
    std::vector<double> latencyMs;
  };
  std::vector<Pass> passes;
  for (int64_t p = 0; p < options.passes; ++p) {
    if (options.passes > 1)
      std::fprintf(stderr, "pass %lld/%lld\n", static_cast<long long>(p + 1),
                   static_cast<long long>(options.passes));
    results.next = 0;
    results.finished = 0;
    results.latencyMs.clear();
    results.serverRunMs.clear(); // the last pass's are reported
    results.joinedSum = results.joinedCount = 0;
    results.overheadMs.clear();
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (int64_t c = 0; c < options.clients; ++c)
      threads.emplace_back(work, c);
    for (std::thread &thread : threads)
      thread.join();
    Pass pass;
    pass.wallS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    pass.latencyMs = std::move(results.latencyMs);
    std::sort(pass.latencyMs.begin(), pass.latencyMs.end());
    passes.push_back(std::move(pass));
  }
  double wallS = passes.back().wallS;
  rss.stop();
  auto after = target.counts();
  if (!after)
    return fail("reading stats", after.status());
  std::optional<double> peakRss =
      options.inProcess ? std::optional<double>(ownPeakRssBytes()) : rss.peak();

  const std::vector<double> &latency = passes.back().latencyMs;
  int64_t ok = static_cast<int64_t>(latency.size());
  int64_t errors = 0; // over every pass
  for (const Pass &pass : passes)
    errors += options.requests - static_cast<int64_t>(pass.latencyMs.size());
  auto meanOf = [](const std::vector<double> &values) {
    double sum = 0;
    for (double v : values)
      sum += v;
    return values.empty() ? 0.0 : sum / static_cast<double>(values.size());
  };
  double mean = meanOf(latency);
  double throughput = wallS > 0 ? ok / wallS : 0;
  int64_t compiles = after->compiles - before->compiles;
  int64_t hits = after->hits - before->hits;
  int64_t misses = after->misses - before->misses;
  std::optional<double> hitRate;
  if (hits + misses > 0)
    hitRate = double(hits) / double(hits + misses);
  double p50 = load::percentile(latency, 50),
         p90 = load::percentile(latency, 90),
         p99 = load::percentile(latency, 99);
  double maxMs = latency.empty() ? 0 : latency.back();
  // The server's side of the last pass (nothing in process).
  std::optional<double> serverRunP50, overheadP50;
  if (!results.serverRunMs.empty()) {
    std::sort(results.serverRunMs.begin(), results.serverRunMs.end());
    std::sort(results.overheadMs.begin(), results.overheadMs.end());
    serverRunP50 = load::percentile(results.serverRunMs, 50);
    overheadP50 = load::percentile(results.overheadMs, 50);
  }
  // Requests per run as the requests saw it (a run of n counts n times).
  std::optional<double> joinedMean;
  if (results.joinedCount > 0)
    joinedMean = double(results.joinedSum) / double(results.joinedCount);
  if (!options.metrics.empty() && !rss.peak())
    std::fprintf(stderr, "anyshape-load: no RSS sample: %s\n",
                 rss.error().c_str());

  if (options.json) {
    std::string errorsJson = "{";
    for (const auto &[code, count] : results.errorsByCode)
      errorsJson += (errorsJson.size() > 1 ? ", " : "") + jsonString(code) +
                    ": " + std::to_string(count);
    errorsJson += "}";
    std::string passesJson = "[";
    for (const Pass &pass : passes) {
      char buffer[200];
      std::snprintf(buffer, sizeof buffer,
                    "%s{\"wall_s\": %.3f, \"p50\": %.3f, \"p99\": %.3f, "
                    "\"mean\": %.3f}",
                    passesJson.size() > 1 ? ", " : "", pass.wallS,
                    load::percentile(pass.latencyMs, 50),
                    load::percentile(pass.latencyMs, 99),
                    meanOf(pass.latencyMs));
      passesJson += buffer;
    }
    passesJson += "]";
    std::printf(
        "{\"server\": %s, \"graph\": %s, \"symbol\": %s, \"min\": %lld, "
        "\"max\": %lld, \"dist\": \"%s\", \"clients\": %lld, \"requests\": "
        "%lld, \"seed\": %llu, \"ok\": %lld, \"errors\": %lld, "
        "\"errors_by_code\": %s, \"wall_s\": %.3f, \"throughput_rps\": %.3f, "
        "\"latency_ms\": {\"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, "
        "\"mean\": %.3f, \"max\": %.3f}, \"compiles\": %lld, \"cache_hits\": "
        "%lld, \"cache_misses\": %lld, \"cache_hit_rate\": %s, "
        "\"peak_rss_bytes\": %s, \"compile_ms\": %.1f, \"mode\": \"%s\", "
        "\"server_run_ms_p50\": %s, \"overhead_ms_p50\": %s, "
        "\"joined_requests_mean\": %s, \"passes\": %s}\n",
        jsonString(options.inProcess ? "in-process" : options.server).c_str(),
        jsonString(options.graph).c_str(), jsonString(options.symbol).c_str(),
        static_cast<long long>(options.min),
        static_cast<long long>(options.max), distName,
        static_cast<long long>(options.clients),
        static_cast<long long>(options.requests),
        static_cast<unsigned long long>(options.seed),
        static_cast<long long>(ok), static_cast<long long>(errors),
        errorsJson.c_str(), wallS, throughput, p50, p90, p99, mean, maxMs,
        static_cast<long long>(compiles), static_cast<long long>(hits),
        static_cast<long long>(misses),
        jsonNumberOrNull(hitRate, "%.4f").c_str(),
        jsonNumberOrNull(peakRss, "%.0f").c_str(), target.compileMs,
        options.inProcess ? load::compileModeName(options.mode) : "server",
        jsonNumberOrNull(serverRunP50, "%.3f").c_str(),
        jsonNumberOrNull(overheadP50, "%.3f").c_str(),
        jsonNumberOrNull(joinedMean, "%.2f").c_str(), passesJson.c_str());
  } else {
    std::printf("anyshape-load: %s on %s%s\n", graph->name().c_str(),
                options.inProcess ? "this process (--in-process), compiled "
                                  : options.server.c_str(),
                options.inProcess ? load::compileModeName(options.mode) : "");
    std::printf("  requests     %lld (%lld ok, %lld errors) from %lld "
                "clients; %s %s in [%lld, %lld], seed %llu\n",
                static_cast<long long>(options.requests),
                static_cast<long long>(ok), static_cast<long long>(errors),
                static_cast<long long>(options.clients), options.symbol.c_str(),
                distName, static_cast<long long>(options.min),
                static_cast<long long>(options.max),
                static_cast<unsigned long long>(options.seed));
    for (size_t p = 0; passes.size() > 1 && p < passes.size(); ++p)
      std::printf("  pass %-7zu %.2f s  p50 %.2f  p99 %.2f ms%s\n", p + 1,
                  passes[p].wallS, load::percentile(passes[p].latencyMs, 50),
                  load::percentile(passes[p].latencyMs, 99),
                  p == 0 ? "  (every shape new)" : "");
    std::printf("  throughput   %.1f req/s over %.2f s\n", throughput, wallS);
    std::printf("  latency ms   p50 %.2f  p90 %.2f  p99 %.2f  (mean %.2f, "
                "max %.2f)\n",
                p50, p90, p99, mean, maxMs);
    if (serverRunP50)
      std::printf("  server side  run p50 %.2f ms; the rest of the latency "
                  "(queue, transport) p50 %.2f ms\n",
                  *serverRunP50, *overheadP50);
    if (joinedMean && *joinedMean > 1)
      std::printf("  joined       a request ran with %.2f requests on "
                  "average (the server's --max-batch)\n",
                  *joinedMean);
    std::printf("  compiles     %lld (setup and run)\n",
                static_cast<long long>(compiles));
    if (hitRate)
      std::printf("  cache        hit rate %.1f%% (%lld hits, %lld misses)\n",
                  *hitRate * 100, static_cast<long long>(hits),
                  static_cast<long long>(misses));
    else
      std::printf("  cache        hit rate n/a (no lookups)\n");
    if (peakRss)
      std::printf("  peak RSS     %.1f MiB%s\n", *peakRss / 1048576.0,
                  options.inProcess ? " (this process)" : "");
    else
      std::printf("  peak RSS     n/a\n");
    if (!results.firstError.empty())
      std::printf("  first error  %s\n", results.firstError.c_str());
  }
  return errors == 0 ? 0 : 1;
}

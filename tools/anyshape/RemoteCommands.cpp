// The subcommands that run on an anyshape server (--server ADDR): eval,
// which compiles once on the server and executes there with the same random
// inputs and output lines as in-process eval, and stats, the server's
// counters as JSON. An unreachable server is a failure (exit 1), not a usage
// error.
#include "Cli.h"

#include "anyshape/client/Client.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/GraphText.h"
#include "ir/graph/Validate.h"
#include "ir/reference/Evaluator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace anyshape::cli {
namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace

int runRemoteEval(const GlobalOptions &global,
                  const std::vector<std::string> &args) {
  std::string file, dimsText, seedText = "0", sweepText, ignored;
  bool check = false, specialize = false;
  for (size_t i = 0; i < args.size();) {
    if (takeOption(args, i, "--dims", dimsText) ||
        takeOption(args, i, "--seed", seedText) ||
        takeOption(args, i, "--sweep", sweepText))
      continue;
    if (takeOption(args, i, "--backend", ignored) ||
        takeOption(args, i, "--dump-ir", ignored))
      return usage("--backend and --dump-ir do not apply with --server (the "
                   "server compiles)");
    if (args[i] == "--check" || args[i] == "--static") {
      (args[i] == "--check" ? check : specialize) = true;
      ++i;
      continue;
    }
    if (args[i].rfind("--", 0) == 0 || !file.empty())
      return usage("unexpected argument '" + args[i] + "'");
    file = args[i++];
  }
  if (file.empty())
    return usage("eval needs a FILE");
  if (specialize && !sweepText.empty())
    return usage("--static compiles for one shape; it cannot --sweep");
  EvalRuns plan;
  if (int code = prepareEvalRuns(file, seedText, dimsText, sweepText, plan))
    return code;
  const v1::Graph *graph = &plan.graph;
  const std::map<std::string, int64_t> *dims = &plan.dims;
  const auto &runs = plan.runs;
  uint64_t seed = plan.seed;

  auto client = client::connectWithEnvironment(global.server);
  if (!client)
    return fail(client.status());
  auto offloaded = (*client)->offloadConstants(*graph);
  if (!offloaded)
    return fail(offloaded.status());
  v1::CompileOptions options;
  if (specialize)
    options.mutable_static_symbols()->insert(dims->begin(), dims->end());
  auto start = std::chrono::steady_clock::now();
  auto compiled = (*client)->compile(*offloaded, options);
  if (!compiled)
    return fail(compiled.status());
  std::printf("compiled %s on %s in %.0f ms (%s, %s; executable %s)\n",
              graph->name().c_str(), global.server.c_str(),
              millisecondsSince(start),
              compiled->cacheHit ? "cache hit" : "compiled",
              specialize ? "specialised to --dims" : "every shape",
              compiled->id.c_str());

  bool allOk = true;
  for (const auto &binding : runs) {
    // A size that fails is reported and the sweep goes on to the next.
    std::string label = runLabel(binding);
    auto shapes = inputShapesFor(*graph, binding, EvalOptions().limits);
    if (!shapes) {
      allOk =
          runFailed(label, shapes.status().withContext("(set it with --dims)"));
      continue;
    }
    std::vector<Literal> inputs = randomInputs(*graph, *shapes, seed);
    std::vector<v1::Tensor> tensors;
    for (const Literal &input : inputs)
      tensors.push_back(literalToTensor(input));
    start = std::chrono::steady_clock::now();
    auto result = (*client)->run(*compiled, tensors);
    double ms = millisecondsSince(start);
    if (!result) {
      allOk = runFailed(label, result.status());
      continue;
    }
    std::vector<Literal> outputs;
    for (const v1::Tensor &tensor : *result) {
      auto literal = literalFromTensor(tensor);
      if (!literal)
        return fail(literal.status().withContext("server output"));
      outputs.push_back(std::move(*literal));
    }
    std::printf("graph %s  backend server  dims %s  run %.2f ms\n",
                graph->name().c_str(), label.c_str(), ms);
    for (int k = 0; k < graph->outputs_size(); ++k)
      printOutput(graph->outputs(k), outputs[k]);
    if (check)
      allOk &= checkAgainstReference(*graph, inputs, outputs);
  }
  auto stats = (*client)->stats();
  if (!stats)
    return fail(stats.status());
  std::printf("server compiles: %lld, cache hits: %lld\n",
              static_cast<long long>(stats->compiles()),
              static_cast<long long>(stats->cache_hits()));
  return allOk ? 0 : 1;
}

int runStats(const GlobalOptions &global,
             const std::vector<std::string> &args) {
  if (!args.empty())
    return usage("stats takes no arguments");
  auto client = client::connectWithEnvironment(global.server);
  if (!client)
    return fail(client.status());
  auto stats = (*client)->stats();
  if (!stats)
    return fail(stats.status());
  const std::pair<const char *, int64_t> fields[] = {
      {"compiles", stats->compiles()},
      {"compile_errors", stats->compile_errors()},
      {"cache_hits", stats->cache_hits()},
      {"cache_misses", stats->cache_misses()},
      {"disk_loads", stats->disk_loads()},
      {"evictions", stats->evictions()},
      {"cache_dropped_entries", stats->cache_dropped_entries()},
      {"cache_store_errors", stats->cache_store_errors()},
      {"redis_hits", stats->redis_hits()},
      {"redis_errors", stats->redis_errors()},
      {"redis_leases_taken", stats->redis_leases_taken()},
      {"redis_lease_waits", stats->redis_lease_waits()},
      {"executions", stats->executions()},
      {"execution_errors", stats->execution_errors()},
      {"loaded_executables", stats->loaded_executables()},
      {"cache_bytes", stats->cache_bytes()},
      {"stored_tensors", stats->stored_tensors()},
      {"stored_tensor_bytes", stats->stored_tensor_bytes()}};
  std::string json = "{";
  for (const auto &[name, value] : fields)
    json += std::string(json.size() > 1 ? ", " : "") + "\"" + name +
            "\": " + std::to_string(value);
  std::printf("%s}\n", json.c_str());
  return 0;
}

} // namespace anyshape::cli

// anyshape-load --in-process (Target.h): the executable in the load
// generator, each execution's threads shared as the server shares them,
// compiled once, per length or per bucket; or no executable, the graph
// run eagerly by the reference evaluator.
#include "Target.h"
#include "Workload.h"

#include "ir/graph/Bindings.h"
#include "ir/reference/Evaluator.h"
#include "ir/reference/Literal.h"

#include <cstdio>

namespace anyshape::load {

std::optional<CompileMode> parseCompileMode(std::string_view name) {
  if (name == "dynamic")
    return CompileMode::Dynamic;
  if (name == "static")
    return CompileMode::Static;
  if (name == "buckets")
    return CompileMode::Buckets;
  if (name == "reference")
    return CompileMode::Reference;
  return std::nullopt;
}

const char *compileModeName(CompileMode mode) {
  switch (mode) {
  case CompileMode::Dynamic:
    return "dynamic";
  case CompileMode::Static:
    return "static";
  case CompileMode::Buckets:
    return "buckets";
  case CompileMode::Reference:
    return "reference";
  }
  return "?";
}

namespace {

int64_t bucketOf(int64_t length) {
  int64_t bucket = 1;
  while (bucket < length)
    bucket *= 2;
  return bucket;
}

} // namespace

Status compileInProcess(const v1::Graph &graph, CompileMode mode,
                        const std::string &symbol,
                        const std::map<std::string, int64_t> &otherDims,
                        Target &target) {
  target.counts = []() -> StatusOr<CacheCounts> {
    return CacheCounts{compiler::Compiler::compileCount(), 0, 0};
  };
  target.before = *target.counts();
  target.cores =
      std::make_unique<runtime::CoreShare>(runtime::hardwareThreads());
  if (mode == CompileMode::Dynamic) {
    std::fprintf(stderr, "compiling %s in this process...\n",
                 graph.name().c_str());
    compiler::CompileReport report;
    ANYSHAPE_ASSIGN_OR_RETURN(target.executable,
                              compiler::Compiler::compile(graph, {}, &report));
    std::fprintf(stderr, "compiled (%.0f ms)\n", report.seconds * 1e3);
    target.compileMs = report.seconds * 1e3;
    // As the server does when it loads an executable (Executable::warmUp).
    if (Status warm = target.executable->warmUp(); !warm.isOk())
      std::fprintf(stderr, "not warmed up: %s\n", warm.message().c_str());
    target.execute = [&target](int64_t, int64_t,
                               std::vector<v1::Tensor> &inputs,
                               ServerTiming &) {
      runtime::CoreShare::Claim threads(*target.cores);
      return target.executable->run(inputs).status();
    };
    return Status::ok();
  }
  if (mode == CompileMode::Reference) {
    // Each input is checked against the default limits before it is
    // decoded (literalFromTensor), as the evaluator's own callers do.
    target.execute = [&graph](int64_t, int64_t, std::vector<v1::Tensor> &inputs,
                              ServerTiming &) -> Status {
      std::vector<Literal> literals;
      for (const v1::Tensor &tensor : inputs) {
        ANYSHAPE_ASSIGN_OR_RETURN(Literal literal, literalFromTensor(tensor));
        literals.push_back(std::move(literal));
      }
      return evaluateGraph(graph, literals).status();
    };
    return Status::ok();
  }
  // Compiled on first sight of a size, inside the request (its latency
  // pays for the compile, as a recompiling system's does).
  auto executableFor =
      [&target, &graph, symbol,
       otherDims](int64_t size) -> StatusOr<std::shared_ptr<jit::Executable>> {
    std::lock_guard<std::mutex> lock(target.mutex);
    auto found = target.bySize.find(size);
    if (found != target.bySize.end())
      return found->second;
    compiler::CompileOptions options;
    options.staticSymbols = otherDims;
    options.staticSymbols[symbol] = size;
    ANYSHAPE_ASSIGN_OR_RETURN(std::shared_ptr<jit::Executable> compiled,
                              compiler::Compiler::compile(graph, options));
    target.bySize[size] = compiled;
    return compiled;
  };
  std::map<std::string, int64_t> binding = otherDims;
  target.execute = [&target, &graph, mode, executableFor, symbol, binding](
                       int64_t, int64_t length, std::vector<v1::Tensor> &inputs,
                       ServerTiming &) mutable -> Status {
    int64_t size = mode == CompileMode::Static ? length : bucketOf(length);
    ANYSHAPE_ASSIGN_OR_RETURN(std::shared_ptr<jit::Executable> executable,
                              executableFor(size));
    runtime::CoreShare::Claim threads(*target.cores);
    if (size == length)
      return executable->run(inputs).status();
    binding[symbol] = size;
    ANYSHAPE_ASSIGN_OR_RETURN(auto shapes, inputShapesFor(graph, binding));
    std::vector<v1::Tensor> padded;
    for (size_t k = 0; k < inputs.size(); ++k) {
      ANYSHAPE_ASSIGN_OR_RETURN(v1::Tensor tensor,
                                padTensor(inputs[k], shapes[k]));
      padded.push_back(std::move(tensor));
    }
    return executable->run(padded).status();
  };
  return Status::ok();
}

} // namespace anyshape::load

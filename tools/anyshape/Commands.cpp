// The validate, fingerprint and eval subcommands (import is in
// ImportCommand.cpp, being the only one that needs MLIR types).
#include "Cli.h"

#include "frontend/onnx/OnnxImport.h"

#include "compiler/Compiler.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/Fingerprint.h"
#include "ir/graph/GraphText.h"
#include "ir/graph/Validate.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"
#include "runtime/cuda/CudaDriver.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace anyshape::cli {
namespace {

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

} // namespace

int fail(const Status &status) {
  std::fprintf(stderr, "error: %s\n", status.message().c_str());
  return 1;
}

std::string runLabel(const std::map<std::string, int64_t> &binding) {
  std::string label;
  for (const auto &[name, size] : binding)
    label += (label.empty() ? "" : ",") + name + "=" + std::to_string(size);
  return label.empty() ? "(none)" : label;
}

bool runFailed(const std::string &label, const Status &status) {
  std::fprintf(stderr, "error: dims %s: %s\n", label.c_str(),
               status.message().c_str());
  return false;
}

int usage(const std::string &message) {
  std::fprintf(stderr, "anyshape: %s (see anyshape --help)\n", message.c_str());
  return 2;
}

/// "seq=128,batch=2" -> {seq: 128, batch: 2}.
StatusOr<std::map<std::string, int64_t>> parseDims(const std::string &text) {
  std::map<std::string, int64_t> dims;
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma - start);
    size_t eq = item.find('=');
    char *end = nullptr;
    errno = 0;
    long long value = eq == std::string::npos
                          ? -1
                          : std::strtoll(item.c_str() + eq + 1, &end, 10);
    if (eq == std::string::npos || eq == 0 || end == item.c_str() + eq + 1 ||
        *end != '\0' || errno == ERANGE || value < 0)
      return invalidArgument("--dims entry '" + item +
                             "' is not SYMBOL=SIZE with SIZE >= 0");
    dims[item.substr(0, eq)] = value;
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return dims;
}

bool takeOption(const std::vector<std::string> &args, size_t &i,
                const std::string &name, std::string &value) {
  const std::string &arg = args[i];
  if (arg.rfind(name + "=", 0) == 0) {
    value = arg.substr(name.size() + 1);
    ++i;
    return true;
  }
  if (arg == name && i + 1 < args.size()) {
    value = args[i + 1];
    i += 2;
    return true;
  }
  return false;
}

int runValidate(const GlobalOptions &, const std::vector<std::string> &args) {
  if (args.size() != 1 || args[0].rfind("--", 0) == 0)
    return usage("validate takes exactly one FILE");
  auto graph = onnx::loadModelFile(args[0]);
  if (!graph)
    return fail(graph.status());
  auto info = validateGraph(*graph);
  if (!info)
    return fail(info.status());
  std::printf("valid: graph '%s', %d inputs, %d nodes\n", graph->name().c_str(),
              graph->inputs_size(), graph->nodes_size());
  for (int k = 0; k < graph->inputs_size(); ++k)
    std::printf("  input  %s: %s\n", graph->inputs(k).name().c_str(),
                info->inputTypes[k].toString().c_str());
  for (const std::string &name : graph->outputs())
    std::printf("  output %s: %s\n", name.c_str(),
                info->typeOf(info->values.at(name)).toString().c_str());
  std::printf("  run-time shape checks: %zu (the compiled entry runs them "
              "in this order)\n",
              info->shapeChecks.size());
  for (const ShapeCheck &check : info->shapeChecks)
    std::printf("    %s\n", describeShapeCheck(*graph, check).c_str());
  return 0;
}

int runFingerprint(const GlobalOptions &,
                   const std::vector<std::string> &args) {
  if (args.size() != 1 || args[0].rfind("--", 0) == 0)
    return usage("fingerprint takes exactly one FILE");
  auto graph = onnx::loadModelFile(args[0]);
  if (!graph)
    return fail(graph.status());
  auto fingerprint = fingerprintGraph(*graph);
  if (!fingerprint)
    return fail(fingerprint.status());
  std::printf("%s\n", fingerprint->hex().c_str());
  return 0;
}

std::vector<Literal>
randomInputs(const v1::Graph &graph,
             const std::vector<std::vector<int64_t>> &shapes, uint64_t seed) {
  std::vector<Literal> inputs;
  for (int k = 0; k < graph.inputs_size(); ++k)
    inputs.push_back(randomLiteral(graph.inputs(k).type().dtype(), shapes[k],
                                   seed * 1000003 + k));
  return inputs;
}

/// Prints one output's dtype, shape and checksums.
void printOutput(const std::string &name, const Literal &out) {
  double sum = 0, absSum = 0;
  for (int64_t e = 0; e < out.numElements(); ++e) {
    sum += out.getDouble(e);
    absSum += std::fabs(out.getDouble(e));
  }
  double n = std::max<double>(1.0, static_cast<double>(out.numElements()));
  std::printf("  %s: %s%s  sum=%.6g  mean_abs=%.6g\n", name.c_str(),
              dtypeName(out.dtype).c_str(), shapeString(out.shape).c_str(), sum,
              absSum / n);
}

/// Compares with the reference evaluator; prints one line per output.
bool checkAgainstReference(const v1::Graph &graph,
                           const std::vector<Literal> &inputs,
                           const std::vector<Literal> &outputs) {
  auto expected = evaluateGraph(graph, inputs);
  if (!expected) {
    std::fprintf(stderr, "error: reference evaluator: %s\n",
                 expected.status().message().c_str());
    return false;
  }
  bool ok = true;
  for (int k = 0; k < graph.outputs_size(); ++k) {
    NumericDiff c = compareLiterals(outputs[k], (*expected)[k]);
    Tolerance tol = toleranceFor((*expected)[k].dtype);
    std::printf("  check %s: max_abs_err=%.3g max_rel_err=%.3g "
                "(atol %.0e, rtol %.0e) %s%s\n",
                graph.outputs(k).c_str(), c.maxAbsError, c.maxRelError,
                tol.atol, tol.rtol, c.ok() ? "ok" : "MISMATCH ",
                c.firstMismatch.c_str());
    ok &= c.ok();
  }
  return ok;
}

/// "seq=1,7,16" -> ("seq", {1, 7, 16}).
StatusOr<std::pair<std::string, std::vector<int64_t>>>
parseSweep(const std::string &text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    return invalidArgument("--sweep needs SYMBOL=N,N,...");
  std::vector<int64_t> values;
  std::string rest = text.substr(eq + 1);
  for (size_t start = 0; start <= rest.size();) {
    size_t comma = rest.find(',', start);
    std::string item = rest.substr(start, comma - start);
    char *end = nullptr;
    long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 0)
      return invalidArgument("--sweep value '" + item + "' is not a size");
    values.push_back(v);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return std::make_pair(text.substr(0, eq), values);
}

int prepareEvalRuns(const std::string &file, const std::string &seedText,
                    const std::string &dimsText, const std::string &sweepText,
                    EvalRuns &out) {
  char *end = nullptr;
  out.seed = std::strtoull(seedText.c_str(), &end, 10);
  if (seedText.empty() || *end != '\0')
    return usage("--seed needs a non-negative integer");
  auto dims = parseDims(dimsText);
  if (!dims)
    return usage(dims.status().message());
  out.dims = *dims;
  std::vector<std::map<std::string, int64_t>> runs{*dims};
  if (!sweepText.empty()) {
    auto sweep = parseSweep(sweepText);
    if (!sweep)
      return usage(sweep.status().message());
    runs.clear();
    for (int64_t v : sweep->second) {
      runs.push_back(*dims);
      runs.back()[sweep->first] = v;
    }
  }

  auto graph = onnx::loadModelFile(file);
  if (!graph)
    return fail(graph.status());
  auto info = validateGraph(*graph);
  if (!info)
    return fail(info.status());
  out.graph = std::move(*graph);
  out.runs = std::move(runs);
  for (const auto &[name, size] : out.runs.front())
    if (std::find(info->symbols.begin(), info->symbols.end(), name) ==
        info->symbols.end())
      return usage("'" + name + "' is not a symbol of the graph");
  return 0;
}

namespace {

/// eval --backend cuda on a machine that cannot run it: what is missing
/// (a driver or a device), after the compile showed that the graph
/// compiles. 0 when a device is there.
int checkCudaDevice() {
  auto device = runtime::cuda::probeDevice();
  if (device)
    return 0;
  return fail(
      Status(device.status().code(),
             "--backend cuda: " + device.status().message() +
                 ". The graph compiled for CUDA; its kernels run on this CPU "
                 "by their emulation with --backend cuda-emulated"));
}

/// A compile's stages on stderr, once it has run long enough to be worth
/// watching (kProgressAfter): quick compiles stay quiet; a long one shows
/// every stage so far, then each as it ends.
class CompileProgress {
public:
  static constexpr double kProgressAfter = 1.0; // seconds

  void done(const compiler::CompileStage &stage) {
    held_.push_back(stage);
    if (stage.elapsed < kProgressAfter)
      return;
    for (const compiler::CompileStage &s : held_)
      std::fprintf(stderr, "compile: %-14s %8.2f s  (%.2f s in)%s%s\n",
                   s.name.c_str(), s.seconds, s.elapsed,
                   s.detail.empty() ? "" : "  ", s.detail.c_str());
    held_.clear();
  }

private:
  std::vector<compiler::CompileStage> held_;
};

} // namespace

int runEval(const GlobalOptions &, const std::vector<std::string> &args) {
  std::string file, dimsText, seedText = "0", backend = "reference", sweepText;
  bool check = false, specialize = false;
  compiler::CompileOptions options;
  for (size_t i = 0; i < args.size();) {
    if (takeOption(args, i, "--dims", dimsText) ||
        takeOption(args, i, "--seed", seedText) ||
        takeOption(args, i, "--backend", backend) ||
        takeOption(args, i, "--sweep", sweepText) ||
        takeOption(args, i, "--dump-ir", options.dumpIrDir))
      continue;
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
  std::optional<compiler::KernelBackend> kernels =
      compiler::parseBackend(backend);
  bool compiled = kernels.has_value();
  if (backend != "reference" && !compiled)
    return usage("unknown backend '" + backend + "' (available: reference, " +
                 compiler::backendNames() + ")");
  if ((specialize || !options.dumpIrDir.empty()) && !compiled)
    return usage("--static and --dump-ir need a compiled backend");
  if (kernels)
    options.backend = *kernels;
  if (specialize && !sweepText.empty())
    return usage("--static compiles for one shape; it cannot --sweep");
  EvalRuns plan;
  if (int code = prepareEvalRuns(file, seedText, dimsText, sweepText, plan))
    return code;
  const v1::Graph *graph = &plan.graph;
  const std::map<std::string, int64_t> *dims = &plan.dims;
  const auto &runs = plan.runs;
  uint64_t seed = plan.seed;

  // A compiled backend compiles once, before the first shape is known.
  std::shared_ptr<jit::Executable> executable;
  if (compiled) {
    if (specialize)
      options.staticSymbols = *dims;
    compiler::CompileReport report;
    CompileProgress progress;
    options.progress = [&](const compiler::CompileStage &s) {
      progress.done(s);
    };
    auto compiled = compiler::Compiler::compile(*graph, options, &report);
    if (!compiled)
      return fail(compiled.status());
    executable = *compiled;
    std::printf("compiled %s for %s in %.0f ms (%s; %lld kernel functions; "
                "MLIR %.0f ms, LLVM %.0f ms, link %.0f ms)\n",
                graph->name().c_str(),
                options.backend == compiler::KernelBackend::kCpu ? "the CPU"
                : options.backend == compiler::KernelBackend::kCudaEmulated
                    ? "CUDA, emulated on the CPU"
                    : "CUDA",
                report.seconds * 1e3,
                specialize ? "specialised to --dims" : "every shape",
                static_cast<long long>(report.kernelFunctions),
                report.pipelineSeconds * 1e3, report.codegenSeconds * 1e3,
                report.linkSeconds * 1e3);
    for (const std::string &warning : report.warnings)
      std::fprintf(stderr, "warning: %s\n", warning.c_str());
    if (options.backend == compiler::KernelBackend::kCuda)
      if (int code = checkCudaDevice())
        return code;
  }
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
    auto start = std::chrono::steady_clock::now();
    StatusOr<std::vector<Literal>> outputs = std::vector<Literal>();
    if (executable) {
      std::vector<v1::Tensor> tensors;
      for (const Literal &input : inputs)
        tensors.push_back(literalToTensor(input));
      auto result = executable->run(tensors);
      if (!result) {
        allOk = runFailed(label, result.status());
        continue;
      }
      std::vector<Literal> literals;
      for (const v1::Tensor &t : *result)
        literals.push_back(*literalFromTensor(t));
      outputs = std::move(literals);
    } else {
      outputs = evaluateGraph(*graph, inputs);
    }
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    if (!outputs) {
      allOk = runFailed(label, outputs.status());
      continue;
    }
    std::printf("graph %s  backend %s  dims %s  run %.2f ms\n",
                graph->name().c_str(), backend.c_str(), label.c_str(), ms);
    for (int k = 0; k < graph->outputs_size(); ++k)
      printOutput(graph->outputs(k), (*outputs)[k]);
    if (check)
      allOk &= checkAgainstReference(*graph, inputs, *outputs);
  }
  if (executable)
    std::printf("compiles in this process: %lld\n",
                static_cast<long long>(compiler::Compiler::compileCount()));
  return allOk ? 0 : 1;
}

} // namespace anyshape::cli

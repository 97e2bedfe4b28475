// The validate and eval subcommands.
#include "Cli.h"

#include "ir/graph/Fingerprint.h"
#include "ir/graph/GraphText.h"
#include "ir/graph/Validate.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"
#include "jit/Compiler.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace anyshape::cli {
namespace {

int fail(const Status &status) {
  std::fprintf(stderr, "error: %s\n", status.message().c_str());
  return 1;
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

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

} // namespace

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
  auto graph = loadGraphFile(args[0]);
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
  return 0;
}

int runFingerprint(const GlobalOptions &,
                   const std::vector<std::string> &args) {
  if (args.size() != 1 || args[0].rfind("--", 0) == 0)
    return usage("fingerprint takes exactly one FILE");
  auto graph = loadGraphFile(args[0]);
  if (!graph)
    return fail(graph.status());
  auto fingerprint = fingerprintGraph(*graph);
  if (!fingerprint)
    return fail(fingerprint.status());
  std::printf("%s\n", fingerprint->hex().c_str());
  return 0;
}

/// Runs the graph on the compiled CPU path; timing covers run() only.
StatusOr<std::vector<Literal>> runCompiled(const v1::Graph &graph,
                                           const std::vector<Literal> &inputs,
                                           const jit::CompileOptions &options,
                                           double &compileMs, double &runMs) {
  auto start = std::chrono::steady_clock::now();
  ANYSHAPE_ASSIGN_OR_RETURN(auto executable,
                            jit::Compiler::compile(graph, options));
  auto compiled = std::chrono::steady_clock::now();
  std::vector<v1::Tensor> tensors;
  for (const Literal &input : inputs)
    tensors.push_back(literalToTensor(input));
  ANYSHAPE_ASSIGN_OR_RETURN(auto outputs, executable->run(tensors));
  auto done = std::chrono::steady_clock::now();
  compileMs =
      std::chrono::duration<double, std::milli>(compiled - start).count();
  runMs = std::chrono::duration<double, std::milli>(done - compiled).count();
  std::vector<Literal> literals;
  for (const v1::Tensor &t : outputs) {
    ANYSHAPE_ASSIGN_OR_RETURN(Literal l, literalFromTensor(t));
    literals.push_back(std::move(l));
  }
  return literals;
}

int runEval(const GlobalOptions &, const std::vector<std::string> &args) {
  std::string file, dimsText, seedText = "0", backend = "reference";
  bool check = false, specialize = false;
  jit::CompileOptions options;
  for (size_t i = 0; i < args.size();) {
    if (takeOption(args, i, "--dims", dimsText) ||
        takeOption(args, i, "--seed", seedText) ||
        takeOption(args, i, "--backend", backend) ||
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
  if (backend != "reference" && backend != "cpu")
    return usage("unknown backend '" + backend +
                 "' (available: reference, cpu)");
  if ((specialize || !options.dumpIrDir.empty()) && backend != "cpu")
    return usage("--static and --dump-ir need --backend=cpu");
  char *end = nullptr;
  uint64_t seed = std::strtoull(seedText.c_str(), &end, 10);
  if (seedText.empty() || *end != '\0')
    return usage("--seed needs a non-negative integer");
  auto dims = parseDims(dimsText);
  if (!dims)
    return usage(dims.status().message());

  auto graph = loadGraphFile(file);
  if (!graph)
    return fail(graph.status());
  auto info = validateGraph(*graph);
  if (!info)
    return fail(info.status());
  for (const auto &[name, size] : *dims)
    if (std::find(info->symbols.begin(), info->symbols.end(), name) ==
        info->symbols.end())
      return usage("--dims names '" + name +
                   "', which is not a symbol of "
                   "the graph");
  auto shapes = inputShapesFor(*graph, *dims, EvalOptions().limits);
  if (!shapes)
    return fail(shapes.status().withContext("(set it with --dims)"));
  std::vector<Literal> inputs;
  for (int k = 0; k < graph->inputs_size(); ++k)
    inputs.push_back(randomLiteral(graph->inputs(k).type().dtype(),
                                   (*shapes)[k], seed * 1000003 + k));

  double compileMs = 0, runMs = 0;
  StatusOr<std::vector<Literal>> outputs = std::vector<Literal>();
  if (backend == "cpu") {
    if (specialize)
      options.staticSymbols = *dims;
    outputs = runCompiled(*graph, inputs, options, compileMs, runMs);
  } else {
    auto start = std::chrono::steady_clock::now();
    outputs = evaluateGraph(*graph, inputs);
    runMs = std::chrono::duration<double, std::milli>(
                std::chrono::steady_clock::now() - start)
                .count();
  }
  if (!outputs)
    return fail(outputs.status());
  std::printf("graph %s  backend %s  dims %s  run %.2f ms",
              graph->name().c_str(), backend.c_str(),
              dimsText.empty() ? "(none)" : dimsText.c_str(), runMs);
  if (backend == "cpu")
    std::printf("  compile %.0f ms", compileMs);
  std::printf("\n");
  for (int k = 0; k < graph->outputs_size(); ++k) {
    const Literal &out = (*outputs)[k];
    double sum = 0, absSum = 0;
    for (int64_t e = 0; e < out.numElements(); ++e) {
      sum += out.getDouble(e);
      absSum += std::fabs(out.getDouble(e));
    }
    double n = std::max<double>(1.0, static_cast<double>(out.numElements()));
    std::printf("  %s: %s%s  sum=%.6g  mean_abs=%.6g\n",
                graph->outputs(k).c_str(), dtypeName(out.dtype).c_str(),
                shapeString(out.shape).c_str(), sum, absSum / n);
  }
  if (!check)
    return 0;
  auto expected = evaluateGraph(*graph, inputs);
  if (!expected)
    return fail(expected.status().withContext("reference evaluator"));
  bool ok = true;
  for (int k = 0; k < graph->outputs_size(); ++k) {
    NumericDiff c = compareLiterals((*outputs)[k], (*expected)[k]);
    Tolerance tol = toleranceFor((*expected)[k].dtype);
    std::printf("  check %s: max_abs_err=%.3g max_rel_err=%.3g "
                "(atol %.0e, rtol %.0e) %s%s\n",
                graph->outputs(k).c_str(), c.maxAbsError, c.maxRelError,
                tol.atol, tol.rtol, c.ok() ? "ok" : "MISMATCH ",
                c.firstMismatch.c_str());
    ok &= c.ok();
  }
  return ok ? 0 : 1;
}

} // namespace anyshape::cli

// anyshape-zoo-check MODEL.onnx FIXTURE [--backend cpu|cuda-emulated|cuda]
// [--atol X] [--rtol X] [--passes N]: imports and compiles the model once, runs
// every case of FIXTURE (inputs and what PyTorch computed from them, written by
// examples/zoo/fixture.py) and compares every output, element by element,
// within atol + rtol * |expected| (integer outputs exactly). Prints one
// line per case; exits 0 when every case matches and the model compiled
// once, 1 otherwise, 2 on a usage error. One ctest per zoo model runs it.
// With --passes N it then times N more passes over the cases in process
// (bench/peers/zoo.py reads the line: compile seconds, first pass, the
// other passes' total and median call). `cuda` is the device path whole
// (cubins, the host flow, the runtime) with each kernel's emulation
// packed in, so that on the fake driver (tests/cuda) every launch runs.
// With --static each case compiles specialised to its own sizes (the static
// fallback, as a model exported with fixed shapes compiles): one compile
// per case.
//
// FIXTURE is text: per case a line "case LABEL", then per tensor a line
// "input|output NAME DTYPE RANK DIMS..." and a line of its values in
// row-major order (floats as decimal, nan/inf allowed; bools as 0/1).
#include "compiler/Compiler.h"
#include "frontend/onnx/OnnxImport.h"
#include "ir/graph/Bindings.h"
#include "ir/reference/Literal.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace anyshape;

namespace {

struct Case {
  std::string label;
  std::map<std::string, Literal> inputs, outputs;
};

bool readValues(const std::string &line, Literal &t) {
  std::istringstream in(line);
  int64_t count = t.numElements();
  std::string word;
  for (int64_t k = 0; k < count; ++k) {
    if (!(in >> word))
      return false;
    char *end = nullptr;
    double v = std::strtod(word.c_str(), &end);
    if (*end != '\0')
      return false;
    if (t.isFloat())
      t.f[k] = roundToFloatDType(v, t.dtype);
    else
      t.i[k] = std::strtoll(word.c_str(), nullptr, 10);
  }
  return !(in >> word);
}

/// The cases of `path`, or an error line naming where it went wrong.
std::string readFixture(const std::string &path, std::vector<Case> &cases) {
  std::ifstream in(path);
  if (!in)
    return "cannot open " + path;
  std::string line;
  int lineNumber = 0;
  while (std::getline(in, line)) {
    ++lineNumber;
    if (line.empty())
      continue;
    std::istringstream head(line);
    std::string kind, name, dtype;
    head >> kind;
    if (kind == "case") {
      cases.emplace_back();
      std::getline(head >> std::ws, cases.back().label);
      continue;
    }
    int64_t rank = -1;
    if ((kind != "input" && kind != "output") || cases.empty() ||
        !(head >> name >> dtype >> rank) || rank < 0 || rank > 8)
      return path + ":" + std::to_string(lineNumber) + ": not a tensor line";
    std::optional<DType> type = parseDType(dtype);
    std::vector<int64_t> shape(static_cast<size_t>(rank));
    int64_t count = 1;
    for (int64_t &d : shape) {
      if (!(head >> d) || d < 0 || d > (1 << 24))
        return path + ":" + std::to_string(lineNumber) + ": bad dims";
      count *= d;
    }
    if (!type || count > (1 << 24))
      return path + ":" + std::to_string(lineNumber) + ": bad dtype or size";
    Literal t = Literal::zeros(*type, shape);
    ++lineNumber;
    if (!std::getline(in, line) || !readValues(line, t))
      return path + ":" + std::to_string(lineNumber) + ": expected " +
             std::to_string(count) + " values";
    (kind == "input" ? cases.back().inputs : cases.back().outputs)[name] =
        std::move(t);
  }
  return cases.empty() ? path + " has no cases" : "";
}

/// The largest |got - want| over the elements, and whether each is
/// within tolerance (NaN matches NaN, infinities match exactly).
struct Comparison {
  double worst = 0;
  bool ok = true;
};
Comparison compare(const Literal &got, const Literal &want, double atol,
                   double rtol) {
  Comparison c;
  for (int64_t k = 0; k < want.numElements(); ++k) {
    double g = got.getDouble(k), w = want.getDouble(k);
    if (std::isnan(w) || std::isinf(w)) {
      bool same = std::isnan(w) ? std::isnan(g) : g == w;
      c.ok = c.ok && same;
      continue;
    }
    double error = std::fabs(g - w);
    if (std::isnan(error))
      error = INFINITY;
    c.worst = std::max(c.worst, error);
    double allowed = want.isFloat() ? atol + rtol * std::fabs(w) : 0.0;
    c.ok = c.ok && error <= allowed;
  }
  return c;
}

/// The default tolerance of an output: a float16 or bfloat16 model
/// rounds every stored value to its type, so PyTorch and ONNX Runtime
/// themselves differ from each other by an ulp or two of it (2^-10 and
/// 2^-7 relative); four ulps are allowed there. f32 outputs get f32's.
struct Tolerance {
  double atol, rtol;
};
Tolerance defaultTolerance(DType dtype) {
  if (dtype == v1::DTYPE_F16)
    return {1e-3, 4.0 / 1024};
  if (dtype == v1::DTYPE_BF16)
    return {8e-3, 4.0 / 128};
  return {1e-4, 1e-3};
}

/// The compile's warnings, one "warning: " line each on stderr (the
/// conformance runner reads a departure from the fusion plan there).
void printWarnings(const compiler::CompileReport &report) {
  for (const std::string &warning : report.warnings)
    std::cerr << "warning: " << warning << "\n";
}

int usage(const char *error) {
  std::cerr << (error ? std::string("error: ") + error + "\n" : "")
            << "usage: anyshape-zoo-check MODEL.onnx FIXTURE [--backend "
               "cpu|cuda-emulated|cuda] [--atol X] [--rtol X] [--passes N] "
               "[--static]\n"
               "compiles MODEL once and checks every output of every case "
               "of FIXTURE\n(--static: compiles it for each case's sizes "
               "instead)\n(default tolerances by output type: f32 atol "
               "1e-4 rtol 1e-3, f16 1e-3 and 2^-8, bf16 8e-3 and 2^-5)\n";
  return error ? 2 : 0;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h"))
    return usage(nullptr);
  if (args.size() < 2)
    return usage("MODEL and FIXTURE are required");
  std::optional<double> atol, rtol; // both per output type by default
  int passes = 0;
  bool specialise = false;
  compiler::CompileOptions options;
  for (size_t k = 2; k < args.size(); k += 2) {
    if (args[k] == "--static") {
      specialise = true;
      --k; // a flag, no value
      continue;
    }
    if (k + 1 >= args.size())
      return usage(("missing the value of " + args[k]).c_str());
    if (args[k] == "--atol")
      atol = std::atof(args[k + 1].c_str());
    else if (args[k] == "--rtol")
      rtol = std::atof(args[k + 1].c_str());
    else if (args[k] == "--passes")
      passes = std::clamp(std::atoi(args[k + 1].c_str()), 0, 100000);
    else if (args[k] == "--backend" && compiler::parseBackend(args[k + 1])) {
      options.backend = *compiler::parseBackend(args[k + 1]);
      // The fake driver runs a kernel by its emulation, linked in beside
      // its cubin.
      options.cuda.emulatedKernels =
          options.backend == compiler::KernelBackend::kCuda;
    } else
      return usage(("unknown option " + args[k] + " " + args[k + 1]).c_str());
  }
  if (specialise && passes > 0)
    return usage("--passes times one executable; --static makes one per case");
  std::vector<Case> cases;
  if (std::string error = readFixture(args[1], cases); !error.empty()) {
    std::cerr << "error: " << error << "\n";
    return 1;
  }
  auto graph = onnx::importOnnxFile(args[0]);
  if (!graph.isOk()) {
    std::cerr << "error: " << graph.status().toString() << "\n";
    return 1;
  }
  int64_t compiles = compiler::Compiler::compileCount();
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  };
  std::shared_ptr<jit::Executable> executable;
  double compileSeconds = 0;
  if (!specialise) {
    Clock::time_point compileStart = Clock::now();
    compiler::CompileReport report;
    auto compiled = compiler::Compiler::compile(*graph, options, &report);
    compileSeconds = seconds(compileStart);
    if (!compiled.isOk()) {
      std::cerr << "error: " << compiled.status().toString() << "\n";
      return 1;
    }
    printWarnings(report);
    executable = *compiled;
  }
  bool allOk = true;
  std::vector<std::vector<v1::Tensor>> allInputs;
  double firstPass = 0;
  for (const Case &c : cases) {
    std::vector<v1::Tensor> inputs;
    for (const auto &input : graph->inputs()) {
      auto given = c.inputs.find(input.name());
      if (given == c.inputs.end()) {
        std::cerr << "error: case " << c.label << " has no input '"
                  << input.name() << "'\n";
        return 1;
      }
      inputs.push_back(literalToTensor(given->second));
    }
    if (specialise) {
      std::vector<std::vector<int64_t>> shapes;
      for (const v1::Tensor &input : inputs)
        shapes.emplace_back(input.shape().begin(), input.shape().end());
      auto symbols = bindSymbols(*graph, shapes);
      if (!symbols.isOk()) {
        std::cerr << "error: case " << c.label << ": "
                  << symbols.status().toString() << "\n";
        return 1;
      }
      options.staticSymbols = *symbols;
      compiler::CompileReport report;
      auto compiled = compiler::Compiler::compile(*graph, options, &report);
      if (!compiled.isOk()) {
        std::cerr << "error: case " << c.label << ": "
                  << compiled.status().toString() << "\n";
        return 1;
      }
      printWarnings(report);
      executable = *compiled;
    }
    Clock::time_point runStart = Clock::now();
    auto out = executable->run(inputs);
    firstPass += seconds(runStart);
    allInputs.push_back(inputs);
    if (!out.isOk()) {
      std::cerr << "error: case " << c.label << ": " << out.status().toString()
                << "\n";
      return 1;
    }
    std::string line;
    bool caseOk = true;
    size_t checked = 0;
    for (int k = 0; k < graph->outputs_size(); ++k) {
      const std::string &name = graph->outputs(k);
      auto want = c.outputs.find(name);
      if (want == c.outputs.end())
        continue; // PyTorch's side did not record it
      ++checked;
      auto got = literalFromTensor((*out)[static_cast<size_t>(k)]);
      if (!got.isOk() || got->shape != want->second.shape ||
          got->dtype != want->second.dtype) {
        line += " " + name + ": wrong type";
        caseOk = false;
        continue;
      }
      Tolerance tolerance = defaultTolerance(want->second.dtype);
      Comparison result =
          compare(*got, want->second, atol.value_or(tolerance.atol),
                  rtol.value_or(tolerance.rtol));
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, " %.2g", result.worst);
      line += " " + name + buffer + (result.ok ? "" : " MISMATCH");
      caseOk = caseOk && result.ok;
    }
    if (checked != c.outputs.size()) {
      line += " (an expected output is not an output of the model)";
      caseOk = false;
    }
    allOk = allOk && caseOk;
    std::printf("case %s:%s\n", c.label.c_str(), line.c_str());
  }
  int64_t total = compiler::Compiler::compileCount() - compiles;
  std::printf("%zu cases, compiles: %lld\n", cases.size(),
              static_cast<long long>(total));
  if (passes > 0) {
    std::vector<double> calls;
    for (int p = 0; p < passes; ++p)
      for (const std::vector<v1::Tensor> &inputs : allInputs) {
        Clock::time_point runStart = Clock::now();
        if (!executable->run(inputs).isOk())
          return 1;
        calls.push_back(seconds(runStart));
      }
    std::sort(calls.begin(), calls.end());
    double sum = 0;
    for (double c : calls)
      sum += c;
    std::printf("timing: compile %.3f s, first pass %.4f s, %zu more calls "
                "%.4f s, p50 %.4f ms\n",
                compileSeconds, firstPass, calls.size(), sum,
                calls[calls.size() / 2] * 1e3);
  }
  int64_t wanted = specialise ? static_cast<int64_t>(cases.size()) : 1;
  return allOk && total == wanted ? 0 : 1;
}

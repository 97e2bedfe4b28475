// Compiled executables checked against the reference evaluator, for the
// tests that compile once and run at many shapes (the CPU differential
// tests, the emulated CUDA kernels, the CUDA path against the fake driver).
#pragma once

#include "RandomInputs.h"
#include "compiler/Compiler.h"
#include "ir/graph/Bindings.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"
#include "jit/Executable.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace anyshape::test {

/// The backends every CPU-hosted test runs: the CPU's, and the CUDA
/// kernels' emulation on this CPU.
inline constexpr compiler::KernelBackend kHostBackends[] = {
    compiler::KernelBackend::kCpu, compiler::KernelBackend::kCudaEmulated};

/// Default compile options on `backend`.
inline compiler::CompileOptions onBackend(compiler::KernelBackend backend) {
  compiler::CompileOptions options;
  options.backend = backend;
  return options;
}

/// Runs `executable` (compiled from `graph`) at `symbols` on random inputs
/// seeded by `seed` and checks every output against the reference within
/// ir/reference/Compare.h's tolerances. Both refusing the shapes (e.g. an
/// invalid slice) is a match; `ran` (if given) says whether both ran.
inline void expectMatchesReference(
    const jit::Executable &executable, const v1::Graph &graph,
    const std::map<std::string, int64_t> &symbols, uint64_t seed,
    const std::string &label, bool *ran = nullptr) {
  if (ran)
    *ran = false;
  auto inputShapes = inputShapesFor(graph, symbols);
  ASSERT_TRUE(inputShapes.isOk()) << inputShapes.status().toString();
  auto [inputs, tensors] = randomInputs(graph, *inputShapes, seed);
  auto expected = evaluateGraph(graph, inputs);
  auto actual = executable.run(tensors);
  std::string where = label + " at";
  for (const auto &[name, size] : symbols)
    where += " " + name + "=" + std::to_string(size);
  ASSERT_EQ(expected.isOk(), actual.isOk())
      << where << ": reference " << expected.status().toString()
      << ", compiled " << actual.status().toString();
  if (!expected.isOk())
    return;
  ASSERT_EQ(actual->size(), expected->size());
  for (size_t o = 0; o < actual->size(); ++o) {
    auto literal = literalFromTensor((*actual)[o]);
    ASSERT_TRUE(literal.isOk());
    NumericDiff c = compareLiterals(*literal, (*expected)[o]);
    ASSERT_TRUE(c.ok()) << where << " output " << o << ": " << c.mismatches
                        << " mismatches, first " << c.firstMismatch;
  }
  if (ran)
    *ran = true;
}

/// Runs `graph` compiled once at `shapes` symbol bindings; checks each run
/// against the reference and that exactly one compile happened.
inline void
checkAcrossShapes(const v1::Graph &graph,
                  const std::vector<std::map<std::string, int64_t>> &shapes,
                  const std::string &label,
                  const compiler::CompileOptions &options = {}) {
  int64_t before = compiler::Compiler::compileCount();
  auto executable = compiler::Compiler::compile(graph, options);
  ASSERT_TRUE(executable.isOk())
      << label << ": " << executable.status().toString();
  int runs = 0;
  for (const auto &symbols : shapes) {
    bool ran = false;
    expectMatchesReference(**executable, graph, symbols, 1000 * runs, label,
                           &ran);
    if (::testing::Test::HasFatalFailure())
      return;
    runs += ran;
  }
  EXPECT_EQ(compiler::Compiler::compileCount() - before, 1) << label;
  EXPECT_GT(runs, 0);
}

} // namespace anyshape::test

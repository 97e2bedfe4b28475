// libFuzzer target: a small graph as a client sends it, validated,
// imported into DHLO and compiled through the whole CPU pipeline to object
// code (compiler::Compiler::compileToObject, what a compile worker runs).
// Whatever graph validation accepts must compile or be refused with a
// status: no crash, no sanitizer report, no MLIR verifier abort, no hang.
// Graph decoding and the importer are instrumented (coverage and ASan);
// MLIR's passes and LLVM run as the server runs them.
//
// Graphs are bounded so that one input compiles in well under a second:
// at most kMaxNodes nodes and small constants (GraphLimits, checked by
// validation before anything is imported). Nothing is linked or run.
//
//   build/bin/anyshape-fuzz-compile -max_total_time=600 CORPUS_DIR \
//       tests/fuzz/corpus/compile
//
// The first byte of an input picks the decoder (even: binary, odd: text),
// (tests/fuzz/FuzzedGraph.h).
#include "FuzzedGraph.h"
#include "compiler/Compiler.h"

#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>

namespace {

constexpr int64_t kMaxNodes = 24;

anyshape::compiler::CompileOptions smallCompiles() {
  anyshape::compiler::CompileOptions options;
  options.optLevel = 0; // the target is the import and MLIR's pipeline
  options.limits.maxNodes = kMaxNodes;
  options.limits.maxRank = 4;
  options.limits.maxInputs = 8;
  options.limits.maxElementsPerTensor = int64_t{1} << 20;
  options.limits.maxConstantBytes = int64_t{1} << 20;
  options.limits.maxEmbeddedConstantBytes = int64_t{64} << 10;
  options.limits.maxOperandsPerNode = 16;
  options.limits.maxDimExprTerms = 8;
  options.limits.maxDimExprDegree = 4;
  return options;
}

} // namespace

/// Protobuf logs every string field with invalid UTF-8 it parses: most
/// mutated inputs. Quiet, so that the log shows libFuzzer's progress.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace anyshape;
  std::optional<v1::Graph> graph = fuzz::decodeFuzzedGraph(data, size);
  if (!graph)
    return 0;
  static const compiler::CompileOptions options = smallCompiles();
  (void)compiler::Compiler::compileToObject(*graph, options);
  return 0;
}

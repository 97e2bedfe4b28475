// libFuzzer target: an ONNX model as a user uploads it (CompileOnnx, `anyshape
// eval model.onnx`), imported by frontend/onnx into a wire graph, which the
// importer validates; the small graphs it accepts are then compiled through
// the whole CPU pipeline to object code. Whatever the bytes, the importer
// must return a graph or an error naming what is wrong: no crash, no
// sanitizer report, no hang, no allocation sized by a field before it is
// checked; and what it returns must compile or be refused with a status.
// The importer, the graph builder and ir/graph are instrumented; MLIR's
// passes and LLVM run as the server runs them.
//
// Seeds are models ONNX Runtime ran, the op fixtures (tests/graphs/onnx/
// ops, a few nodes each) and the smallest zoo models, and the inputs that
// once failed (corpus/onnx), which the build gathers into one folder:
//
//   build/bin/anyshape-fuzz-onnx -max_total_time=600 CORPUS_DIR \
//       build/tests/fuzz/onnx_seeds
//
// Only binary ModelProto bytes: ONNX has no text format a user uploads.
#include "compiler/Compiler.h"
#include "frontend/onnx/OnnxImport.h"

#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

/// Compiling is what takes the time; graphs of more nodes than this are
/// imported and validated only.
constexpr int kMaxCompiledNodes = 24;

anyshape::compiler::CompileOptions smallCompiles() {
  anyshape::compiler::CompileOptions options;
  options.optLevel = 0; // the target is the import, not LLVM
  options.limits.maxNodes = 4 * kMaxCompiledNodes;
  options.limits.maxElementsPerTensor = int64_t{1} << 20;
  options.limits.maxConstantBytes = int64_t{1} << 20;
  options.limits.maxEmbeddedConstantBytes = int64_t{64} << 10;
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
  // No external data directory: a model naming a file is refused, as the
  // server refuses it.
  StatusOr<v1::Graph> graph =
      onnx::importOnnx(std::string(reinterpret_cast<const char *>(data), size));
  if (!graph.isOk() || graph->nodes_size() > kMaxCompiledNodes)
    return 0;
  static const compiler::CompileOptions options = smallCompiles();
  (void)compiler::Compiler::compileToObject(*graph, options);
  return 0;
}

// libFuzzer target: a graph as a client sends it, decoded and validated as
// the server does before anything is allocated for it (binary protobuf,
// as gRPC delivers it, or the text format the CLI reads), then
// fingerprinted as the compile cache keys it. Nothing may crash, trip a
// sanitizer, or run past libFuzzer's time and memory limits (the bounds
// of GraphLimits, docs/service.md).
//
//   build/bin/anyshape-fuzz-graph -max_total_time=600 CORPUS_DIR \
//       tests/fuzz/corpus/graph
//
// The first byte of an input picks the decoder (FuzzedGraph.h), so that
// one corpus covers both encodings.
#include "FuzzedGraph.h"
#include "ir/graph/Fingerprint.h"
#include "ir/graph/Validate.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace anyshape;
  std::optional<v1::Graph> graph = fuzz::decodeFuzzedGraph(data, size);
  if (!graph)
    return 0;
  auto info = validateGraph(*graph);
  if (info.isOk())
    (void)fingerprintGraph(*graph, *info);
  return 0;
}

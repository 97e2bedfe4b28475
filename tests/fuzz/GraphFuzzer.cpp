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
// The first byte of an input picks the decoder (even: binary, odd: text),
// so that one corpus covers both.
#include "ir/graph/Fingerprint.h"
#include "ir/graph/GraphText.h"
#include "ir/graph/Validate.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace anyshape;
  if (size == 0)
    return 0;
  const char *bytes = reinterpret_cast<const char *>(data) + 1;
  size_t length = size - 1;
  v1::Graph graph;
  if (data[0] & 1) {
    auto parsed = parseGraphText(std::string_view(bytes, length));
    if (!parsed.isOk())
      return 0;
    graph = std::move(*parsed);
  } else if (!graph.ParseFromArray(bytes, static_cast<int>(length))) {
    return 0;
  }
  auto info = validateGraph(graph);
  if (info.isOk())
    (void)fingerprintGraph(graph, *info);
  return 0;
}

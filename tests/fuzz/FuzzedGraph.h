// The graph decoding the graph-level fuzz targets share: the first byte
// of an input picks the decoder (even: binary protobuf, as gRPC delivers
// a graph; odd: the text format the CLI reads), so that one corpus covers
// both; the rest is the encoded graph.
#pragma once

#include "anyshape/v1/graph.pb.h"
#include "ir/graph/GraphText.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace anyshape::fuzz {

/// The graph `data` encodes, or nothing when it does not decode.
inline std::optional<v1::Graph> decodeFuzzedGraph(const uint8_t *data,
                                                  size_t size) {
  if (size == 0)
    return std::nullopt;
  const char *bytes = reinterpret_cast<const char *>(data) + 1;
  size_t length = size - 1;
  if (data[0] & 1) {
    auto parsed = parseGraphText(std::string_view(bytes, length));
    if (!parsed.isOk())
      return std::nullopt;
    return std::move(*parsed);
  }
  v1::Graph graph;
  if (!graph.ParseFromArray(bytes, static_cast<int>(length)))
    return std::nullopt;
  return graph;
}

} // namespace anyshape::fuzz

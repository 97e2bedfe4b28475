// Reading and writing graphs as files: protobuf text format (.pbtxt, the
// human-editable format) or binary (.pb). Parse errors carry line:column.
#pragma once

#include "anyshape/v1/graph.pb.h"
#include "runtime/support/Status.h"

#include <string>
#include <string_view>

namespace anyshape {

StatusOr<v1::Graph> parseGraphText(std::string_view text);
/// Loads FILE.pbtxt as text and anything else as binary protobuf.
StatusOr<v1::Graph> loadGraphFile(const std::string &path);
std::string graphToText(const v1::Graph &graph);
Status writeGraphFile(const v1::Graph &graph, const std::string &path);

} // namespace anyshape

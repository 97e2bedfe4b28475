// Graph file I/O over protobuf's text and binary parsers.
#include "GraphText.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <fstream>
#include <sstream>

namespace anyshape {
namespace {

// Protobuf refuses messages above 2 GiB; refuse earlier with a clear error.
constexpr int64_t kMaxGraphFileBytes = int64_t(2) << 30;

class CollectFirstError : public google::protobuf::io::ErrorCollector {
public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string &message) override {
    if (first.empty())
      first = std::to_string(line + 1) + ":" + std::to_string(column + 1) +
              ": " + message;
  }
  std::string first;
};

bool endsWith(const std::string &s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

StatusOr<v1::Graph> parseGraphText(std::string_view text) {
  google::protobuf::TextFormat::Parser parser;
  CollectFirstError errors;
  parser.RecordErrorsTo(&errors);
  v1::Graph graph;
  if (!parser.ParseFromString(std::string(text), &graph))
    return invalidArgument(
        "text format parse error at " +
        (errors.first.empty() ? std::string("?") : errors.first));
  return graph;
}

StatusOr<v1::Graph> loadGraphFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file)
    return notFound("cannot open '" + path + "'");
  std::streamoff size = file.tellg();
  if (size < 0 || size > kMaxGraphFileBytes)
    return invalidArgument("'" + path + "' is larger than 2 GiB");
  file.seekg(0);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (!file.read(bytes.data(), size))
    return invalidArgument("cannot read '" + path + "'");
  if (endsWith(path, ".pbtxt") || endsWith(path, ".txt")) {
    auto graph = parseGraphText(bytes);
    if (!graph)
      return graph.status().withContext(path);
    return graph;
  }
  v1::Graph graph;
  if (!graph.ParseFromString(bytes))
    return invalidArgument(path + ": not a binary anyshape.v1.Graph");
  return graph;
}

std::string graphToText(const v1::Graph &graph) {
  std::string text;
  google::protobuf::TextFormat::Printer printer;
  printer.PrintToString(graph, &text);
  return text;
}

Status writeGraphFile(const v1::Graph &graph, const std::string &path) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file)
    return notFound("cannot write '" + path + "'");
  if (endsWith(path, ".pbtxt") || endsWith(path, ".txt"))
    file << graphToText(graph);
  else if (!graph.SerializeToOstream(&file))
    return internalError("cannot serialise graph to '" + path + "'");
  return file ? Status::ok() : internalError("write to '" + path + "' failed");
}

} // namespace anyshape

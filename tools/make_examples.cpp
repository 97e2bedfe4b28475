// anyshape-make-examples: writes the graphs of examples/ from the C++ graph
// builder, so the .pbtxt files are reproducible and reviewed as code.
//
//   anyshape-make-examples OUTDIR
//   anyshape-make-examples --encoder-layers N FILE   (N stacked layers)
//
// The graphs themselves are built in examples/ExampleGraphs.cpp. Weights are
// SeededUniform constants: a few bytes in the file, the same values
// everywhere.
#include "examples/ExampleGraphs.h"
#include "ir/graph/GraphText.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

using namespace anyshape;

namespace {

int writeGraph(client::GraphBuilder &builder, const std::string &path) {
  auto graph = builder.build();
  if (!graph) {
    std::fprintf(stderr, "%s\n", graph.status().message().c_str());
    return 1;
  }
  if (Status s = writeGraphFile(*graph, path); !s.isOk()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  std::printf("wrote %s (%d nodes)\n", path.c_str(), graph->nodes_size());
  return 0;
}

/// `--encoder-layers N FILE`: BERT-base with N layers (12 is BERT-base's),
/// the graph of the compile-time benchmarks, as a file the CLI can run.
int writeEncoder(const char *layers, const char *path) {
  char *end = nullptr;
  long n = std::strtol(layers, &end, 10);
  if (*layers == '\0' || *end != '\0' || n < 1 || n > 48) {
    std::fprintf(stderr, "--encoder-layers: want 1..48, got '%s'\n", layers);
    return 2;
  }
  client::GraphBuilder builder("bert_encoder");
  examples::bertEncoder(builder, static_cast<int>(n));
  return writeGraph(builder, path);
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 4 && std::string(argv[1]) == "--encoder-layers")
    return writeEncoder(argv[2], argv[3]);
  if (argc != 2 || std::string(argv[1]) == "--help") {
    std::fprintf(argc == 2 ? stdout : stderr,
                 "usage: anyshape-make-examples OUTDIR\n"
                 "       anyshape-make-examples --encoder-layers N FILE\n"
                 "Writes mlp, bert_encoder_layer, elementwise_reduce and "
                 "embedding .pbtxt graphs into OUTDIR (created if "
                 "missing); or BERT-base with N stacked encoder layers "
                 "into FILE.\n");
    return argc == 2 ? 0 : 2;
  }
  std::error_code error;
  std::filesystem::create_directories(argv[1], error);
  if (error) {
    std::fprintf(stderr, "cannot create %s: %s\n", argv[1],
                 error.message().c_str());
    return 1;
  }
  for (const auto &[name, build] : examples::exampleGraphs()) {
    client::GraphBuilder builder(name);
    build(builder);
    if (int rc =
            writeGraph(builder, std::string(argv[1]) + "/" + name + ".pbtxt"))
      return rc;
  }
  return 0;
}

// anyshape-make-examples: writes the graphs of examples/ from the C++ graph
// builder, so the .pbtxt files are reproducible and reviewed as code.
//
//   anyshape-make-examples OUTDIR
//
// The graphs themselves are built in examples/ExampleGraphs.cpp. Weights are
// SeededUniform constants: a few bytes in the file, the same values
// everywhere.
#include "examples/ExampleGraphs.h"
#include "ir/graph/GraphText.h"

#include <cstdio>
#include <filesystem>

using namespace anyshape;

int main(int argc, char **argv) {
  if (argc != 2 || std::string(argv[1]) == "--help") {
    std::fprintf(argc == 2 ? stdout : stderr,
                 "usage: anyshape-make-examples OUTDIR\n"
                 "Writes mlp, bert_encoder_layer, elementwise_reduce and "
                 "embedding .pbtxt graphs into OUTDIR (created if "
                 "missing).\n");
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
    auto graph = builder.build();
    if (!graph) {
      std::fprintf(stderr, "%s: %s\n", name, graph.status().message().c_str());
      return 1;
    }
    std::string path = std::string(argv[1]) + "/" + name + ".pbtxt";
    if (Status s = writeGraphFile(*graph, path); !s.isOk()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      return 1;
    }
    std::printf("wrote %s (%d nodes)\n", path.c_str(), graph->nodes_size());
  }
  return 0;
}

// The benchmarks' one way to load a graph of examples/ by name:
// $ANYSHAPE_EXAMPLES_DIR when set (a binary run away from its tree, as
// scripts/gpu-check runs anyshape-bench-cuda), else the source tree's.
// Exits with the reason when the graph does not load.
#pragma once

#include "ir/graph/GraphText.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace anyshape::bench {

inline v1::Graph loadExampleOrDie(const std::string &name) {
  const char *moved = std::getenv("ANYSHAPE_EXAMPLES_DIR");
  std::string dir = moved && *moved
                        ? std::string(moved)
                        : std::string(ANYSHAPE_SOURCE_DIR) + "/examples";
  auto graph = loadGraphFile(dir + "/" + name + ".pbtxt");
  if (!graph) {
    std::fprintf(stderr, "%s\n", graph.status().toString().c_str());
    std::exit(1);
  }
  return *graph;
}

} // namespace anyshape::bench

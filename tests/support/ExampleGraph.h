// The graphs of examples/ by name ("mlp" for examples/mlp.pbtxt): the one
// way tests load them. A graph that does not load fails the test and
// comes back empty.
#pragma once

#include "ir/graph/GraphText.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace anyshape::test {

/// examples/ of the source tree; $ANYSHAPE_EXAMPLES_DIR when set (a test
/// binary run away from its tree: scripts/gpu-check).
inline std::string examplePath(const std::string &name) {
  const char *moved = std::getenv("ANYSHAPE_EXAMPLES_DIR");
  return (moved && *moved ? std::string(moved)
                          : std::string(ANYSHAPE_SOURCE_DIR) + "/examples") +
         "/" + name + ".pbtxt";
}

inline v1::Graph exampleGraph(const std::string &name) {
  auto graph = loadGraphFile(examplePath(name));
  EXPECT_TRUE(graph.isOk()) << graph.status().toString();
  return graph.isOk() ? *graph : v1::Graph();
}

} // namespace anyshape::test

// Shared helpers for the service unit tests: example graphs
// (tests/support/ExampleGraph.h), a stored executable for the cache tiers,
// scratch directories (tests/support/ScratchDir.h), and raw file edits
// used to damage cache entries on purpose.
#pragma once

#include "../../support/ExampleGraph.h"
#include "../../support/ScratchDir.h"
#include "ir/graph/GraphText.h"
#include "server/cache/CacheTier.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace anyshape::test {

/// An entry with recognisable bytes in every part; the object code holds
/// NULs and high bytes, as real object code does.
inline server::StoredExecutable
sampleStoredExecutable(const std::string &key, const std::string &tag = "a") {
  server::StoredExecutable entry;
  entry.compiledGraph = exampleGraph("elementwise_reduce");
  entry.info.set_executable_id(key);
  entry.info.set_kernel_count(3);
  entry.info.set_fusion_plan("plan " + tag);
  entry.objectCode = std::string("\x7f"
                                 "ELF\0\0\xff\x01 object ",
                                 16) +
                     tag;
  for (int k = 0; k < 1000; ++k)
    entry.objectCode.push_back(static_cast<char>(k * 7));
  return entry;
}

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline bool fileExists(const std::string &path) {
  return std::filesystem::exists(path);
}

} // namespace anyshape::test

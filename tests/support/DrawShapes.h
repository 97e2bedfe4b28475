// Random symbol bindings for differential tests: the one way tests draw
// the shapes they compare a compiled graph against the reference at.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace anyshape::test {

/// `count` bindings, each symbol drawn in [min, max] (its own range); the
/// first two bindings are the extremes.
inline std::vector<std::map<std::string, int64_t>>
drawShapes(const std::map<std::string, std::pair<int64_t, int64_t>> &ranges,
           int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::map<std::string, int64_t>> shapes;
  for (int i = 0; i < count; ++i) {
    std::map<std::string, int64_t> s;
    for (const auto &[name, range] : ranges) {
      std::uniform_int_distribution<int64_t> size(range.first, range.second);
      s[name] = i == 0 ? range.first : i == 1 ? range.second : size(rng);
    }
    shapes.push_back(std::move(s));
  }
  return shapes;
}

} // namespace anyshape::test

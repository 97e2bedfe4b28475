// Scratch directories for tests: fresh under the system temp dir and
// removed with everything in them, so that a suite run leaves nothing in
// /tmp (a server's cache directory, and the cache key it writes beside
// it, included).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace anyshape::test {

/// A fresh directory, removed when the object goes.
class ScratchDir {
public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "anyshape-test-XXXXXX")
            .string();
    if (::mkdtemp(pattern.data()) == nullptr)
      ADD_FAILURE() << "mkdtemp failed for " << pattern;
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;

  const std::string &path() const { return path_; }
  std::string operator/(const std::string &name) const {
    return path_ + "/" + name;
  }

private:
  std::string path_;
};

/// A path no file has yet, in a fresh directory of its own, all removed
/// when the test program exits: for what a test hands to a server process
/// that may outlive the test's scope (a cache directory, whose key the
/// server writes beside it).
inline std::string freshPath(const std::string &name = "cache") {
  static ScratchDir root;
  static std::atomic<int> made{0};
  std::string dir = root / std::to_string(made++);
  std::error_code error;
  std::filesystem::create_directory(dir, error);
  if (error)
    ADD_FAILURE() << "cannot create " << dir << ": " << error.message();
  return dir + "/" + name;
}

} // namespace anyshape::test

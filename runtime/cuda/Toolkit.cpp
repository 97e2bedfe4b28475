// Where the CUDA toolkit's files are (Toolkit.h).
#include "runtime/cuda/Toolkit.h"

#include <cstdlib>
#include <dlfcn.h>

namespace anyshape::runtime::cuda {

std::vector<std::string> toolkitPaths(const std::string &relative) {
  std::vector<std::string> paths;
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    paths.push_back(std::string(home) + "/" + relative);
  paths.push_back("/usr/local/cuda/" + relative);
  return paths;
}

ToolkitLibrary openToolkitLibrary(const std::string &soname,
                                  const char *overrideVariable,
                                  const std::string &what) {
  std::vector<std::string> candidates;
  const char *override =
      overrideVariable ? std::getenv(overrideVariable) : nullptr;
  if (override && *override) {
    candidates = {override};
  } else {
    candidates = {soname};
    for (std::string &path : toolkitPaths("lib64/" + soname))
      candidates.push_back(std::move(path));
  }
  ToolkitLibrary library;
  for (const std::string &candidate : candidates)
    if ((library.handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      library.path = candidate;
      return library;
    }
  const char *why = dlerror();
  library.error = "no " + what + ": " + candidates.front() +
                  " could not be loaded (" + (why ? why : "not found") +
                  "); set CUDA_HOME or LD_LIBRARY_PATH";
  return library;
}

} // namespace anyshape::runtime::cuda

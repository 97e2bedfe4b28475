//===- NvJitLink.cpp - PTX to cubin in this process -------------*- C++ -*-===//
//
// libnvJitLink through dlopen and one X-macro table of the entry points
// used; the handle and result types are declared here (the ABI is the C
// one of nvJitLink.h: an opaque handle, int results, 0 for success), so
// building needs no CUDA header either.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/NvJitLink.h"
#include "runtime/cuda/Toolkit.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <regex>
#include <vector>

namespace anyshape::runtime::cuda {

namespace {

using Handle = struct nvJitLinkOpaque *;
using Result = int;          // NVJITLINK_SUCCESS = 0
constexpr int kInputPtx = 2; // NVJITLINK_INPUT_PTX

#define ANYSHAPE_NVJITLINK_ENTRIES(X)                                          \
  X(nvJitLinkCreate, (Handle *, uint32_t, const char **))                      \
  X(nvJitLinkDestroy, (Handle *))                                              \
  X(nvJitLinkAddData, (Handle, int, const void *, size_t, const char *))       \
  X(nvJitLinkComplete, (Handle))                                               \
  X(nvJitLinkGetLinkedCubinSize, (Handle, size_t *))                           \
  X(nvJitLinkGetLinkedCubin, (Handle, void *))                                 \
  X(nvJitLinkGetErrorLogSize, (Handle, size_t *))                              \
  X(nvJitLinkGetErrorLog, (Handle, char *))                                    \
  X(nvJitLinkGetInfoLogSize, (Handle, size_t *))                               \
  X(nvJitLinkGetInfoLog, (Handle, char *))                                     \
  X(nvJitLinkVersion, (unsigned *, unsigned *))

struct Library {
#define ANYSHAPE_DECLARE(name, params) Result(*name) params = nullptr;
  ANYSHAPE_NVJITLINK_ENTRIES(ANYSHAPE_DECLARE)
#undef ANYSHAPE_DECLARE
  std::string error; ///< why it did not load; empty when loaded
};

/// The library, loaded once: first as the dynamic loader finds it, then
/// from the toolkit (Toolkit.h).
const Library &library() {
  static Library lib = [] {
    Library l;
    ToolkitLibrary opened = openToolkitLibrary("libnvJitLink.so.13", nullptr,
                                               "nvJitLink (CUDA 13 toolkit)");
    if (!opened.handle) {
      l.error = opened.error;
      return l;
    }
    void *handle = opened.handle;
#define ANYSHAPE_RESOLVE(name, params)                                         \
  l.name = reinterpret_cast<Result(*) params>(dlsym(handle, #name));           \
  if (!l.name && l.error.empty())                                              \
    l.error = "libnvJitLink.so.13 lacks " #name;
    ANYSHAPE_NVJITLINK_ENTRIES(ANYSHAPE_RESOLVE)
#undef ANYSHAPE_RESOLVE
    return l;
  }();
  return lib;
}

std::string log(const Library &lib, Handle handle, bool info) {
  size_t size = 0;
  if ((info ? lib.nvJitLinkGetInfoLogSize(handle, &size)
            : lib.nvJitLinkGetErrorLogSize(handle, &size)) != 0 ||
      size == 0)
    return "";
  std::string text(size, '\0');
  if ((info ? lib.nvJitLinkGetInfoLog(handle, text.data())
            : lib.nvJitLinkGetErrorLog(handle, text.data())) != 0)
    return "";
  while (!text.empty() && text.back() == '\0')
    text.pop_back();
  return text;
}

} // namespace

std::string cubinLinkerVersion() {
  const Library &lib = library();
  unsigned major = 0, minor = 0;
  if (!lib.error.empty() || lib.nvJitLinkVersion(&major, &minor) != 0)
    return "ptxas"; // the fallback: the toolkit's assembler
  return "nvJitLink " + std::to_string(major) + "." + std::to_string(minor);
}

KernelResources parseKernelResources(std::string_view log) {
  KernelResources r;
  std::string text(log);
  std::smatch m;
  auto number = [&](const char *pattern, int64_t &into) {
    if (std::regex_search(text, m, std::regex(pattern)))
      into = std::stoll(m[1].str());
  };
  int64_t registers = 0;
  number(R"(Used (\d+) registers)", registers);
  r.registers = static_cast<int>(registers);
  number(R"((\d+) bytes spill stores)", r.spillStoreBytes);
  number(R"((\d+) bytes spill loads)", r.spillLoadBytes);
  number(R"((\d+) bytes stack frame)", r.stackFrameBytes);
  number(R"((\d+) bytes smem)", r.sharedBytes);
  return r;
}

namespace {

std::string readWholeFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// ptxas's path: the toolkit's, else the bare name for PATH to find.
std::string ptxasPath() {
  for (const std::string &path : toolkitPaths("bin/ptxas"))
    if (access(path.c_str(), X_OK) == 0)
      return path;
  return "ptxas";
}

} // namespace

StatusOr<LinkedCubin> assembleWithPtxas(std::string_view ptx,
                                        const std::string &chip) {
  while (!ptx.empty() && ptx.back() == '\0')
    ptx.remove_suffix(1);
  const char *tmp = std::getenv("TMPDIR");
  std::string dir =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/anyshape-ptxas-XXXXXX";
  // Messages name files inside `dir` by their own names only: a client
  // reads them, and the server's paths are not the client's business.
  if (!mkdtemp(dir.data()))
    return internalError(std::string("ptxas: cannot create its scratch "
                                     "directory in TMPDIR: ") +
                         std::strerror(errno));
  std::string input = dir + "/kernel.ptx", output = dir + "/kernel.cubin",
              logPath = dir + "/ptxas.log";
  std::ofstream(input, std::ios::binary) << ptx;
  std::string tool = ptxasPath();
  std::vector<std::string> args = {tool, "-arch=" + chip, "-O3", "-v",
                                   "-o", output,          input};
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  // ptxas's report (stdout and stderr) goes to the log file.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, logPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int spawned =
      posix_spawnp(&pid, tool.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (spawned == 0)
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      // a signal (the server's SIGTERM) is not ptxas ending
    }
  LinkedCubin linked;
  linked.assembler = "ptxas";
  linked.log = readWholeFile(logPath);
  for (size_t at; (at = linked.log.find(dir + "/")) != std::string::npos;)
    linked.log.erase(at, dir.size() + 1);
  linked.cubin = readWholeFile(output);
  for (const std::string &path : {input, output, logPath})
    std::remove(path.c_str());
  rmdir(dir.c_str());
  if (spawned != 0)
    return Status(StatusCode::FailedPrecondition,
                  "neither libnvJitLink.so.13 nor ptxas (CUDA 13 toolkit) "
                  "found: set CUDA_HOME");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || linked.cubin.empty())
    return internalError("ptxas rejected the PTX for " + chip + ": " +
                         linked.log);
  linked.resources = parseKernelResources(linked.log);
  return linked;
}

StatusOr<LinkedCubin> linkPtxToCubin(std::string_view ptx,
                                     const std::string &chip) {
  const Library &lib = library();
  if (!lib.error.empty())
    return assembleWithPtxas(ptx, chip);
  while (!ptx.empty() && ptx.back() == '\0')
    ptx.remove_suffix(1);
  std::string arch = "-arch=" + chip;
  const char *options[] = {arch.c_str(), "-O3", "-verbose"};
  Handle handle = nullptr;
  if (lib.nvJitLinkCreate(&handle, 3, options) != 0)
    return internalError("nvJitLinkCreate failed for " + arch);
  struct Destroy {
    const Library &lib;
    Handle &handle;
    ~Destroy() { lib.nvJitLinkDestroy(&handle); }
  } destroy{lib, handle};
  if (lib.nvJitLinkAddData(handle, kInputPtx, ptx.data(), ptx.size(),
                           "kernel.ptx") != 0 ||
      lib.nvJitLinkComplete(handle) != 0)
    return internalError("nvJitLink rejected the PTX for " + chip + ": " +
                         log(lib, handle, /*info=*/false));
  size_t size = 0;
  if (lib.nvJitLinkGetLinkedCubinSize(handle, &size) != 0)
    return internalError("nvJitLinkGetLinkedCubinSize failed");
  LinkedCubin linked;
  linked.assembler = "nvJitLink";
  linked.cubin.resize(size);
  if (lib.nvJitLinkGetLinkedCubin(handle, linked.cubin.data()) != 0)
    return internalError("nvJitLinkGetLinkedCubin failed");
  linked.log = log(lib, handle, /*info=*/true);
  linked.resources = parseKernelResources(linked.log);
  return linked;
}

} // namespace anyshape::runtime::cuda

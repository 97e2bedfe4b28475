// One compile in a worker process (WorkerMain.h). Anything the compiler
// prints goes to stderr (the server keeps its tail for the error): stdout
// is moved to a private descriptor first, so that no stray write can
// corrupt the result.
#include "server/worker/WorkerMain.h"

#include "server/Io.h"
#include "server/cache/CacheKey.h"
#include "server/worker/CompileJob.h"
#include "server/worker/WorkerProtocol.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <new>
#include <thread>
#include <unistd.h>
#include <vector>

namespace anyshape::server {
namespace {

class JobTensors : public TensorLookup {
public:
  const v1::Tensor *find(const std::string &id) const override {
    auto it = tensors.find(id);
    return it == tensors.end() ? nullptr : &it->second;
  }
  std::map<std::string, v1::Tensor> tensors;
};

/// Test-only misbehaviour (anyshape-server --testing-compile-faults), to
/// show each is that request's error and nothing more.
void misbehave(const std::string &fault) {
  if (fault == "abort") {
    // As a failed assertion would: it names a source file of the server's.
    std::fprintf(stderr,
                 "anyshape-compile-worker: /build/anyshape/jit/Fake.cpp:1: "
                 "testing: Assertion failed.\n");
    std::abort();
  }
  if (fault == "spin")
    for (volatile uint64_t i = 0;; i = i + 1) {
    }
  if (fault == "sleep")
    for (;;)
      std::this_thread::sleep_for(std::chrono::hours(1));
  if (fault == "allocate") {
    // Until the address-space limit refuses: bad_alloc, caught below.
    std::vector<std::vector<char>> blocks;
    for (;;)
      blocks.emplace_back(size_t{64} << 20, '\1');
  }
}

} // namespace

int runCompileWorker() {
  int resultFd = ::dup(1);
  ::dup2(2, 1);
  v1::CompileJob job;
  constexpr uint64_t kMaxMessage = (uint64_t{1} << 31) - 1; // protobuf's
  Status read = readFramed(0, job, kMaxMessage);
  JobTensors tensors;
  for (int k = 0; read.isOk() && k < job.stored_tensor_ids_size(); ++k)
    read =
        readFramed(0, tensors.tensors[job.stored_tensor_ids(k)], kMaxMessage);
  if (!read.isOk()) {
    std::fprintf(stderr, "compile worker: reading the job: %s\n",
                 read.message().c_str());
    return 3;
  }
  if (!writeAll(resultFd, std::string(1, kJobReceived), "the job's receipt")
           .isOk())
    return 4;
  if (job.testing_delay_ms() > 0)
    std::this_thread::sleep_for(
        std::chrono::milliseconds(job.testing_delay_ms()));
  v1::CompileJobResult result;
  result.set_compiler_identity(compilerIdentity());
  try {
    misbehave(job.testing_fault());
    compiler::CompileReport report;
    GraphLimits limits;
    if (job.max_elements_per_tensor() > 0)
      limits.maxElementsPerTensor = job.max_elements_per_tensor();
    StatusOr<StoredExecutable> compiled =
        compileForCache(job.request(), job.key(), &tensors, limits, &report);
    if (compiled.isOk()) {
      *result.mutable_compiled_graph() = std::move(compiled->compiledGraph);
      *result.mutable_info() = std::move(compiled->info);
      result.set_object_code(std::move(compiled->objectCode));
      if (compiled->device)
        *result.mutable_device() = deviceCodeToProto(*compiled->device);
      result.set_compile_seconds(report.seconds);
    } else {
      result.set_code(static_cast<int>(compiled.status().code()));
      result.set_message(compiled.status().message());
    }
  } catch (const std::bad_alloc &) {
    result = v1::CompileJobResult();
    result.set_compiler_identity(compilerIdentity());
    result.set_code(static_cast<int>(StatusCode::ResourceExhausted));
    result.set_message("the compile needed more memory than a compile "
                       "worker may use (--compile-memory-bytes)");
  }
  if (job.testing_fault() == "foreign-build")
    result.set_compiler_identity("a worker of another build");
  std::string out;
  appendFramed(result, out);
  Status written = writeAll(resultFd, out, "the result");
  return written.isOk() ? 0 : 4;
}

} // namespace anyshape::server

//===- Executable.h - a compiled graph --------------------------*- C++ -*-===//
//
// The object code of one graph, linked into this process, plus what is
// needed to call it: the graph as compiled (its entry checks every call's
// shapes against all of the graph's shape rules before any data is
// touched, so no kernel ever sees inconsistent sizes; the graph names what
// failed) and each output's dtype and rank. run() is
// safe to call from many threads at once: it keeps no per-call state in
// the object. The object code stays available, so the compile cache can
// store it and load() can rebuild the executable without compiling.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "anyshape/v1/graph.pb.h"
#include "ir/graph/Limits.h"
#include "ir/graph/Validate.h"
#include "runtime/support/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace anyshape::jit {

class LoadedObject;

struct TensorSignature {
  v1::DType dtype;
  int64_t rank;
};

/// Outputs as the generated code produced them: buffers of the runtime
/// allocator (strided views), freed when this object is destroyed.
class OutputBuffers {
public:
  struct Buffer {
    v1::DType dtype;
    std::vector<int64_t> shape, strides; // strides in elements
    const char *data;                    // first element
    void *allocated;                     // what anyshapeFree takes
  };
  OutputBuffers() = default;
  OutputBuffers(OutputBuffers &&other) noexcept;
  OutputBuffers &operator=(OutputBuffers &&other) noexcept;
  OutputBuffers(const OutputBuffers &) = delete;
  OutputBuffers &operator=(const OutputBuffers &) = delete;
  ~OutputBuffers();

  const std::vector<Buffer> &buffers() const { return buffers_; }
  void add(Buffer buffer) { buffers_.push_back(std::move(buffer)); }
  /// Contiguous copies as wire tensors.
  std::vector<v1::Tensor> toTensors() const;

private:
  void release();
  std::vector<Buffer> buffers_;
};

/// How one run executes (the execution context it gets:
/// runtime/ExecutionContext.h).
struct RunOptions {
  /// Threads of the run's parallel kernels and GEMMs; 0 takes the calling
  /// thread's OpenMP team size (the server sets it per execute thread).
  int64_t teamSize = 0;
};

class Executable {
public:
  /// Links `objectCode` (from Compiler::compile, possibly via a cache)
  /// for `compiledGraph` — the graph after static specialisation, as
  /// graph() returns it. Never compiles.
  /// `limits` must be the ones it was compiled under
  /// (CompileOptions::limits): failed checks are reported with them.
  static StatusOr<std::shared_ptr<Executable>>
  load(v1::Graph compiledGraph, std::string objectCode,
       const GraphLimits &limits = {});
  /// As load, with the graph's validation already done (a fresh compile's
  /// CompiledObject::info), so it is not repeated.
  static StatusOr<std::shared_ptr<Executable>>
  load(v1::Graph compiledGraph, GraphInfo info, std::string objectCode,
       const GraphLimits &limits = {});
  ~Executable();

  /// Runs on `inputs` (in graph input order); outputs in graph output
  /// order. Shape mismatches are INVALID_ARGUMENT naming the input and dim.
  StatusOr<std::vector<v1::Tensor>> run(const std::vector<v1::Tensor> &inputs,
                                        const RunOptions &options = {}) const;
  /// As above, without copying inputs held elsewhere (the server's
  /// requests and tensor store). No pointer may be null.
  StatusOr<std::vector<v1::Tensor>>
  run(const std::vector<const v1::Tensor *> &inputs,
      const RunOptions &options = {}) const;
  /// The same checks and code, leaving the outputs in the buffers the
  /// generated code wrote (no copy into wire tensors). Runs with different
  /// options may run at once.
  StatusOr<OutputBuffers>
  runToBuffers(const std::vector<const v1::Tensor *> &inputs,
               const RunOptions &options = {}) const;

  const v1::Graph &graph() const { return graph_; }
  /// The relocatable object the executable runs (ObjectCode.h).
  const std::string &objectCode() const { return objectCode_; }

private:
  Executable(v1::Graph graph, GraphInfo info, GraphLimits limits,
             std::vector<TensorSignature> outputs, std::string objectCode,
             std::unique_ptr<LoadedObject> code);

  v1::Graph graph_;
  GraphInfo info_;     // of graph_: what each failed check code means
  GraphLimits limits_; // what it was compiled and validated under
  std::vector<TensorSignature> outputs_;
  std::string objectCode_;
  std::unique_ptr<LoadedObject> code_;
  /// The entry, looked up once at load: runs take no JIT lock.
  int64_t (*entry_)(void *, void **) = nullptr;
};

} // namespace anyshape::jit

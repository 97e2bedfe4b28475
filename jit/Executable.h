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
#include "runtime/cuda/CudaLaunch.h"
#include "runtime/support/Status.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace anyshape::jit {

class LoadedObject;

struct TensorSignature {
  v1::DType dtype;
  int64_t rank;
};

/// Outputs as the generated code produced them: buffers of the runtime
/// allocator (strided views; on CUDA, the pinned blocks they were copied
/// back into), freed when this object is destroyed.
class OutputBuffers {
public:
  struct Buffer {
    v1::DType dtype;
    std::vector<int64_t> shape, strides; // strides in elements
    const char *data;                    // first element
    void *allocated; // what anyshapeFree takes, unless `release` is set
    /// Frees `allocated` instead: release(owner, allocated, bytes) (a
    /// CUDA run's pinned staging block, back to its device's pool). Plain
    /// fields, not a std::function: every run of every executable moves
    /// and destroys its outputs' Buffers (the tiny graph's run took 4%
    /// longer with one).
    void (*release)(void *owner, void *allocated, int64_t bytes) = nullptr;
    void *owner = nullptr;
    int64_t bytes = 0;
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

/// Where an executable's generated code runs: everything on this CPU, or
/// a host flow here launching kernels on a CUDA device.
enum class Target { kCpu, kCuda };

/// A CUDA executable's device half: its kernel images (possibly none,
/// when every op of the graph is a view or a copy).
struct DeviceCode {
  std::vector<runtime::cuda::KernelImage> kernels;
  /// Constants its host flow uploads (the compiler reads
  /// codegen::kCudaConstantsAttr).
  int64_t constants = 0;
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
  /// `device` (a CUDA executable's kernels) is loaded onto the device
  /// here; without a device the executable still loads, and each run is
  /// FailedPrecondition saying why.
  static StatusOr<std::shared_ptr<Executable>>
  load(v1::Graph compiledGraph, std::string objectCode,
       const GraphLimits &limits = {},
       std::optional<DeviceCode> device = std::nullopt);
  /// As load, with the graph's validation already done (a fresh compile's
  /// CompiledObject::info), so it is not repeated.
  static StatusOr<std::shared_ptr<Executable>>
  load(v1::Graph compiledGraph, GraphInfo info, std::string objectCode,
       const GraphLimits &limits = {},
       std::optional<DeviceCode> device = std::nullopt);
  ~Executable();

  /// Runs on zeros with every symbol 1, then 2, then 8, and drops the
  /// results: what a first run pays once (weight packs for the GEMM
  /// library, its primitives, the thread team, the allocator's first
  /// blocks) is paid here, at load, not by the first request. Size 1 takes
  /// the single-row GEMMs (a decode step), 2 makes the packs, 8 the
  /// parallel kernel versions. An error says why a run could not happen
  /// (an anonymous input dim, shape rules that refuse the size, no
  /// device); the executable is as usable as before.
  Status warmUp() const;

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
  /// What validation learned about graph().
  const GraphInfo &info() const { return info_; }
  /// The relocatable object the executable runs (ObjectCode.h).
  const std::string &objectCode() const { return objectCode_; }
  Target target() const { return device_ ? Target::kCuda : Target::kCpu; }
  /// A CUDA executable's device half, as load() took it.
  const std::optional<DeviceCode> &deviceCode() const { return device_; }
  /// Times a CUDA executable's runs on the device (on: totals cleared):
  /// each launch and GEMM between two CUDA events, for benchmarks; untimed
  /// runs record nothing. FailedPrecondition on the CPU, without a device,
  /// or with a driver that has no events.
  Status timeDevice(bool on) const;
  /// Device time per kernel and for the GEMMs, summed over the runs since
  /// timeDevice(true); empty when none ran.
  std::vector<runtime::cuda::DeviceTime> deviceTimes() const;
  /// A CUDA executable's kernel images; empty on the CPU.
  const std::vector<runtime::cuda::KernelImage> &deviceKernels() const {
    static const std::vector<runtime::cuda::KernelImage> none;
    return device_ ? device_->kernels : none;
  }

private:
  Executable(v1::Graph graph, GraphInfo info, GraphLimits limits,
             std::vector<TensorSignature> outputs, std::string objectCode,
             std::unique_ptr<LoadedObject> code);
  /// Checks each input's dtype, rank and byte size; their shapes.
  StatusOr<std::vector<std::vector<int64_t>>>
  checkInputs(const std::vector<const v1::Tensor *> &inputs) const;
  /// Runs the entry on input k at `data(k)` (host or device memory, as
  /// the executable's target needs) with `context`, handing `output` each
  /// output as generated code returned it; or the failed shape check's
  /// error. (Callbacks, not vectors: the CPU path allocates nothing more
  /// than the descriptors.)
  Status
  callEntry(llvm::function_ref<const void *(size_t)> data,
            const std::vector<std::vector<int64_t>> &shapes,
            runtime::AnyshapeExecutionContext &context,
            llvm::function_ref<void(OutputBuffers::Buffer)> output) const;
  /// A CUDA executable's run (CudaExecution.cpp): inputs staged to the
  /// device, the entry launching on a stream of its own, outputs back.
  StatusOr<OutputBuffers>
  runOnDevice(const std::vector<const std::string *> &inputBytes,
              const std::vector<std::vector<int64_t>> &shapes) const;

  v1::Graph graph_;
  GraphInfo info_;     // of graph_: what each failed check code means
  GraphLimits limits_; // what it was compiled and validated under
  std::vector<TensorSignature> outputs_;
  std::string objectCode_;
  std::unique_ptr<LoadedObject> code_;
  /// The entry, looked up once at load: runs take no JIT lock.
  int64_t (*entry_)(void *, void **) = nullptr;
  std::optional<DeviceCode> device_; ///< set: a CUDA executable
  /// The device half, loaded; null on the CPU or when no device could
  /// take it (deviceError_ says why).
  std::unique_ptr<runtime::cuda::LoadedKernels> loadedKernels_;
  Status deviceError_;
};

} // namespace anyshape::jit

//===- Executable.cpp - calling the JITed entry ----------------*- C++ -*-===//
//
// The entry (ObjectCode.h) takes one ranked memref descriptor per input
// {allocated, aligned, offset, sizes[r], strides[r]} and returns a struct
// of one descriptor per output through its first argument; every field is
// 8 bytes, so descriptors are built and read as int64 words. Outputs are
// fresh buffers of the runtime allocator (CpuPipeline.cpp's entry ABI)
// that this file copies out and frees.
//
//===----------------------------------------------------------------------===//
#include "jit/Executable.h"

#include "ir/graph/Bindings.h"
#include "ir/graph/DType.h"
#include "ir/graph/IndexCheck.h"

#include "jit/LoadedObject.h"
#include "runtime/Abi.h"
#include "runtime/Allocator.h"
#include "runtime/ExecutionContext.h"
#include "runtime/Threading.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <csetjmp>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <unordered_set>

namespace anyshape::jit {
namespace {

/// Appends a dense row-major array's strides (in elements) for `shape`.
void appendRowMajorStrides(const std::vector<int64_t> &shape,
                           llvm::SmallVectorImpl<int64_t> &out) {
  size_t first = out.size();
  out.resize(first + shape.size());
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    out[first + d] = stride;
    stride *= shape[d];
  }
}

/// Copies a (possibly strided) result buffer into contiguous bytes.
void copyOut(const char *base, const std::vector<int64_t> &shape,
             const std::vector<int64_t> &strides, int64_t elementSize,
             std::string &out) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  auto bytes = static_cast<size_t>(count * elementSize);
  if (count == 0) {
    out.clear();
    return;
  }
  llvm::SmallVector<int64_t, 8> dense;
  appendRowMajorStrides(shape, dense);
  if (llvm::ArrayRef<int64_t>(strides) == llvm::ArrayRef<int64_t>(dense)) {
    // One pass: resize() would first write zeros over every byte.
    out.assign(base, bytes);
    return;
  }
  out.resize(bytes);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      offset += index[d] * strides[d];
    std::memcpy(out.data() + k * elementSize, base + offset * elementSize,
                elementSize);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// The run's allocator, wrapped so that what is live when a run stops
/// mid-way (a failed rule on a count) can be freed. Kernels may allocate
/// from several threads (the CUDA emulation's blocks do).
struct TrackedAllocations {
  void *(*alloc)(void *, uint64_t, uint64_t);
  void (*free)(void *, void *);
  void *allocator;
  std::mutex mutex;
  std::unordered_set<void *> live;

  static void *allocate(void *self, uint64_t alignment, uint64_t size) {
    auto *t = static_cast<TrackedAllocations *>(self);
    void *pointer = t->alloc(t->allocator, alignment, size);
    if (pointer) {
      std::lock_guard<std::mutex> lock(t->mutex);
      t->live.insert(pointer);
    }
    return pointer;
  }
  static void release(void *self, void *pointer) {
    auto *t = static_cast<TrackedAllocations *>(self);
    {
      std::lock_guard<std::mutex> lock(t->mutex);
      t->live.erase(pointer);
    }
    t->free(t->allocator, pointer);
  }
};

/// Calls `entry` so that a failed rule on a count (runtime/SizeChecks.h)
/// stops it: the runtime jumps back here, and everything the run had
/// allocated, its outputs included, is freed. Returns the entry's result,
/// or 0 when stopped (the context says which rule failed).
int64_t callStoppable(EntryFunction entry,
                      runtime::AnyshapeExecutionContext &context, void **args) {
  TrackedAllocations tracked;
  tracked.alloc = context.alloc;
  tracked.free = context.free;
  tracked.allocator = context.allocator;
  context.alloc = &TrackedAllocations::allocate;
  context.free = &TrackedAllocations::release;
  context.allocator = &tracked;
  std::jmp_buf stop;
  context.stopRun = &stop;
  // Assigned only when the entry returns, so the value a longjmp finds
  // is the one set before setjmp.
  volatile int64_t result = 0;
  if (setjmp(stop) == 0) {
    result = entry(&context, args);
  } else {
    for (void *pointer : tracked.live)
      tracked.free(tracked.allocator, pointer);
  }
  context.alloc = tracked.alloc;
  context.free = tracked.free;
  context.allocator = tracked.allocator;
  context.stopRun = nullptr;
  return result;
}

} // namespace

Executable::Executable(v1::Graph graph, GraphInfo info, GraphLimits limits,
                       std::vector<TensorSignature> outputs,
                       std::string objectCode,
                       std::unique_ptr<LoadedObject> code)
    : graph_(std::move(graph)), info_(std::move(info)), limits_(limits),
      outputs_(std::move(outputs)), objectCode_(std::move(objectCode)),
      code_(std::move(code)), entry_(code_->entry()) {}

StatusOr<std::shared_ptr<Executable>>
Executable::load(v1::Graph compiledGraph, std::string objectCode,
                 const GraphLimits &limits, std::optional<DeviceCode> device) {
  ANYSHAPE_ASSIGN_OR_RETURN(GraphInfo info,
                            validateGraph(compiledGraph, limits));
  return load(std::move(compiledGraph), std::move(info), std::move(objectCode),
              limits, std::move(device));
}

StatusOr<std::shared_ptr<Executable>>
Executable::load(v1::Graph compiledGraph, GraphInfo info,
                 std::string objectCode, const GraphLimits &limits,
                 std::optional<DeviceCode> device) {
  std::vector<TensorSignature> outputs;
  for (const std::string &name : compiledGraph.outputs()) {
    const SymTensorType &type = info.typeOf(info.values.at(name));
    outputs.push_back({type.dtype, type.rank()});
  }
  ANYSHAPE_ASSIGN_OR_RETURN(std::unique_ptr<LoadedObject> code,
                            LoadedObject::load(objectCode));
  // A CUDA host flow without its kernels would launch with a CPU context;
  // a CPU object with device code is just as wrong.
  bool cudaObject = code->lookup(abi::kCudaExecutableMarker) != nullptr;
  if (cudaObject != device.has_value())
    return invalidArgument(cudaObject
                               ? "a CUDA executable's object code without "
                                 "its device code"
                               : "device code for a CPU executable");
  std::shared_ptr<Executable> executable(new Executable(
      std::move(compiledGraph), std::move(info), limits, std::move(outputs),
      std::move(objectCode), std::move(code)));
  if (!device)
    return executable;
  // A fake driver runs each kernel's emulation, when the compile made
  // them (CudaPipelineOptions::emulatedKernels; tests only).
  std::vector<runtime::cuda::EmulatedKernel> emulations;
  for (const runtime::cuda::KernelImage &image : device->kernels)
    if (void *emulation =
            executable->code_->lookup(image.name + abi::kEmulatedKernelSuffix))
      emulations.push_back(
          reinterpret_cast<runtime::cuda::EmulatedKernel>(emulation));
  if (emulations.size() != device->kernels.size())
    emulations.clear();
  // Loaded once here, so that no run looks anything up.
  StatusOr<runtime::cuda::CudaDevice *> gpu = runtime::cuda::CudaDevice::get();
  StatusOr<std::unique_ptr<runtime::cuda::LoadedKernels>> loaded =
      gpu.isOk() ? runtime::cuda::LoadedKernels::load(
                       **gpu, device->kernels, device->constants, emulations)
                 : StatusOr<std::unique_ptr<runtime::cuda::LoadedKernels>>(
                       gpu.status());
  if (loaded.isOk())
    executable->loadedKernels_ = std::move(*loaded);
  else if (loaded.status().code() == StatusCode::FailedPrecondition)
    executable->deviceError_ = Status(
        StatusCode::FailedPrecondition,
        "this executable runs on a CUDA device, and this process has none: " +
            loaded.status().message());
  else
    return loaded.status();
  executable->device_ = std::move(device);
  return executable;
}

Executable::~Executable() = default;

Status Executable::warmUp() const {
  // Each size a first request would otherwise be the first to run
  // (Executable.h); small, so that a large model's load stays cheap.
  for (int64_t size : {1, 2, 8}) {
    std::map<std::string, int64_t> symbols;
    for (const v1::Input &input : graph_.inputs())
      for (const v1::Dim &dim : input.type().dims())
        if (dim.kind_case() == v1::Dim::kSymbol)
          symbols[dim.symbol()] = size;
    ANYSHAPE_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> shapes,
                              inputShapesFor(graph_, symbols, limits_));
    std::vector<v1::Tensor> zeros(shapes.size());
    for (size_t k = 0; k < shapes.size(); ++k) {
      v1::DType dtype = graph_.inputs(static_cast<int>(k)).type().dtype();
      int64_t count = 1;
      for (int64_t extent : shapes[k]) {
        count *= extent;
        zeros[k].add_shape(extent);
      }
      zeros[k].set_dtype(dtype);
      zeros[k].mutable_data()->assign(
          static_cast<size_t>(count * dtypeByteSize(dtype)), '\0');
    }
    ANYSHAPE_RETURN_IF_ERROR(run(zeros).status());
  }
  return Status::ok();
}

StatusOr<std::vector<v1::Tensor>>
Executable::run(const std::vector<v1::Tensor> &inputs,
                const RunOptions &options) const {
  std::vector<const v1::Tensor *> pointers;
  for (const v1::Tensor &t : inputs)
    pointers.push_back(&t);
  return run(pointers, options);
}

OutputBuffers::OutputBuffers(OutputBuffers &&other) noexcept
    : buffers_(std::move(other.buffers_)) {
  other.buffers_.clear();
}

OutputBuffers &OutputBuffers::operator=(OutputBuffers &&other) noexcept {
  if (this != &other) {
    release();
    buffers_ = std::move(other.buffers_);
    other.buffers_.clear();
  }
  return *this;
}

OutputBuffers::~OutputBuffers() { release(); }

void OutputBuffers::release() {
  for (Buffer &b : buffers_)
    if (b.release)
      b.release(b.owner, b.allocated, b.bytes);
    else
      runtime::anyshapeFree(b.allocated);
  buffers_.clear();
}

std::vector<v1::Tensor> OutputBuffers::toTensors() const {
  std::vector<v1::Tensor> tensors;
  for (const Buffer &b : buffers_) {
    v1::Tensor out;
    out.set_dtype(b.dtype);
    for (int64_t d : b.shape)
      out.add_shape(d);
    copyOut(b.data, b.shape, b.strides, dtypeByteSize(b.dtype),
            *out.mutable_data());
    tensors.push_back(std::move(out));
  }
  return tensors;
}

StatusOr<std::vector<v1::Tensor>>
Executable::run(const std::vector<const v1::Tensor *> &inputs,
                const RunOptions &options) const {
  ANYSHAPE_ASSIGN_OR_RETURN(OutputBuffers outputs,
                            runToBuffers(inputs, options));
  return outputs.toTensors();
}

StatusOr<std::vector<std::vector<int64_t>>>
Executable::checkInputs(const std::vector<const v1::Tensor *> &inputs) const {
  if (static_cast<int>(inputs.size()) != graph_.inputs_size())
    return invalidArgument("expected " + std::to_string(graph_.inputs_size()) +
                           " inputs, got " + std::to_string(inputs.size()));
  std::vector<std::vector<int64_t>> shapes;
  for (int k = 0; k < graph_.inputs_size(); ++k) {
    const v1::Tensor &t = *inputs[k];
    const v1::Input &declared = graph_.inputs(k);
    if (t.dtype() != declared.type().dtype())
      return invalidArgument("input '" + declared.name() + "' is " +
                             dtypeName(t.dtype()) + ", expected " +
                             dtypeName(declared.type().dtype()));
    // The rank decides the descriptor's layout; the entry checks the rest.
    if (t.shape_size() != declared.type().dims_size())
      return invalidArgument("input '" + declared.name() + "' has rank " +
                             std::to_string(t.shape_size()) + ", expected " +
                             std::to_string(declared.type().dims_size()));
    int64_t count = 1;
    for (int64_t d : t.shape())
      if (d < 0 || __builtin_mul_overflow(count, d, &count) ||
          count > limits_.maxElementsPerTensor)
        return invalidArgument("input '" + declared.name() +
                               "' has an invalid or too large shape");
    if (static_cast<int64_t>(t.data().size()) !=
        count * dtypeByteSize(t.dtype()))
      return invalidArgument("input '" + declared.name() + "' has " +
                             std::to_string(t.data().size()) +
                             " bytes, its shape needs " +
                             std::to_string(count * dtypeByteSize(t.dtype())));
    shapes.emplace_back(t.shape().begin(), t.shape().end());
  }
  return shapes;
}

StatusOr<OutputBuffers>
Executable::runToBuffers(const std::vector<const v1::Tensor *> &inputs,
                         const RunOptions &options) const {
  ANYSHAPE_ASSIGN_OR_RETURN(auto shapes, checkInputs(inputs));
  // Bool bytes other than 0 and 1 mean true on the wire but are undefined
  // for generated code (it loads an i1): normalise them in a copy (made
  // only when some input needs one).
  std::vector<std::string> normalised;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string &bytes = inputs[k]->data();
    if (inputs[k]->dtype() != v1::DTYPE_BOOL ||
        std::all_of(bytes.begin(), bytes.end(),
                    [](char c) { return c == 0 || c == 1; }))
      continue;
    normalised.resize(inputs.size());
    normalised[k] = bytes;
    for (char &c : normalised[k])
      c = c != 0;
  }
  auto bytesOf = [&](size_t k) -> const std::string & {
    return normalised.empty() || normalised[k].empty() ? inputs[k]->data()
                                                       : normalised[k];
  };

  if (device_) {
    std::vector<const std::string *> bytes;
    for (size_t k = 0; k < inputs.size(); ++k)
      bytes.push_back(&bytesOf(k));
    return runOnDevice(bytes, shapes);
  }

  // Kernels and GEMMs take their team size from the context alone.
  runtime::AnyshapeExecutionContext context = runtime::cachingContext(
      options.teamSize > 0 ? options.teamSize : runtime::anyshapeTeamSize());
  OutputBuffers outputs;
  ANYSHAPE_RETURN_IF_ERROR(callEntry(
      [&](size_t k) -> const void * { return bytesOf(k).data(); }, shapes,
      context, [&](OutputBuffers::Buffer b) { outputs.add(std::move(b)); }));
  return outputs;
}

Status Executable::callEntry(
    llvm::function_ref<const void *(size_t)> data,
    const std::vector<std::vector<int64_t>> &shapes,
    runtime::AnyshapeExecutionContext &context,
    llvm::function_ref<void(OutputBuffers::Buffer)> output) const {
  // Input descriptors (read-only: the entry never writes its inputs), one
  // after another in one array; on the stack for the usual few inputs.
  llvm::SmallVector<int64_t, 64> words;
  llvm::SmallVector<size_t, 8> starts;
  for (size_t k = 0; k < shapes.size(); ++k) {
    auto address = reinterpret_cast<int64_t>(data(k));
    starts.push_back(words.size());
    words.append({address, address, 0});
    words.append(shapes[k].begin(), shapes[k].end());
    appendRowMajorStrides(shapes[k], words);
  }
  size_t resultWords = 0;
  for (const TensorSignature &s : outputs_)
    resultWords += 3 + 2 * s.rank;
  llvm::SmallVector<int64_t, 32> results(resultWords, 0);
  void *resultPtr = results.data();
  llvm::SmallVector<void *, 8> descriptorPtrs;
  for (size_t start : starts)
    descriptorPtrs.push_back(words.data() + start);
  llvm::SmallVector<void *, 9> args{&resultPtr};
  for (void *&p : descriptorPtrs)
    args.push_back(&p);
  if (!entry_)
    return internalError("the executable has no entry point");
  // The entry checks every shape rule on these sizes before any kernel
  // runs: a violation would otherwise be an out-of-bounds access. A rule
  // on a nonzero's count is checked once the count is known, and stops
  // the run where it fails.
  int64_t failed = info_.countChecks.empty()
                       ? entry_(&context, args.data())
                       : callStoppable(entry_, context, args.data());
  if (int64_t rule = context.failedSizeCheck - 1; rule >= 0)
    return countCheckError(graph_, info_, static_cast<size_t>(rule),
                           context.failedSizeA, context.failedSizeB);
  if (failed)
    return shapeCheckError(graph_, info_, static_cast<size_t>(failed - 1),
                           shapes);

  size_t at = 0;
  for (const TensorSignature &s : outputs_) {
    OutputBuffers::Buffer b;
    b.dtype = s.dtype;
    b.allocated = reinterpret_cast<void *>(results[at]);
    auto *aligned = reinterpret_cast<const char *>(results[at + 1]);
    int64_t offset = results[at + 2];
    b.shape.assign(results.begin() + at + 3, results.begin() + at + 3 + s.rank);
    b.strides.assign(results.begin() + at + 3 + s.rank,
                     results.begin() + at + 3 + 2 * s.rank);
    b.data = aligned + offset * dtypeByteSize(s.dtype);
    at += 3 + 2 * s.rank;
    output(std::move(b));
  }
  // After the outputs have owners, so that they are freed with the rest.
  if (context.runtimeError[0])
    return internalError(std::string("the run failed: ") +
                         context.runtimeError);
  if (int64_t node = context.failedCheckNode - 1; node >= 0) {
    if (node >= graph_.nodes_size() || !graph_.nodes(node).has_check_index())
      return internalError("an index check of node " + std::to_string(node) +
                           ", which is no check_index");
    return indexOutOfRange(graph_.nodes(node).check_index(),
                           context.failedCheckIndex, context.failedCheckExtent);
  }
  return Status::ok();
}

} // namespace anyshape::jit

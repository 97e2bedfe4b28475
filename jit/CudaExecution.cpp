//===- CudaExecution.cpp - one run of a CUDA executable ----------*- C++
//-*-===//
//
// Executable::runOnDevice: a stream of its own (CudaDevice), a
// stream-ordered allocator for everything the run allocates, inputs
// copied in through pinned staging buffers, the JITed entry (shape checks,
// then the host flow's launches on the stream: runtime/cuda/CudaLaunch.h),
// outputs copied back into pinned blocks that become their buffers, every
// device buffer returned; with timing on, each launch and GEMM timed by events
// (runtime/cuda/DeviceTimer.h). A failure anywhere (out of device memory, a
// launch the driver refuses) is the run's Status; the executable and the device
// stay usable.
//
//===----------------------------------------------------------------------===//
#include "jit/Executable.h"

#include "ir/graph/DType.h"
#include "runtime/Allocator.h"

#include <cstring>
#include <optional>

namespace anyshape::jit {

namespace {

using runtime::cuda::CudaDevice;
using runtime::cuda::DevicePointer;

/// Pinned blocks of one run, handed back to the device when it ends.
class PinnedBuffers {
public:
  explicit PinnedBuffers(CudaDevice &device) : device_(device) {}
  ~PinnedBuffers() {
    for (auto [pointer, bytes] : blocks_)
      device_.releasePinned(pointer, bytes);
  }
  /// Null when the driver has no pinned memory to give (copies then go
  /// from pageable memory, which the driver stages itself).
  void *take(int64_t bytes) {
    int64_t size = 0;
    void *pointer = device_.acquirePinned(bytes, &size);
    if (pointer)
      blocks_.emplace_back(pointer, size);
    return pointer;
  }
  /// Hands `b.allocated` (from take) to the output `b`: its release
  /// gives the block back to the device instead of this object.
  void keep(OutputBuffers::Buffer &b) {
    for (auto it = blocks_.begin(); it != blocks_.end(); ++it)
      if (it->first == b.allocated) {
        b.owner = &device_; // a process-wide singleton
        b.bytes = it->second;
        b.release = [](void *device, void *pointer, int64_t bytes) {
          static_cast<CudaDevice *>(device)->releasePinned(pointer, bytes);
        };
        blocks_.erase(it);
        return;
      }
  }

private:
  CudaDevice &device_;
  std::vector<std::pair<void *, int64_t>> blocks_;
};

/// Elements from a view's first to its last, inclusive (strides >= 0).
int64_t spanOf(const std::vector<int64_t> &shape,
               const std::vector<int64_t> &strides) {
  int64_t last = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0)
      return 0;
    last += (shape[d] - 1) * strides[d];
  }
  return last + 1;
}

} // namespace

StatusOr<OutputBuffers>
Executable::runOnDevice(const std::vector<const std::string *> &inputBytes,
                        const std::vector<std::vector<int64_t>> &shapes) const {
  if (!loadedKernels_)
    return deviceError_;
  CudaDevice &device = loadedKernels_->device();
  const runtime::cuda::Driver &driver = device.driver();
  ANYSHAPE_RETURN_IF_ERROR(device.makeCurrent());
  ANYSHAPE_ASSIGN_OR_RETURN(void *stream, device.acquireStream());
  struct StreamBack {
    CudaDevice &device;
    void *stream;
    ~StreamBack() { device.releaseStream(stream); }
  } streamBack{device, stream};
  // Declared after the stream's guard and before any copy: destroyed
  // (blocks back to the pool) only once the stream has been synchronised.
  PinnedBuffers pinned(device);
  runtime::cuda::StreamAllocator allocator(device.memory());
  runtime::cuda::CudaRun run;
  run.driver = &driver;
  run.stream = stream;
  run.kernels = loadedKernels_->kernels().data();
  run.kernelCount = static_cast<int64_t>(loadedKernels_->kernels().size());
  run.allocator = &allocator;
  run.constants = &loadedKernels_->constants();
  run.gemm = &loadedKernels_->gemm();
  std::optional<runtime::cuda::RunTimer> timer;
  if (loadedKernels_->times().enabled())
    run.timer = &timer.emplace(driver, loadedKernels_->times());
  auto synchronise = [&]() -> Status {
    return runtime::cuda::checkCall(driver, "cuStreamSynchronize",
                                    driver.cuStreamSynchronize(stream));
  };

  std::vector<const void *> deviceInputs;
  for (const std::string *bytes : inputBytes) {
    auto size = static_cast<int64_t>(bytes->size());
    void *buffer = allocator.allocate(size);
    if (!buffer) {
      (void)synchronise();
      return allocator.error();
    }
    const void *source = bytes->data();
    if (void *staging = size > 0 ? pinned.take(size) : nullptr) {
      std::memcpy(staging, bytes->data(), bytes->size());
      source = staging;
    }
    if (size > 0)
      if (Status copied = runtime::cuda::checkCall(
              driver, "cuMemcpyHtoDAsync_v2",
              driver.cuMemcpyHtoDAsync_v2(
                  reinterpret_cast<DevicePointer>(buffer), source,
                  bytes->size(), stream));
          !copied.isOk()) {
        (void)synchronise();
        return copied;
      }
    deviceInputs.push_back(buffer);
  }

  runtime::AnyshapeExecutionContext context = runtime::cuda::cudaContext(run);
  // Device buffers: not OutputBuffers, which would free them as host ones.
  std::vector<OutputBuffers::Buffer> results;
  Status entered = callEntry(
      [&](size_t k) { return deviceInputs[k]; }, shapes, context,
      [&](OutputBuffers::Buffer b) { results.push_back(std::move(b)); });
  if (!entered.isOk() || !run.error.isOk()) {
    (void)synchronise();
    return entered.isOk() ? run.error : entered;
  }

  // Each output's elements, from its first to its last, into pinned
  // memory; read only after the stream has run everything before it.
  struct Pending {
    void *staging;
    int64_t bytes;
  };
  std::vector<Pending> pending;
  for (const OutputBuffers::Buffer &b : results) {
    int64_t bytes = spanOf(b.shape, b.strides) * dtypeByteSize(b.dtype);
    void *staging = bytes > 0 ? pinned.take(bytes) : nullptr;
    if (bytes > 0 && !staging) {
      (void)synchronise();
      return Status(StatusCode::ResourceExhausted,
                    "no pinned host memory to copy an output back");
    }
    if (bytes > 0)
      if (Status copied = runtime::cuda::checkCall(
              driver, "cuMemcpyDtoHAsync_v2",
              driver.cuMemcpyDtoHAsync_v2(
                  staging, reinterpret_cast<DevicePointer>(b.data),
                  static_cast<size_t>(bytes), stream));
          !copied.isOk()) {
        (void)synchronise();
        return copied;
      }
    pending.push_back({staging, bytes});
  }
  ANYSHAPE_RETURN_IF_ERROR(synchronise());
  if (timer)
    ANYSHAPE_RETURN_IF_ERROR(timer->collect());

  // Each output stays in its pinned staging block, which the caller's
  // OutputBuffers gives back to the device: no copy into other host
  // memory (on an H200 host the encoder's run at seq 512 spent more time
  // in host copies than on the device).
  OutputBuffers outputs;
  for (size_t k = 0; k < results.size(); ++k) {
    OutputBuffers::Buffer b = results[k];
    allocator.free(b.allocated);
    if (pending[k].bytes > 0) {
      b.allocated = pending[k].staging;
      pinned.keep(b);
    } else {
      b.allocated = runtime::anyshapeAlloc(1);
      if (!b.allocated)
        return Status(StatusCode::ResourceExhausted,
                      "out of host memory for an output");
    }
    b.data = static_cast<const char *>(b.allocated);
    outputs.add(std::move(b));
  }
  // Every buffer the host flow allocated it also freed (outputs above):
  // anything left is a codegen bug, not something to leak on the device.
  for (const void *input : deviceInputs)
    allocator.free(const_cast<void *>(input));
  if (allocator.liveCount() != 0)
    return internalError("the host flow left " +
                         std::to_string(allocator.liveCount()) +
                         " device buffers allocated");
  return outputs;
}

Status Executable::timeDevice(bool on) const {
  if (!device_)
    return Status(StatusCode::FailedPrecondition,
                  "device timing is for CUDA executables");
  if (!loadedKernels_)
    return deviceError_;
  return loadedKernels_->times().enable(on);
}

std::vector<runtime::cuda::DeviceTime> Executable::deviceTimes() const {
  if (!loadedKernels_)
    return {};
  return loadedKernels_->times().snapshot();
}

} // namespace anyshape::jit

//===- CudaLaunch.cpp - an executable's kernels and their launches -*- C++
//-*-===//
#include "runtime/cuda/CudaLaunch.h"

#include <array>

namespace anyshape::runtime::cuda {

namespace {

/// CUDA passes at most 32,764 bytes of parameters on sm_70 and later;
/// anyshape's kernels take far fewer 8-byte words than this.
constexpr int64_t kMaxParameterWords = 1024;
constexpr int64_t kMaxThreadsPerBlock = 1024;
constexpr int64_t kMaxGridX = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxGridYZ = 65535;

void *allocate(void *allocator, uint64_t alignment, uint64_t size) {
  auto *run = static_cast<CudaRun *>(allocator);
  // Device blocks are 256-byte aligned, more than generated code asks.
  if (alignment > 256) {
    if (run->error.isOk())
      run->error = internalError("a device buffer aligned to " +
                                 std::to_string(alignment) + " bytes");
    return nullptr;
  }
  void *pointer = run->allocator->allocate(static_cast<int64_t>(size));
  if (!pointer && run->error.isOk())
    run->error = run->allocator->error();
  return pointer;
}

void release(void *allocator, void *pointer) {
  static_cast<CudaRun *>(allocator)->allocator->free(pointer);
}

/// A timed run's event before a call; false (the run's error set) when
/// it could not be recorded. Untimed runs: true, nothing done.
bool startTimer(CudaRun &run) {
  if (!run.timer)
    return true;
  run.error = run.timer->start(run.stream);
  return run.error.isOk();
}

/// A timed run's event after a call, its time going to `slot`.
void stopTimer(CudaRun &run, int64_t slot) {
  if (run.timer)
    run.error = run.timer->stop(run.stream, slot);
}

} // namespace

DeviceConstants::DeviceConstants(CudaDevice &device, int64_t count)
    : device_(device), count_(count),
      copies_(new std::atomic<void *>[static_cast<size_t>(count)]),
      blockBytes_(static_cast<size_t>(count), 0) {
  for (int64_t k = 0; k < count; ++k)
    copies_[k].store(nullptr, std::memory_order_relaxed);
}

DeviceConstants::~DeviceConstants() {
  for (int64_t k = 0; k < count_; ++k)
    if (void *copy = copies_[k].load(std::memory_order_relaxed))
      device_.memory().recycle(reinterpret_cast<DevicePointer>(copy),
                               blockBytes_[k]);
}

void *DeviceConstants::get(int64_t index, const void *host, int64_t bytes,
                           Status &error) {
  if (index < 0 || index >= count_) {
    error = internalError("device constant " + std::to_string(index) + " of " +
                          std::to_string(count_));
    return nullptr;
  }
  if (void *copy = copies_[index].load(std::memory_order_acquire))
    return copy;
  std::lock_guard lock(mutex_);
  if (void *copy = copies_[index].load(std::memory_order_relaxed))
    return copy; // another run uploaded it meanwhile
  int64_t size = 0;
  StatusOr<DevicePointer> block = device_.memory().allocate(bytes, &size);
  if (!block.isOk()) {
    error = block.status();
    return nullptr;
  }
  // Synchronous: the copy is complete before any kernel is queued.
  if (bytes > 0)
    if (Status copied =
            checkCall(device_.driver(), "cuMemcpyHtoD_v2",
                      device_.driver().cuMemcpyHtoD_v2(
                          *block, host, static_cast<size_t>(bytes)));
        !copied.isOk()) {
      device_.memory().recycle(*block, size);
      error = copied;
      return nullptr;
    }
  blockBytes_[index] = size;
  void *copy = reinterpret_cast<void *>(*block);
  copies_[index].store(copy, std::memory_order_release);
  return copy;
}

StatusOr<std::unique_ptr<LoadedKernels>>
LoadedKernels::load(CudaDevice &device, const std::vector<KernelImage> &images,
                    int64_t constants,
                    const std::vector<EmulatedKernel> &emulations) {
  if (!emulations.empty() && emulations.size() != images.size())
    return internalError("kernel emulations do not match the images");
  const Driver &driver = device.driver();
  ANYSHAPE_RETURN_IF_ERROR(device.makeCurrent());
  std::unique_ptr<LoadedKernels> loaded(new LoadedKernels(device));
  loaded->constants_ = std::make_unique<DeviceConstants>(device, constants);
  loaded->gemm_ = std::make_unique<DeviceGemm>(device);
  for (size_t k = 0; k < images.size(); ++k) {
    const KernelImage &image = images[k];
    void *module = nullptr;
    ANYSHAPE_RETURN_IF_ERROR(
        checkCall(driver, "cuModuleLoadData",
                  driver.cuModuleLoadData(&module, image.cubin.data()))
            .withContext(image.name));
    loaded->modules_.push_back(module);
    LoadedKernel kernel;
    kernel.name = image.name;
    kernel.maxThreads = image.maxThreads;
    kernel.parameters = static_cast<int64_t>(image.parameterBytes.size());
    ANYSHAPE_RETURN_IF_ERROR(
        checkCall(driver, "cuModuleGetFunction",
                  driver.cuModuleGetFunction(&kernel.function, module,
                                             image.entry.c_str()))
            .withContext(image.name));
    if (!emulations.empty() && driver.fakeEmulate)
      driver.fakeEmulate(kernel.function, emulations[k],
                         static_cast<int>(kernel.parameters));
    loaded->kernels_.push_back(std::move(kernel));
  }
  std::vector<std::string> names;
  for (const KernelImage &image : images)
    names.push_back(image.name);
  loaded->times_ = std::make_unique<DeviceTimes>(driver, names);
  return loaded;
}

LoadedKernels::~LoadedKernels() {
  if (!device_.makeCurrent().isOk())
    return;
  for (void *module : modules_)
    device_.driver().cuModuleUnload(module);
}

AnyshapeExecutionContext cudaContext(CudaRun &run) {
  AnyshapeExecutionContext context{};
  context.teamSize = 1;
  context.alloc = &allocate;
  context.free = &release;
  context.allocator = &run;
  context.deviceStream = run.stream;
  context.moduleTable = &run;
  return context;
}

extern "C" void anyshapeCudaLaunch(AnyshapeExecutionContext *context,
                                   int64_t kernel, int64_t gridX, int64_t gridY,
                                   int64_t gridZ, int64_t blockX,
                                   int64_t blockY, int64_t blockZ,
                                   int64_t sharedBytes, int64_t *slots,
                                   int64_t count) {
  auto *run = static_cast<CudaRun *>(context->moduleTable);
  if (!run->error.isOk())
    return; // an earlier failure: the run's outputs are not read
  if (kernel < 0 || kernel >= run->kernelCount) {
    run->error = internalError("launch of kernel " + std::to_string(kernel) +
                               " of " + std::to_string(run->kernelCount));
    return;
  }
  const LoadedKernel &k = run->kernels[kernel];
  // An empty grid has nothing to run (and CUDA rejects it).
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return;
  int64_t threads = blockX * blockY * blockZ;
  int64_t maxThreads = k.maxThreads > 0 ? k.maxThreads : kMaxThreadsPerBlock;
  if (gridX < 0 || gridX > kMaxGridX || gridY < 0 || gridY > kMaxGridYZ ||
      gridZ < 0 || gridZ > kMaxGridYZ || blockX < 1 || blockY < 1 ||
      blockZ < 1 || threads > maxThreads || sharedBytes < 0 ||
      count != k.parameters || count > kMaxParameterWords) {
    run->error = internalError(
        k.name + ": launch of grid " + std::to_string(gridX) + "x" +
        std::to_string(gridY) + "x" + std::to_string(gridZ) + ", block " +
        std::to_string(blockX) + "x" + std::to_string(blockY) + "x" +
        std::to_string(blockZ) + " with " + std::to_string(count) +
        " parameters; the kernel takes " + std::to_string(k.parameters) +
        " and at most " + std::to_string(maxThreads) + " threads per block");
    return;
  }
  std::array<void *, kMaxParameterWords> parameters;
  for (int64_t i = 0; i < count; ++i)
    parameters[i] = &slots[i];
  if (!startTimer(*run))
    return;
  int result = run->driver->cuLaunchKernel(
      k.function, static_cast<unsigned>(gridX), static_cast<unsigned>(gridY),
      static_cast<unsigned>(gridZ), static_cast<unsigned>(blockX),
      static_cast<unsigned>(blockY), static_cast<unsigned>(blockZ),
      static_cast<unsigned>(sharedBytes), run->stream, parameters.data(),
      nullptr);
  if (result != 0) {
    run->error =
        checkCall(*run->driver, "cuLaunchKernel", result).withContext(k.name);
    return;
  }
  stopTimer(*run, kernel);
}

extern "C" void anyshapeCudaCopy(AnyshapeExecutionContext *context, int64_t to,
                                 int64_t from, int64_t bytes) {
  auto *run = static_cast<CudaRun *>(context->moduleTable);
  if (!run->error.isOk() || bytes == 0)
    return;
  int result = run->driver->cuMemcpyDtoDAsync_v2(
      static_cast<DevicePointer>(to), static_cast<DevicePointer>(from),
      static_cast<size_t>(bytes), run->stream);
  if (result != 0)
    run->error = checkCall(*run->driver, "cuMemcpyDtoDAsync_v2", result);
}

std::vector<unsigned char>
spanOnHost(CudaRun &run, const UnrankedMemref &memref, int64_t elementBytes) {
  auto *words = static_cast<const int64_t *>(memref.descriptor);
  int64_t rank = memref.rank;
  const int64_t *sizes = words + 3, *strides = words + 3 + rank;
  int64_t span = 1; // strides of bufferized views are never negative
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0)
      return {};
    span += (sizes[d] - 1) * strides[d];
  }
  std::vector<unsigned char> host(static_cast<size_t>(span * elementBytes));
  auto first = static_cast<DevicePointer>(words[1] + words[2] * elementBytes);
  const Driver &driver = *run.driver;
  const char *call = "cuMemcpyDtoHAsync_v2";
  int result =
      driver.cuMemcpyDtoHAsync_v2(host.data(), first, host.size(), run.stream);
  if (result == 0) {
    call = "cuStreamSynchronize";
    result = driver.cuStreamSynchronize(run.stream);
  }
  if (result != 0) {
    run.error = checkCall(driver, call, result);
    return {};
  }
  return host;
}

void copyToDevice(CudaRun &run, DevicePointer to, const void *from,
                  size_t bytes) {
  const Driver &driver = *run.driver;
  const char *call = "cuMemcpyHtoDAsync_v2";
  int result = driver.cuMemcpyHtoDAsync_v2(to, from, bytes, run.stream);
  if (result == 0) { // the host copy must outlive the transfer
    call = "cuStreamSynchronize";
    result = driver.cuStreamSynchronize(run.stream);
  }
  if (result != 0)
    run.error = checkCall(driver, call, result);
}

StridedBytes viewOnHost(CudaRun &run, const UnrankedMemref &memref,
                        int64_t elementBytes,
                        std::vector<unsigned char> &host) {
  host = spanOnHost(run, memref, elementBytes);
  StridedBytes view = StridedBytes::of(memref, nullptr, elementBytes);
  view.first = host.data();
  return view;
}

void copyToResult(CudaRun &run, const UnrankedMemref &result,
                  int64_t elementBytes, const void *from, size_t bytes) {
  auto *words = static_cast<const int64_t *>(result.descriptor);
  copyToDevice(run,
               static_cast<DevicePointer>(words[1] + words[2] * elementBytes),
               from, bytes);
}

extern "C" void anyshapeCudaUpload(AnyshapeExecutionContext *context,
                                   int64_t to, int64_t from, int64_t bytes) {
  auto *run = static_cast<CudaRun *>(context->moduleTable);
  if (!run->error.isOk() || bytes <= 0)
    return;
  const auto *host = reinterpret_cast<const unsigned char *>(from);
  std::vector<unsigned char> &kept =
      run->uploaded.emplace_back(host, host + bytes);
  int result = run->driver->cuMemcpyHtoDAsync_v2(
      static_cast<DevicePointer>(to), kept.data(), kept.size(), run->stream);
  if (result != 0)
    run->error = checkCall(*run->driver, "cuMemcpyHtoDAsync_v2", result);
}

extern "C" void *anyshapeCudaConstant(AnyshapeExecutionContext *context,
                                      int64_t index, const void *host,
                                      int64_t bytes) {
  auto *run = static_cast<CudaRun *>(context->moduleTable);
  if (!run->error.isOk())
    return nullptr;
  return run->constants->get(index, host, bytes, run->error);
}

extern "C" void anyshapeCudaBatchMatmulF32(Memref3D *a, Memref3D *b,
                                           Memref3D *c,
                                           AnyshapeExecutionContext *context) {
  auto *run = static_cast<CudaRun *>(context->moduleTable);
  if (!run->error.isOk())
    return;
  if (!startTimer(*run))
    return;
  if (Status status = run->gemm->run(*a, *b, *c, run->stream, *run->allocator);
      !status.isOk()) {
    run->error = status;
    return;
  }
  if (run->timer)
    stopTimer(*run, run->timer->gemmSlot());
}

} // namespace anyshape::runtime::cuda

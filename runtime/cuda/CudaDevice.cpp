//===- CudaDevice.cpp - the GPU an executable runs on ------------*- C++
//-*-===//
#include "runtime/cuda/CudaDevice.h"

#include <atomic>

namespace anyshape::runtime::cuda {

namespace {

constexpr unsigned kStreamNonBlocking = 1; // CU_STREAM_NON_BLOCKING
std::atomic<int64_t> memoryLimit{0};       // 0: the device's memory

} // namespace

void setDeviceMemoryLimit(int64_t bytes) {
  memoryLimit = bytes;
  if (StatusOr<CudaDevice *> device = CudaDevice::get(); device.isOk())
    (*device)->memory().setLimit(bytes > 0 ? bytes
                                           : (*device)->info().memoryBytes);
}

CudaDevice::CudaDevice(const Driver &driver, DeviceInfo info, void *context)
    : driver_(driver), info_(std::move(info)), context_(context),
      memory_(driver,
              memoryLimit > 0 ? memoryLimit.load() : info_.memoryBytes) {}

StatusOr<CudaDevice *> CudaDevice::get() {
  // Built once; a failure is kept, so every caller gets the same answer.
  static StatusOr<CudaDevice *> device = []() -> StatusOr<CudaDevice *> {
    ANYSHAPE_ASSIGN_OR_RETURN(const Driver *driver, loadDriver());
    ANYSHAPE_ASSIGN_OR_RETURN(DeviceInfo info, probeDevice(0));
    int ordinal = 0;
    ANYSHAPE_RETURN_IF_ERROR(
        checkCall(*driver, "cuDeviceGet", driver->cuDeviceGet(&ordinal, 0)));
    void *context = nullptr;
    ANYSHAPE_RETURN_IF_ERROR(
        checkCall(*driver, "cuDevicePrimaryCtxRetain",
                  driver->cuDevicePrimaryCtxRetain(&context, ordinal)));
    // Never destroyed: executables may outlive any owner, and the driver
    // releases everything at process exit.
    return new CudaDevice(*driver, std::move(info), context);
  }();
  return device;
}

Status CudaDevice::makeCurrent() const {
  return checkCall(driver_, "cuCtxSetCurrent",
                   driver_.cuCtxSetCurrent(context_));
}

StatusOr<void *> CudaDevice::acquireStream() {
  {
    std::lock_guard lock(mutex_);
    if (!idleStreams_.empty()) {
      void *stream = idleStreams_.back();
      idleStreams_.pop_back();
      return stream;
    }
  }
  void *stream = nullptr;
  ANYSHAPE_RETURN_IF_ERROR(
      checkCall(driver_, "cuStreamCreate",
                driver_.cuStreamCreate(&stream, kStreamNonBlocking)));
  return stream;
}

void CudaDevice::releaseStream(void *stream) {
  std::lock_guard lock(mutex_);
  idleStreams_.push_back(stream);
}

void *CudaDevice::acquirePinned(int64_t bytes, int64_t *blockBytes) {
  {
    std::lock_guard lock(mutex_);
    for (size_t k = 0; k < idlePinned_.size(); ++k)
      if (idlePinned_[k].first >= bytes && idlePinned_[k].first <= 2 * bytes) {
        auto [size, pointer] = idlePinned_[k];
        idlePinned_.erase(idlePinned_.begin() + static_cast<long>(k));
        idlePinnedBytes_ -= size;
        *blockBytes = size;
        return pointer;
      }
  }
  void *pointer = nullptr;
  if (driver_.cuMemHostAlloc(&pointer, static_cast<size_t>(bytes), 0) != 0)
    return nullptr;
  *blockBytes = bytes;
  return pointer;
}

void CudaDevice::releasePinned(void *pointer, int64_t blockBytes) {
  {
    std::lock_guard lock(mutex_);
    if (idlePinnedBytes_ + blockBytes <= kMaxIdlePinnedBytes) {
      idlePinned_.emplace_back(blockBytes, pointer);
      idlePinnedBytes_ += blockBytes;
      return;
    }
  }
  driver_.cuMemFreeHost(pointer); // beyond the bound: not kept
}

void CudaDevice::trim() {
  memory_.trim();
  std::lock_guard lock(mutex_);
  for (void *stream : idleStreams_)
    driver_.cuStreamDestroy_v2(stream);
  idleStreams_.clear();
  for (auto &[bytes, pointer] : idlePinned_)
    driver_.cuMemFreeHost(pointer);
  idlePinned_.clear();
  idlePinnedBytes_ = 0;
}

} // namespace anyshape::runtime::cuda

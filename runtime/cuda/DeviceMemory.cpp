//===- DeviceMemory.cpp - caching, stream-ordered device memory --*- C++
//-*-===//
#include "runtime/cuda/DeviceMemory.h"

#include <algorithm>

namespace anyshape::runtime::cuda {

namespace {

/// Blocks are multiples of 512 bytes up to 1 MiB and of 1 MiB above, so
/// that sizes a little apart share blocks.
int64_t blockSizeFor(int64_t bytes) {
  constexpr int64_t kSmall = 512, kLarge = int64_t{1} << 20;
  int64_t unit = bytes <= kLarge ? kSmall : kLarge;
  return std::max<int64_t>(unit, (bytes + unit - 1) / unit * unit);
}

/// An idle block for `bytes` in `blocks`: the smallest of at least the
/// size and at most twice it.
std::multimap<int64_t, DevicePointer>::iterator
bestFit(std::multimap<int64_t, DevicePointer> &blocks, int64_t bytes) {
  auto it = blocks.lower_bound(bytes);
  return it != blocks.end() && it->first <= 2 * bytes ? it : blocks.end();
}

} // namespace

DeviceMemoryPool::DeviceMemoryPool(const Driver &driver, int64_t limitBytes)
    : driver_(driver), limit_(limitBytes) {}

DeviceMemoryPool::~DeviceMemoryPool() { trim(); }

void DeviceMemoryPool::setLimit(int64_t bytes) {
  std::lock_guard lock(mutex_);
  limit_ = bytes;
}

int64_t DeviceMemoryPool::heldBytes() const {
  std::lock_guard lock(mutex_);
  return held_;
}

bool DeviceMemoryPool::makeRoomLocked(int64_t bytes) {
  while (held_ + bytes > limit_ && !idle_.empty()) {
    auto largest = std::prev(idle_.end());
    driver_.cuMemFree_v2(largest->second);
    held_ -= largest->first;
    idle_.erase(largest);
  }
  return held_ + bytes <= limit_;
}

StatusOr<DevicePointer> DeviceMemoryPool::allocate(int64_t bytes,
                                                   int64_t *blockBytes) {
  if (bytes < 0)
    return invalidArgument("negative device allocation");
  int64_t size = blockSizeFor(bytes);
  std::lock_guard lock(mutex_);
  if (auto it = bestFit(idle_, size); it != idle_.end()) {
    *blockBytes = it->first;
    DevicePointer pointer = it->second;
    idle_.erase(it);
    return pointer;
  }
  auto exhausted = [&] {
    return Status(StatusCode::ResourceExhausted,
                  "device memory: " + std::to_string(size) +
                      " more bytes do not fit (" + std::to_string(held_) +
                      " of the limit of " + std::to_string(limit_) +
                      " bytes held)");
  };
  if (!makeRoomLocked(size))
    return exhausted();
  DevicePointer pointer = 0;
  int result = driver_.cuMemAlloc_v2(&pointer, static_cast<size_t>(size));
  if (result != 0) {
    // The device itself is full: give back every idle block and retry.
    while (!idle_.empty()) {
      driver_.cuMemFree_v2(idle_.begin()->second);
      held_ -= idle_.begin()->first;
      idle_.erase(idle_.begin());
    }
    result = driver_.cuMemAlloc_v2(&pointer, static_cast<size_t>(size));
  }
  if (result != 0)
    return checkCall(driver_, "cuMemAlloc_v2", result);
  held_ += size;
  *blockBytes = size;
  return pointer;
}

void DeviceMemoryPool::recycle(DevicePointer pointer, int64_t blockBytes) {
  std::lock_guard lock(mutex_);
  idle_.emplace(blockBytes, pointer);
  makeRoomLocked(0); // a lowered limit takes effect as blocks come back
}

void DeviceMemoryPool::trim() {
  std::lock_guard lock(mutex_);
  for (auto &[bytes, pointer] : idle_) {
    driver_.cuMemFree_v2(pointer);
    held_ -= bytes;
  }
  idle_.clear();
}

StreamAllocator::~StreamAllocator() {
  for (auto &[bytes, pointer] : reuse_)
    pool_.recycle(pointer, bytes);
  for (auto &[pointer, bytes] : live_)
    pool_.recycle(pointer, bytes);
}

void *StreamAllocator::allocate(int64_t bytes) {
  if (!error_.isOk())
    return nullptr;
  int64_t size = 0;
  DevicePointer pointer = 0;
  if (auto it = bestFit(reuse_, std::max<int64_t>(bytes, 1));
      it != reuse_.end()) {
    size = it->first;
    pointer = it->second;
    reuse_.erase(it);
  } else {
    StatusOr<DevicePointer> fresh = pool_.allocate(bytes, &size);
    if (!fresh.isOk()) {
      error_ = fresh.status();
      return nullptr;
    }
    pointer = *fresh;
  }
  live_.emplace(pointer, size);
  return reinterpret_cast<void *>(pointer);
}

void StreamAllocator::free(void *pointer) {
  auto it = live_.find(reinterpret_cast<DevicePointer>(pointer));
  if (it == live_.end())
    return;
  reuse_.emplace(it->second, it->first);
  live_.erase(it);
}

} // namespace anyshape::runtime::cuda

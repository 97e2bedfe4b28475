//===- DeviceTimer.cpp - device time of a run's launches and GEMMs -*- C++
//-*-===//
#include "runtime/cuda/DeviceTimer.h"

namespace anyshape::runtime::cuda {

DeviceTimes::DeviceTimes(const Driver &driver,
                         const std::vector<std::string> &kernels)
    : driver_(driver) {
  for (const std::string &name : kernels)
    totals_.push_back({name, 0, 0});
  totals_.push_back({kGemmName, 0, 0});
}

Status DeviceTimes::enable(bool on) {
  if (on && (!driver_.cuEventCreate || !driver_.cuEventRecord ||
             !driver_.cuEventElapsedTime || !driver_.cuEventDestroy_v2))
    return Status(StatusCode::FailedPrecondition,
                  "device timing needs CUDA events, which this driver lacks");
  std::lock_guard lock(mutex_);
  if (on)
    for (DeviceTime &total : totals_)
      total.calls = 0, total.milliseconds = 0;
  enabled_.store(on, std::memory_order_relaxed);
  return Status::ok();
}

void DeviceTimes::add(int64_t slot, double milliseconds) {
  std::lock_guard lock(mutex_);
  if (slot < 0 || slot >= static_cast<int64_t>(totals_.size()))
    return;
  ++totals_[slot].calls;
  totals_[slot].milliseconds += milliseconds;
}

std::vector<DeviceTime> DeviceTimes::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<DeviceTime> called;
  for (const DeviceTime &total : totals_)
    if (total.calls > 0)
      called.push_back(total);
  return called;
}

RunTimer::~RunTimer() {
  for (const Pair &pair : pairs_)
    for (void *event : {pair.start, pair.stop})
      if (event)
        driver_.cuEventDestroy_v2(event);
}

StatusOr<void *> RunTimer::record(void *stream) {
  void *event = nullptr;
  ANYSHAPE_RETURN_IF_ERROR(
      checkCall(driver_, "cuEventCreate", driver_.cuEventCreate(&event, 0)));
  if (Status recorded = checkCall(driver_, "cuEventRecord",
                                  driver_.cuEventRecord(event, stream));
      !recorded.isOk()) {
    driver_.cuEventDestroy_v2(event);
    return recorded;
  }
  return event;
}

Status RunTimer::start(void *stream) {
  ANYSHAPE_ASSIGN_OR_RETURN(void *event, record(stream));
  pairs_.push_back({event, nullptr, -1});
  return Status::ok();
}

Status RunTimer::stop(void *stream, int64_t slot) {
  if (pairs_.empty() || pairs_.back().stop)
    return internalError("a device timer stopped without a start");
  ANYSHAPE_ASSIGN_OR_RETURN(void *event, record(stream));
  pairs_.back().stop = event;
  pairs_.back().slot = slot;
  return Status::ok();
}

Status RunTimer::collect() {
  for (const Pair &pair : pairs_) {
    if (!pair.stop)
      continue; // a call that failed between its events
    float milliseconds = 0;
    ANYSHAPE_RETURN_IF_ERROR(checkCall(
        driver_, "cuEventElapsedTime",
        driver_.cuEventElapsedTime(&milliseconds, pair.start, pair.stop)));
    times_.add(pair.slot, milliseconds);
  }
  return Status::ok();
}

} // namespace anyshape::runtime::cuda

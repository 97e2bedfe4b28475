//===- DeviceTimer.h - device time of a run's launches and GEMMs -*- C++
//-*-===//
//
// Where a CUDA executable's device time goes, for benchmarks (a kernel's
// bytes over its device time against HBM bandwidth; the encoder's GEMMs
// against its fusions). With timing on (Executable::timeDevice), a run
// brackets each launch and each GEMM with two CUDA events on its stream;
// once the stream is synchronised it adds each pair's elapsed time to the
// executable's totals (DeviceTimes), per kernel. With timing off a run
// records nothing: no event is created and the launch path only tests a
// null pointer.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/cuda/CudaDriver.h"

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace anyshape::runtime::cuda {

/// One kernel's device time (or all the GEMMs'), summed over runs.
struct DeviceTime {
  std::string name; ///< the kernel's gpu.module, or kGemmName
  int64_t calls = 0;
  double milliseconds = 0;
};

/// The name the GEMMs' totals go under.
inline constexpr const char *kGemmName = "cuBLASLt GEMMs";

/// An executable's totals: one slot per kernel, then one for its GEMMs.
/// Runs add to it concurrently.
class DeviceTimes {
public:
  DeviceTimes(const Driver &driver, const std::vector<std::string> &kernels);

  /// Turns timing on (totals cleared) or off. FailedPrecondition when the
  /// driver lacks the event entry points.
  Status enable(bool on);
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }
  /// The GEMMs' slot (the kernels' are their load order).
  int64_t gemmSlot() const { return static_cast<int64_t>(totals_.size()) - 1; }
  void add(int64_t slot, double milliseconds);
  /// The totals, kernels in load order and the GEMMs last; slots never
  /// called are left out.
  std::vector<DeviceTime> snapshot() const;

private:
  const Driver &driver_;
  std::atomic<bool> enabled_{false};
  mutable std::mutex mutex_;
  std::vector<DeviceTime> totals_; // its values under mutex_; its size fixed
};

/// One run's event pairs. Created only for a timed run.
class RunTimer {
public:
  RunTimer(const Driver &driver, DeviceTimes &times)
      : driver_(driver), times_(times) {}
  ~RunTimer();
  RunTimer(const RunTimer &) = delete;
  RunTimer &operator=(const RunTimer &) = delete;

  int64_t gemmSlot() const { return times_.gemmSlot(); }
  /// Records the start of a call on `stream`.
  Status start(void *stream);
  /// Records its end; the pair's time goes to `slot` at collect().
  Status stop(void *stream, int64_t slot);
  /// After the stream has been synchronised: every pair's elapsed time
  /// into the totals.
  Status collect();

private:
  struct Pair {
    void *start = nullptr;
    void *stop = nullptr;
    int64_t slot = -1;
  };
  StatusOr<void *> record(void *stream);
  const Driver &driver_;
  DeviceTimes &times_;
  std::vector<Pair> pairs_; // the last one open between start and stop
};

} // namespace anyshape::runtime::cuda

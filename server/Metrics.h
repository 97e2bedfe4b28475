// Server metrics and their Prometheus text rendering.
//
// Counters and histograms are updated lock-free on the request path;
// gauges that live elsewhere (cache bytes, stored tensors, resident
// memory) are read through callbacks when the metrics are rendered.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace anyshape::server {

/// A latency histogram with fixed buckets (seconds), Prometheus-style.
class Histogram {
public:
  static constexpr std::array<double, 14> kBounds = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
      0.025,  0.05,    0.1,    0.25,  0.5,    1,     5};
  void observe(double seconds);
  void render(const std::string &name, const std::string &help,
              std::string &out) const;

private:
  std::array<std::atomic<int64_t>, kBounds.size() + 1> counts_{};
  std::atomic<int64_t> count_{0};
  std::atomic<int64_t> sumNanos_{0};
};

struct Metrics {
  std::atomic<int64_t> compileRequests{0};
  std::atomic<int64_t> executions{0};
  std::atomic<int64_t> executionErrors{0};
  std::atomic<int64_t> rejectedRequests{0};     // queue full / draining
  std::atomic<int64_t> unauthorizedRequests{0}; // no token, or wrong role
  std::atomic<int64_t> inFlight{0};
  // Compile workers (worker/CompileWorkers.h) that ended a compile early:
  // crashed or failed, killed at a limit, killed at the deadline.
  std::atomic<int64_t> workerFailures{0};
  std::atomic<int64_t> workerLimitKills{0};
  std::atomic<int64_t> workerDeadlineKills{0};
  Histogram compileSeconds;
  Histogram executeSeconds;

  struct Gauge {
    std::string name, help, type; // type: "gauge" or "counter"
    std::function<double()> read;
  };
  std::vector<Gauge> gauges; // registered at startup, before serving

  std::string renderPrometheus() const;
};

/// This process's resident set size in bytes (0 if unknown).
int64_t residentMemoryBytes();

} // namespace anyshape::server

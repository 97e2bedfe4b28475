// Reading one value from a Prometheus text endpoint: the load generator
// samples the server's resident memory (anyshape_process_resident_memory_
// bytes) from --metrics-listen while it runs. Plain HTTP/1.0 on a socket;
// nothing beyond GET /metrics is needed.
#pragma once

#include "runtime/support/Status.h"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace anyshape::load {

/// The value of the first sample of `metric` (any labels) in Prometheus
/// text exposition format, or nothing if it has none.
std::optional<double> findMetric(std::string_view text,
                                 std::string_view metric);

/// The body of GET /metrics from `address` ("host:port", optionally with an
/// "http://" prefix). UNAVAILABLE if it cannot connect or read in time,
/// FAILED_PRECONDITION for an answer other than 200.
StatusOr<std::string> fetchMetrics(const std::string &address,
                                   std::chrono::milliseconds timeout);

} // namespace anyshape::load

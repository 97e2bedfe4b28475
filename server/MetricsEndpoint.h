// A minimal HTTP/1.0 endpoint serving GET /metrics in Prometheus text
// format on its own thread (--metrics-listen). It answers one short
// request per connection and nothing else, so it needs no HTTP library;
// requests are bounded in size and time.
#pragma once

#include "runtime/support/Status.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace anyshape::server {

class MetricsEndpoint {
public:
  /// Listens on `address` ("host:port"; port 0 picks one) and serves
  /// `render()` until destroyed.
  static StatusOr<std::unique_ptr<MetricsEndpoint>>
  start(const std::string &address, std::function<std::string()> render);
  ~MetricsEndpoint();

  /// "host:port" actually bound.
  const std::string &address() const { return address_; }

private:
  MetricsEndpoint() = default;
  void serve();

  int socket_ = -1;
  std::string address_;
  std::function<std::string()> render_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace anyshape::server

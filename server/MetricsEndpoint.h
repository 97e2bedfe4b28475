// A minimal HTTP/1.0 endpoint serving GET /metrics in Prometheus text
// format on its own thread (--metrics-listen). It answers one short
// request per connection and nothing else, so it needs no HTTP library;
// requests are bounded in size and time. With the gRPC port's certificate
// it serves HTTPS (OpenSSL, TLS 1.2 or later), and with its client CA it
// requires and verifies a client certificate, as the gRPC port does (it
// has no tokens: a plaintext metrics port belongs on loopback).
#pragma once

#include "runtime/support/Status.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

struct ssl_ctx_st;

namespace anyshape::server {

/// PEM text; an empty certChain means plain HTTP.
struct MetricsTls {
  std::string certChain;
  std::string privateKey;
  std::string clientCa; ///< non-empty: mutual TLS
};

class MetricsEndpoint {
public:
  /// Listens on `address` ("host:port"; port 0 picks one) and serves
  /// `render()` until destroyed, over TLS when `tls` has a certificate.
  static StatusOr<std::unique_ptr<MetricsEndpoint>>
  start(const std::string &address, std::function<std::string()> render,
        const MetricsTls &tls = {});
  ~MetricsEndpoint();

  /// "host:port" actually bound.
  const std::string &address() const { return address_; }

private:
  MetricsEndpoint() = default;
  void serve();

  int socket_ = -1;
  ssl_ctx_st *tls_ = nullptr; ///< OpenSSL's SSL_CTX; null: plain HTTP
  std::string address_;
  std::function<std::string()> render_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace anyshape::server

// The anyshape server process, minus flag parsing: the AnyShape service,
// grpc.health.v1 (SERVING once ready, NOT_SERVING while draining), server
// reflection, the Prometheus endpoint, message and metadata limits, and
// graceful drain. server/main.cpp drives it; tests can run it in process.
#pragma once

#include "server/AnyShapeService.h"
#include "server/MetricsEndpoint.h"

#include <grpcpp/server.h>

#include <chrono>
#include <memory>
#include <string>

namespace anyshape::server {

/// TLS on the gRPC port: PEM files. With clientCaFile set it is mutual
/// TLS: a client must present a certificate that CA signed.
struct TlsOptions {
  std::string certFile; ///< empty: plaintext (the loopback default)
  std::string keyFile;
  std::string clientCaFile;
};

struct ServerOptions {
  std::string listen = "127.0.0.1:50051"; ///< port 0 picks a free port
  std::string metricsListen;              ///< empty: no metrics endpoint
  int64_t maxMessageBytes = int64_t{256} << 20;
  /// Bounds request metadata (Debian's gRPC 1.51 predates fixes of
  /// metadata-handling CVEs; see docs/service.md).
  int maxMetadataBytes = 16 << 10;
  std::chrono::milliseconds drainTimeout{30000};
  TlsOptions tls;
  ServiceOptions service;
};

class Server {
public:
  static StatusOr<std::unique_ptr<Server>> start(const ServerOptions &options);
  ~Server();

  /// "host:port" actually bound, or a unix: address as given.
  const std::string &address() const { return address_; }
  const std::string &metricsAddress() const;
  AnyShapeService &service() { return *service_; }

  /// Stops admitting (health NOT_SERVING, new requests UNAVAILABLE),
  /// waits for admitted work up to the drain timeout, then shuts down.
  /// Returns true if everything in flight finished.
  bool drainAndStop();

private:
  Server() = default;
  ServerOptions options_;
  std::unique_ptr<AnyShapeService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<MetricsEndpoint> metrics_;
  std::string address_;
  bool stopped_ = false;
};

} // namespace anyshape::server

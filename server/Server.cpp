#include "server/Server.h"

#include "runtime/Allocator.h"
#include "server/Io.h"
#include "server/Log.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/server_credentials.h>

#include <filesystem>

namespace anyshape::server {
namespace {

StatusOr<std::string> readPem(const std::string &path, const char *what) {
  constexpr int64_t kLargestPem = 1 << 20;
  // Certificates are often symlinks (to a renewed file): follow them here,
  // which readFileChecked does not.
  std::error_code error;
  std::string resolved = std::filesystem::canonical(path, error);
  auto text = readFileChecked(error ? path : resolved, what, kLargestPem,
                              /*ownerOnly=*/false);
  if (!text.isOk())
    return invalidArgument(text.status().message());
  if (text->find("-----BEGIN ") == std::string::npos)
    return invalidArgument(std::string("the ") + what + " " + path +
                           " is not PEM");
  return text;
}

/// Plaintext, TLS, or mutual TLS (a client certificate signed by the CA
/// required and verified).
StatusOr<std::shared_ptr<grpc::ServerCredentials>>
listeningCredentials(const TlsOptions &tls) {
  if (tls.certFile.empty() && tls.keyFile.empty() && tls.clientCaFile.empty())
    return grpc::InsecureServerCredentials();
  if (tls.certFile.empty() || tls.keyFile.empty())
    return invalidArgument("TLS needs both --tls-cert and --tls-key");
  grpc::SslServerCredentialsOptions ssl;
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  ANYSHAPE_ASSIGN_OR_RETURN(pair.cert_chain,
                            readPem(tls.certFile, "TLS certificate"));
  ANYSHAPE_ASSIGN_OR_RETURN(pair.private_key,
                            readPem(tls.keyFile, "TLS private key"));
  ssl.pem_key_cert_pairs.push_back(std::move(pair));
  if (!tls.clientCaFile.empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(ssl.pem_root_certs,
                              readPem(tls.clientCaFile, "client CA"));
    ssl.client_certificate_request =
        GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(ssl);
}

/// The gRPC port's TLS for the metrics port too: one certificate, one
/// client CA, one way to reach either port.
StatusOr<MetricsTls> metricsTls(const TlsOptions &tls) {
  MetricsTls out;
  if (tls.certFile.empty())
    return out;
  ANYSHAPE_ASSIGN_OR_RETURN(out.certChain,
                            readPem(tls.certFile, "TLS certificate"));
  ANYSHAPE_ASSIGN_OR_RETURN(out.privateKey,
                            readPem(tls.keyFile, "TLS private key"));
  if (!tls.clientCaFile.empty()) {
    ANYSHAPE_ASSIGN_OR_RETURN(out.clientCa,
                              readPem(tls.clientCaFile, "client CA"));
  }
  return out;
}

} // namespace

StatusOr<std::unique_ptr<Server>> Server::start(const ServerOptions &options) {
  if (options.maxMessageBytes < 1024 ||
      options.maxMessageBytes > std::numeric_limits<int>::max())
    return invalidArgument("--max-message-bytes must be in [1024, 2^31)");
  ANYSHAPE_ASSIGN_OR_RETURN(
      std::shared_ptr<grpc::ServerCredentials> credentials,
      listeningCredentials(options.tls));
  std::unique_ptr<Server> server(new Server);
  server->options_ = options;
  ANYSHAPE_ASSIGN_OR_RETURN(server->service_,
                            AnyShapeService::create(options.service));

  grpc::EnableDefaultHealthCheckService(true);
  // Reflection answers without a token: with tokens, it is off.
  if (!options.service.auth)
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  // A Unix domain socket (unix:PATH, unix-abstract:NAME) reaches only
  // this machine, as loopback does, and has no port to report.
  bool unixSocket = options.listen.rfind("unix:", 0) == 0 ||
                    options.listen.rfind("unix-abstract:", 0) == 0;
  std::string host = options.listen.substr(0, options.listen.rfind(':'));
  bool loopback = unixSocket || host.rfind("127.", 0) == 0 ||
                  host == "localhost" || host == "[::1]";
  if (options.service.auth && options.tls.certFile.empty() && !loopback)
    logEvent(
        "warning", "tokens_in_plaintext",
        {{"message", "tokens are required but TLS is off on " + options.listen +
                         ": anyone on the path can read them "
                         "(--tls-cert, --tls-key)"}});
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, credentials, &port);
  builder.SetMaxReceiveMessageSize(static_cast<int>(options.maxMessageBytes));
  builder.SetMaxSendMessageSize(static_cast<int>(options.maxMessageBytes));
  builder.AddChannelArgument(GRPC_ARG_MAX_METADATA_SIZE,
                             options.maxMetadataBytes);
  builder.RegisterService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (!server->server_ || port == 0)
    return Status(StatusCode::Unavailable,
                  "cannot listen on " + options.listen);
  server->address_ =
      unixSocket ? options.listen : host + ":" + std::to_string(port);

  if (!options.metricsListen.empty()) {
    AnyShapeService *service = server->service_.get();
    Metrics &metrics = service->metrics();
    auto gauge = [&](std::string name, std::string help, std::string type,
                     std::function<double()> read) {
      metrics.gauges.push_back(
          {std::move(name), std::move(help), std::move(type), std::move(read)});
    };
    auto stat = [service](int64_t (v1::StatsResponse::*field)() const) {
      return [service, field] {
        return static_cast<double>((service->stats().*field)());
      };
    };
    gauge("anyshape_compiles_total", "Compiles (cache misses that compiled).",
          "counter", stat(&v1::StatsResponse::compiles));
    gauge("anyshape_compile_errors_total", "Compiles that failed.", "counter",
          stat(&v1::StatsResponse::compile_errors));
    gauge("anyshape_cache_hits_total",
          "Compile requests served without compiling.", "counter",
          stat(&v1::StatsResponse::cache_hits));
    gauge("anyshape_cache_misses_total", "Compile requests that compiled.",
          "counter", stat(&v1::StatsResponse::cache_misses));
    gauge("anyshape_cache_disk_loads_total",
          "Executables loaded from the disk cache.", "counter",
          stat(&v1::StatsResponse::disk_loads));
    gauge("anyshape_cache_dropped_entries_total",
          "Disk-cache entries refused (damaged, unauthenticated, "
          "incompatible) and recompiled.",
          "counter", stat(&v1::StatsResponse::cache_dropped_entries));
    gauge("anyshape_cache_store_errors_total",
          "Compiles the disk cache could not store (served from memory).",
          "counter", stat(&v1::StatsResponse::cache_store_errors));
    gauge("anyshape_cache_tier_errors_total",
          "Cache tier reads that failed (unreadable disk entry, Redis "
          "failing); served from the next tier or compiled.",
          "counter", stat(&v1::StatsResponse::cache_tier_errors));
    gauge("anyshape_redis_hits_total",
          "Executables loaded from the shared Redis tier.", "counter",
          stat(&v1::StatsResponse::redis_hits));
    gauge("anyshape_redis_errors_total",
          "Redis commands that failed (unreachable, slow, refused).", "counter",
          stat(&v1::StatsResponse::redis_errors));
    gauge("anyshape_redis_leases_taken_total",
          "Compiles run under a Redis lease.", "counter",
          stat(&v1::StatsResponse::redis_leases_taken));
    gauge("anyshape_redis_lease_waits_total",
          "Compiles that waited for another server's.", "counter",
          stat(&v1::StatsResponse::redis_lease_waits));
    gauge("anyshape_redis_lease_takeovers_total",
          "Leases taken over from a server that stopped renewing.", "counter",
          stat(&v1::StatsResponse::redis_lease_takeovers));
    gauge("anyshape_redis_available", "1 while Redis is reachable.", "gauge",
          [service] { return service->stats().redis_available() ? 1.0 : 0.0; });
    gauge("anyshape_specializations_total",
          "Hot shapes' specialisations compiled or loaded in the background.",
          "counter", stat(&v1::StatsResponse::specializations));
    gauge("anyshape_specialization_errors_total",
          "Hot shapes' specialisations that failed (the shape stays dynamic).",
          "counter", stat(&v1::StatsResponse::specialization_errors));
    gauge("anyshape_specialized_executions_total",
          "Executions run on a hot shape's specialisation.", "counter",
          stat(&v1::StatsResponse::specialized_executions));
    gauge("anyshape_cache_evictions_total", "Executables evicted from memory.",
          "counter", stat(&v1::StatsResponse::evictions));
    gauge("anyshape_loaded_executables", "Executables in memory.", "gauge",
          stat(&v1::StatsResponse::loaded_executables));
    gauge("anyshape_cache_bytes", "Bytes of executables in memory.", "gauge",
          stat(&v1::StatsResponse::cache_bytes));
    gauge("anyshape_stored_tensors", "Tensors in the tensor store.", "gauge",
          stat(&v1::StatsResponse::stored_tensors));
    gauge("anyshape_stored_tensor_bytes", "Bytes in the tensor store.", "gauge",
          stat(&v1::StatsResponse::stored_tensor_bytes));
    gauge("anyshape_buffer_cache_bytes",
          "Freed buffers kept by the runtime allocator.", "gauge",
          [] { return double(runtime::allocatorStats().bytesCached); });
    gauge("anyshape_process_resident_memory_bytes",
          "Resident memory of the server process.", "gauge",
          [] { return double(residentMemoryBytes()); });
    ANYSHAPE_ASSIGN_OR_RETURN(MetricsTls tls, metricsTls(options.tls));
    ANYSHAPE_ASSIGN_OR_RETURN(
        server->metrics_,
        MetricsEndpoint::start(
            options.metricsListen,
            [service] { return service->metrics().renderPrometheus(); }, tls));
  }
  server->server_->GetHealthCheckService()->SetServingStatus(true);
  logEvent("info", "serving",
           {{"address", server->address_},
            {"metrics", server->metricsAddress()},
            {"cache_dir", options.service.cacheDir}});
  return server;
}

const std::string &Server::metricsAddress() const {
  static const std::string none;
  return metrics_ ? metrics_->address() : none;
}

bool Server::drainAndStop() {
  if (stopped_ || !server_)
    return true;
  stopped_ = true;
  logEvent(
      "info", "draining",
      {{"in_flight", std::to_string(service_->metrics().inFlight.load())}});
  server_->GetHealthCheckService()->SetServingStatus(false);
  service_->startDraining();
  auto deadline = std::chrono::steady_clock::now() + options_.drainTimeout;
  bool idle = service_->waitUntilIdle(deadline);
  if (!idle) {
    // Out of time: stop the compiles (their requests fail UNAVAILABLE and
    // reply at once), then give the replies a moment to leave.
    service_->stopCompiles();
    service_->waitUntilIdle(std::chrono::steady_clock::now() +
                            std::chrono::milliseconds(500));
  }
  // Idle means every admitted call has sent its reply (reactors count
  // until gRPC is done with them); whatever is left is cancelled.
  server_->Shutdown(std::chrono::system_clock::now() +
                    std::chrono::milliseconds(100));
  server_->Wait();
  metrics_.reset();
  logEvent("info", "stopped", {{"drained", idle ? "true" : "false"}});
  return idle;
}

Server::~Server() { drainAndStop(); }

} // namespace anyshape::server

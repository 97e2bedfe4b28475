// Client: the C++ SDK's connection to an anyshape server (docs/client.md).
//
// One Client owns one gRPC channel (its own connection) and is safe to use
// from many threads at once. Every call returns a Status or StatusOr whose
// code is the server's gRPC code; calls that fail with UNAVAILABLE (server
// starting, draining, connection lost) are retried with exponential backoff
// and jitter, up to ClientOptions::maxAttempts, inside the per-call
// deadline. Every RPC of the service is idempotent (compiles and uploads are
// keyed by content), so retrying is always safe. gRPC types stay out of this
// header: users see the wire-format messages and anyshape::Status only.
#pragma once

#include "anyshape/v1/service.pb.h"
#include "runtime/support/Status.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

namespace anyshape::client {

struct ClientOptions {
  /// Largest message sent or received (the server's default is the same).
  int64_t maxMessageBytes = int64_t(256) << 20;
  /// Attempts per call, the first included; only UNAVAILABLE and
  /// CANCELLED (a server shutting down) are retried.
  int maxAttempts = 5;
  /// Backoff before retry n is initialBackoff * 2^(n-1), capped at
  /// maxBackoff, then scaled by a random factor in [0.5, 1].
  std::chrono::milliseconds initialBackoff{50};
  std::chrono::milliseconds maxBackoff{2000};
  /// Deadline of one call, retries included; 0 means none.
  std::chrono::milliseconds deadline{0};
  /// How long connect() waits for the channel to become ready.
  std::chrono::milliseconds connectTimeout{5000};
  /// Sent as `authorization: Bearer TOKEN` on every call, for a server run
  /// with --auth-tokens; empty: none.
  std::string token;
  /// TLS: the PEM certificate(s) of the CA that signed the server's
  /// certificate; empty: plaintext (a loopback server's default).
  std::string tlsRootCerts;
  /// Mutual TLS (a server run with --tls-client-ca): this client's PEM
  /// certificate chain and private key.
  std::string tlsCertChain;
  std::string tlsPrivateKey;
  /// The name the server's certificate must carry, when it is not the
  /// address's host.
  std::string tlsServerName;
};

/// `base` with the connection's security from the environment, as the
/// command-line tools take it: ANYSHAPE_TOKEN_FILE (a file holding the
/// token), ANYSHAPE_TLS_CA (PEM of the server certificate's CA: TLS),
/// ANYSHAPE_TLS_CERT and ANYSHAPE_TLS_KEY (mutual TLS), and
/// ANYSHAPE_TLS_SERVER_NAME. An unreadable file is INVALID_ARGUMENT naming
/// the variable.
StatusOr<ClientOptions> clientOptionsFromEnvironment(ClientOptions base = {});

/// A compiled executable: `id` is the server's compile cache key, shared by
/// every client that compiles the same graph with the same options.
struct Compiled {
  std::string id;
  v1::ExecutableInfo info;
  bool cacheHit = false;
  double compileMs = 0;
};

/// Stores one tensor and returns its content id (Client::uploadTensor, or a
/// fake in tests).
using UploadFunction = std::function<StatusOr<std::string>(const v1::Tensor &)>;

/// Returns `graph` with every constant whose value is inline `data` of at
/// least `minBytes` bytes uploaded through `upload` and replaced by its
/// tensor_id. Splat, seeded and already stored constants are left alone.
/// The first failed upload is returned.
StatusOr<v1::Graph> offloadConstants(const v1::Graph &graph, int64_t minBytes,
                                     const UploadFunction &upload);

class Client {
public:
  using RunResult = StatusOr<std::vector<v1::Tensor>>;
  using RunCallback = std::function<void(RunResult)>;

  /// Opens a channel to `address` and waits up to options.connectTimeout
  /// for it to be ready; UNAVAILABLE otherwise. `address` is one server
  /// ("host:port"), several ("10.0.0.1:50051,10.0.0.2:50051", IP
  /// addresses) or a gRPC target URI ("dns:///anyshape.internal:50051");
  /// with several, calls go round-robin over the servers that pass gRPC's
  /// health check, skipping one that drains or dies (servers sharing a
  /// cache tier serve each other's executables: docs/service.md).
  static StatusOr<std::unique_ptr<Client>> connect(const std::string &address,
                                                   ClientOptions options = {});
  /// Waits for every runAsync still in flight.
  ~Client();
  Client(const Client &) = delete;
  Client &operator=(const Client &) = delete;

  const std::string &address() const;

  /// Streams the tensor to the server's tensor store in 1 MiB chunks and
  /// returns its content id (the same bytes always get the same id).
  StatusOr<std::string> uploadTensor(const v1::Tensor &tensor);
  /// offloadConstants through this client's uploadTensor: weights are sent
  /// once, and later compiles carry only their ids.
  StatusOr<v1::Graph> offloadConstants(const v1::Graph &graph,
                                       int64_t minBytes = 4096);

  StatusOr<Compiled> compile(const v1::Graph &graph,
                             const v1::CompileOptions &options = {});
  /// Compiles the ONNX model whose serialised ModelProto is `modelBytes`:
  /// the server imports it (docs/onnx.md), so the client needs no ONNX
  /// library. Its weights travel inline, in one message of at most
  /// ClientOptions::maxMessageBytes; external data is an error.
  StatusOr<Compiled> compileOnnx(const std::string &modelBytes,
                                 const v1::CompileOptions &options = {});

  /// Executes with inputs in graph input order; returns the outputs in graph
  /// output order. With `timing`, also what the server measured: the
  /// request's wait for an execution slot and the run itself (what is left
  /// of the call's latency is transport and (de)serialisation). Inputs
  /// passed with std::move go into the request without a copy.
  RunResult run(const Compiled &compiled,
                std::vector<v1::Tensor> inputsInGraphOrder,
                v1::ExecuteTiming *timing = nullptr);
  /// Executes by executable id with named inputs (inline or tensor_id);
  /// returns the outputs named by the graph's output names. The outputs
  /// named in `keepOutputs` stay in the server and come back as a
  /// tensor_id, which later runs take as an input (a decoder's cache fed
  /// back each step) until freeTensors frees it; the server drops one no
  /// request names for its idle limit (docs/service.md). A retried call
  /// may keep a second set, which idles out. `freeAfter`: kept tensors
  /// the server frees once this run is done (the cache the step
  /// consumed), saving a freeTensors round trip.
  StatusOr<std::vector<v1::NamedTensor>>
  run(const std::string &executableId,
      const std::vector<v1::NamedTensor> &inputs,
      const std::vector<std::string> &keepOutputs = {},
      const std::vector<std::string> &freeAfter = {});
  /// Frees kept outputs; returns how many were held (ids already freed or
  /// expired are skipped, so a retry is harmless).
  StatusOr<int64_t> freeTensors(const std::vector<std::string> &tensorIds);

  /// run() without blocking: `done` is called exactly once with the outputs
  /// or the error, on a gRPC thread (so it must neither block nor throw), or
  /// before runAsync returns if the inputs do not match the executable.
  /// Retries wait on a gRPC timer, never on a thread.
  void runAsync(const Compiled &compiled, std::vector<v1::Tensor> inputs,
                RunCallback done);
  std::future<RunResult> runAsync(const Compiled &compiled,
                                  std::vector<v1::Tensor> inputs);

  StatusOr<v1::ExecutableInfo> info(const std::string &executableId);
  /// True if the executable was loaded. Unloading frees server memory; a
  /// later run may recompile it or fail with NOT_FOUND.
  StatusOr<bool> unload(const std::string &executableId);
  StatusOr<v1::StatsResponse> stats();

  struct Impl; // client/lib/Client.cpp

private:
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Whether `address` (as Client::connect takes it) may name several
/// servers: a list or a target URI. Their tensor stores are their own, so
/// an uploaded tensor is on one of them only.
bool namesSeveralServers(const std::string &address);

/// Client::connect with clientOptionsFromEnvironment(): what the
/// command-line tools use.
StatusOr<std::unique_ptr<Client>>
connectWithEnvironment(const std::string &address);

} // namespace anyshape::client

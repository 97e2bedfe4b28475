// The client SDK's gRPC side: one channel per Client, blocking calls wrapped
// in one retry loop, and asynchronous runs on gRPC's callback API whose
// retries wait on a gRPC alarm rather than on a thread. gRPC statuses become
// anyshape::Status in fromGrpcStatus and nowhere else.
#include "anyshape/client/Client.h"

#include "ChannelTarget.h"
#include "GrpcSupport.h"
#include "anyshape/v1/service.grpc.pb.h"
#include "runtime/support/HandOff.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <grpcpp/alarm.h>
#include <grpcpp/grpcpp.h>
#include <sstream>

#include <algorithm>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

namespace anyshape::client {
namespace {

// gRPC deadlines and alarms take system_clock time points.
using Clock = std::chrono::system_clock;
using Milliseconds = std::chrono::milliseconds;
constexpr size_t kUploadChunkBytes = size_t(1) << 20;

const char *grpcCodeName(grpc::StatusCode code) {
  switch (code) {
  case grpc::StatusCode::OK:
    return "OK";
  case grpc::StatusCode::CANCELLED:
    return "CANCELLED";
  case grpc::StatusCode::UNKNOWN:
    return "UNKNOWN";
  case grpc::StatusCode::ALREADY_EXISTS:
    return "ALREADY_EXISTS";
  case grpc::StatusCode::PERMISSION_DENIED:
    return "PERMISSION_DENIED";
  case grpc::StatusCode::ABORTED:
    return "ABORTED";
  case grpc::StatusCode::OUT_OF_RANGE:
    return "OUT_OF_RANGE";
  case grpc::StatusCode::UNAUTHENTICATED:
    return "UNAUTHENTICATED";
  default:
    return "gRPC status";
  }
}

double drawJitter() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.5, 1.0)(rng);
}

/// Moves the response's outputs into graph output order. The server names
/// them by the graph's output names, in order; a lookup by name covers a
/// server that reorders them.
StatusOr<std::vector<v1::Tensor>> outputsInOrder(
    const google::protobuf::RepeatedPtrField<v1::TensorSignature> &signatures,
    v1::ExecuteResponse &response) {
  if (response.outputs_size() != signatures.size())
    return internalError(
        "the server returned " + std::to_string(response.outputs_size()) +
        " outputs for an executable with " + std::to_string(signatures.size()));
  std::vector<v1::Tensor> outputs(signatures.size());
  for (int k = 0; k < signatures.size(); ++k) {
    const std::string &name = signatures[k].name();
    v1::NamedTensor *named = response.mutable_outputs(k);
    if (named->name() != name)
      for (v1::NamedTensor &other : *response.mutable_outputs())
        if (other.name() == name && other.has_tensor()) {
          named = &other;
          break;
        }
    if (named->name() != name || !named->has_tensor())
      return internalError("the server returned no inline tensor for output '" +
                           name + "'");
    outputs[k].Swap(named->mutable_tensor());
  }
  return outputs;
}

} // namespace

Status fromGrpcStatus(const grpc::Status &status) {
  auto code = static_cast<StatusCode>(status.error_code());
  switch (code) {
  case StatusCode::Ok:
    return Status::ok();
  case StatusCode::InvalidArgument:
  case StatusCode::DeadlineExceeded:
  case StatusCode::NotFound:
  case StatusCode::PermissionDenied:
  case StatusCode::ResourceExhausted:
  case StatusCode::FailedPrecondition:
  case StatusCode::Unimplemented:
  case StatusCode::Internal:
  case StatusCode::Unavailable:
  case StatusCode::DataLoss:
  case StatusCode::Unauthenticated:
    return Status(code, status.error_message());
  }
  return Status(code, std::string(grpcCodeName(status.error_code())) + ": " +
                          status.error_message());
}

std::chrono::milliseconds backoffDelay(const ClientOptions &options, int retry,
                                       double jitter) {
  double initial = std::max<double>(0, options.initialBackoff.count());
  double cap = std::max<double>(0, options.maxBackoff.count());
  // Past 2^62 the cap has long been reached; keep pow finite.
  double delay =
      std::min(cap, initial * std::pow(2.0, std::clamp(retry - 1, 0, 62)));
  return Milliseconds(
      static_cast<int64_t>(delay * std::clamp(jitter, 0.5, 1.0)));
}

StatusOr<v1::Graph> offloadConstants(const v1::Graph &graph, int64_t minBytes,
                                     const UploadFunction &upload) {
  v1::Graph result = graph;
  for (v1::Node &node : *result.mutable_nodes()) {
    if (node.op() != "constant" || !node.has_constant())
      continue;
    v1::ConstantAttrs &attrs = *node.mutable_constant();
    if (attrs.value_case() != v1::ConstantAttrs::kData ||
        static_cast<int64_t>(attrs.data().size()) < minBytes)
      continue;
    v1::Tensor tensor;
    tensor.set_dtype(attrs.dtype());
    *tensor.mutable_shape() = attrs.shape();
    tensor.mutable_data()->swap(*attrs.mutable_data());
    StatusOr<std::string> id = upload(tensor);
    if (!id)
      return id.status().withContext("uploading constant '" + node.name() +
                                     "'");
    attrs.set_tensor_id(*id);
  }
  return result;
}

struct Client::Impl {
  std::string address;
  ClientOptions options;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::AnyShape::Stub> stub;

  std::mutex mutex;
  std::condition_variable idle;
  int64_t asyncInFlight = 0; // guarded by mutex

  /// The deadline of a call starting now; time_point::max() for none.
  Clock::time_point callDeadline() const {
    return options.deadline.count() > 0 ? Clock::now() + options.deadline
                                        : Clock::time_point::max();
  }

  /// The deadline and, for a server with --auth-tokens, the token.
  void prepareContext(grpc::ClientContext &context,
                      Clock::time_point deadline) const {
    if (deadline != Clock::time_point::max())
      context.set_deadline(deadline);
    if (!options.token.empty())
      context.AddMetadata("authorization", "Bearer " + options.token);
  }

  /// How long to wait before retrying after `status` ended attempt
  /// `attempt`, or nothing if the call must not be retried.
  /// UNAVAILABLE (starting, draining, connection lost), and CANCELLED:
  /// the SDK never cancels a call, so a CANCELLED is the server's, one
  /// that began shutting down as the call reached it (gRPC cancels calls
  /// that arrive during Server::Shutdown), and every RPC is idempotent.
  static bool retryable(const grpc::Status &status) {
    return status.error_code() == grpc::StatusCode::UNAVAILABLE ||
           status.error_code() == grpc::StatusCode::CANCELLED;
  }

  std::optional<Milliseconds> retryWait(const grpc::Status &status, int attempt,
                                        Clock::time_point deadline) const {
    if (!retryable(status) || attempt >= options.maxAttempts)
      return std::nullopt;
    Milliseconds wait = backoffDelay(options, attempt, drawJitter());
    if (deadline != Clock::time_point::max() && Clock::now() + wait >= deadline)
      return std::nullopt;
    return wait;
  }

  /// The error a call ends with. The server's own errors pass through
  /// unchanged; an unreachable server is named with the attempts made.
  Status finalStatus(const char *method, const grpc::Status &status,
                     int attempts) const {
    Status result = fromGrpcStatus(status);
    if (!retryable(status))
      return result;
    return Status(result.code(),
                  std::string(method) + " on " + address + " failed after " +
                      std::to_string(attempts) + " attempt" +
                      (attempts == 1 ? "" : "s") + ": " + result.message());
  }

  /// Runs `attempt(context)` (a blocking RPC) until it succeeds, fails with
  /// a code other than UNAVAILABLE, or runs out of attempts or time.
  template <typename Attempt> Status call(const char *method, Attempt attempt) {
    Clock::time_point deadline = callDeadline();
    for (int n = 1;; ++n) {
      grpc::ClientContext context;
      prepareContext(context, deadline);
      grpc::Status status = attempt(context);
      if (status.ok())
        return Status::ok();
      std::optional<Milliseconds> wait = retryWait(status, n, deadline);
      if (!wait)
        return finalStatus(method, status, n);
      std::this_thread::sleep_for(*wait);
    }
  }

  void beginAsync() {
    std::lock_guard<std::mutex> lock(mutex);
    ++asyncInFlight;
  }
  // Notifies under the lock: once it is released the Impl may be gone.
  void endAsync() {
    std::lock_guard<std::mutex> lock(mutex);
    --asyncInFlight;
    idle.notify_all();
  }

  /// Compile with retries, for a graph or an ONNX model alike.
  StatusOr<Compiled> compile(const v1::CompileRequest &request);
};

namespace {

/// One runAsync call: owns the request and response across attempts and
/// keeps itself alive (shared_from_this) while gRPC or the alarm holds it.
struct AsyncRun : std::enable_shared_from_this<AsyncRun> {
  Client::Impl *impl = nullptr;
  google::protobuf::RepeatedPtrField<v1::TensorSignature> outputs;
  v1::ExecuteRequest request;
  v1::ExecuteResponse response;
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<grpc::Alarm> alarm;
  std::shared_ptr<AsyncRun> waiting;   // set while the alarm is pending
  std::shared_ptr<AsyncRun> executing; // set while an Execute is in flight
  Clock::time_point deadline;
  int attempt = 0;
  grpc::Status lastStatus;
  Client::RunCallback done;

  void start() {
    ++attempt;
    context = std::make_unique<grpc::ClientContext>();
    impl->prepareContext(*context, deadline);
    response.Clear();
    // The strong reference waits in `executing` and the callback holds
    // `this` raw: gRPC copies the callback on its own threads, and a
    // plain pointer's copies are gRPC's (HandOff.h).
    executing = shared_from_this();
    handOffRelease(this);
    impl->stub->async()->Execute(
        context.get(), &request, &response, [this](grpc::Status status) {
          handOffAcquire(this);
          std::shared_ptr<AsyncRun> self = std::move(executing);
          finished(std::move(status));
        });
  }

  void finished(grpc::Status status) {
    if (status.ok()) {
      complete(outputsInOrder(outputs, response));
      return;
    }
    lastStatus = std::move(status);
    std::optional<Milliseconds> wait =
        impl->retryWait(lastStatus, attempt, deadline);
    if (!wait) {
      complete(impl->finalStatus("Execute", lastStatus, attempt));
      return;
    }
    // The alarm keeps its callback until it is destroyed, so the callback
    // holds `this` raw and the strong reference lives in `waiting`, dropped
    // when the alarm fires (no alarm -> callback -> this cycle).
    waiting = shared_from_this();
    alarm = std::make_unique<grpc::Alarm>();
    handOffRelease(this);
    alarm->Set(Clock::now() + *wait, [this](bool fired) {
      handOffAcquire(this);
      std::shared_ptr<AsyncRun> self = std::move(waiting);
      if (fired)
        start();
      else // cancelled: gRPC is shutting down
        complete(impl->finalStatus("Execute", lastStatus, attempt));
    });
  }

  void complete(Client::RunResult result) {
    Client::RunCallback callback = std::move(done);
    Client::Impl *owner = impl;
    callback(std::move(result));
    owner->endAsync();
  }
};

/// An Execute request naming the executable's inputs in graph order, their
/// tensors still empty; or an error if `count` is not the number of inputs.
StatusOr<v1::ExecuteRequest> executeRequestFor(const Compiled &compiled,
                                               size_t count) {
  const v1::ExecutableInfo &info = compiled.info;
  if (static_cast<int64_t>(count) != info.inputs_size())
    return invalidArgument("executable " + compiled.id + " takes " +
                           std::to_string(info.inputs_size()) +
                           " inputs, got " + std::to_string(count));
  v1::ExecuteRequest request;
  request.set_executable_id(compiled.id);
  for (const v1::TensorSignature &input : info.inputs())
    request.add_inputs()->set_name(input.name());
  return request;
}

} // namespace

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Client::~Client() {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  impl_->idle.wait(lock, [&] { return impl_->asyncInFlight == 0; });
}

namespace {

/// The contents of the file that environment variable `name` names, or ""
/// when it is unset.
StatusOr<std::string> fileNamedBy(const char *name) {
  const char *path = std::getenv(name);
  if (!path || !*path)
    return std::string();
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof())
    return invalidArgument(std::string("cannot read ") + path + " (" + name +
                           ")");
  return text.str();
}

} // namespace

StatusOr<ClientOptions> clientOptionsFromEnvironment(ClientOptions base) {
  ANYSHAPE_ASSIGN_OR_RETURN(std::string token,
                            fileNamedBy("ANYSHAPE_TOKEN_FILE"));
  // A token file usually ends in a newline.
  while (!token.empty() &&
         std::isspace(static_cast<unsigned char>(token.back())))
    token.pop_back();
  if (!token.empty())
    base.token = token;
  ANYSHAPE_ASSIGN_OR_RETURN(std::string ca, fileNamedBy("ANYSHAPE_TLS_CA"));
  if (!ca.empty())
    base.tlsRootCerts = ca;
  ANYSHAPE_ASSIGN_OR_RETURN(std::string cert, fileNamedBy("ANYSHAPE_TLS_CERT"));
  if (!cert.empty())
    base.tlsCertChain = cert;
  ANYSHAPE_ASSIGN_OR_RETURN(std::string key, fileNamedBy("ANYSHAPE_TLS_KEY"));
  if (!key.empty())
    base.tlsPrivateKey = key;
  if (const char *name = std::getenv("ANYSHAPE_TLS_SERVER_NAME"))
    base.tlsServerName = name;
  return base;
}

StatusOr<std::unique_ptr<Client>>
connectWithEnvironment(const std::string &address) {
  ANYSHAPE_ASSIGN_OR_RETURN(ClientOptions options,
                            clientOptionsFromEnvironment());
  return Client::connect(address, std::move(options));
}

bool namesSeveralServers(const std::string &address) {
  auto target = channelTarget(address);
  return target.isOk() && target->balanced;
}

StatusOr<std::unique_ptr<Client>> Client::connect(const std::string &address,
                                                  ClientOptions options) {
  ANYSHAPE_ASSIGN_OR_RETURN(ChannelTarget target, channelTarget(address));
  options.maxAttempts = std::max(1, options.maxAttempts);
  grpc::ChannelArguments args;
  if (target.balanced)
    args.SetServiceConfigJSON(balancedServiceConfig());
  int limit = options.maxMessageBytes <= 0
                  ? -1 // unlimited
                  : static_cast<int>(
                        std::min<int64_t>(options.maxMessageBytes, INT_MAX));
  args.SetMaxSendMessageSize(limit);
  args.SetMaxReceiveMessageSize(limit);
  // A Client is one connection: clients made for concurrency (the load
  // generator's) must not share a TCP connection behind the user's back.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  // Reconnect on the retry schedule: with gRPC's own (1 s at first) every
  // retry of a restarting server could fail fast before it reconnects.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
              static_cast<int>(std::clamp<int64_t>(
                  options.initialBackoff.count(), 1, INT_MAX)));
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,
              static_cast<int>(
                  std::clamp<int64_t>(options.maxBackoff.count(), 1, INT_MAX)));
  // gRPC aborts on a metadata value it cannot send: check it here.
  for (char c : options.token)
    if (c <= ' ' || c >= 0x7f)
      return invalidArgument("a token has printable ASCII characters only, "
                             "without spaces");
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      grpc::InsecureChannelCredentials();
  if (!options.tlsRootCerts.empty()) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = options.tlsRootCerts;
    ssl.pem_cert_chain = options.tlsCertChain;
    ssl.pem_private_key = options.tlsPrivateKey;
    credentials = grpc::SslCredentials(ssl);
    if (!options.tlsServerName.empty())
      args.SetSslTargetNameOverride(options.tlsServerName);
  } else if (!options.tlsCertChain.empty() || !options.tlsPrivateKey.empty()) {
    return invalidArgument("a TLS client certificate needs tlsRootCerts, the "
                           "CA of the server's certificate");
  }
  auto impl = std::make_unique<Impl>();
  impl->address = address;
  impl->options = options;
  impl->channel = grpc::CreateCustomChannel(target.target, credentials, args);
  if (!impl->channel->WaitForConnected(Clock::now() + options.connectTimeout))
    return Status(StatusCode::Unavailable,
                  "cannot connect to an anyshape server at " + address +
                      " within " +
                      std::to_string(options.connectTimeout.count()) + " ms");
  impl->stub = v1::AnyShape::NewStub(impl->channel);
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

const std::string &Client::address() const { return impl_->address; }

StatusOr<std::string> Client::uploadTensor(const v1::Tensor &tensor) {
  v1::UploadTensorResponse response;
  const std::string &data = tensor.data();
  ANYSHAPE_RETURN_IF_ERROR(
      impl_->call("UploadTensor", [&](grpc::ClientContext &context) {
        response.Clear();
        auto writer = impl_->stub->UploadTensor(&context, &response);
        size_t offset = 0;
        do { // at least one chunk: it carries dtype and shape
          v1::UploadTensorChunk chunk;
          if (offset == 0) {
            chunk.set_dtype(tensor.dtype());
            *chunk.mutable_shape() = tensor.shape();
          }
          size_t n = std::min(kUploadChunkBytes, data.size() - offset);
          chunk.set_data(data.data() + offset, n);
          offset += n;
          if (!writer->Write(chunk))
            break; // the server ended the stream; Finish says why
        } while (offset < data.size());
        writer->WritesDone();
        return writer->Finish();
      }));
  if (response.tensor_id().empty())
    return internalError("UploadTensor returned no tensor id");
  return response.tensor_id();
}

StatusOr<v1::Graph> Client::offloadConstants(const v1::Graph &graph,
                                             int64_t minBytes) {
  return client::offloadConstants(
      graph, minBytes,
      [this](const v1::Tensor &tensor) { return uploadTensor(tensor); });
}

StatusOr<Compiled> Client::compile(const v1::Graph &graph,
                                   const v1::CompileOptions &options) {
  v1::CompileRequest request;
  *request.mutable_graph() = graph;
  *request.mutable_options() = options;
  return impl_->compile(request);
}

StatusOr<Compiled> Client::compileOnnx(const std::string &modelBytes,
                                       const v1::CompileOptions &options) {
  v1::CompileRequest request;
  request.set_onnx_model(modelBytes);
  *request.mutable_options() = options;
  return impl_->compile(request);
}

StatusOr<Compiled> Client::Impl::compile(const v1::CompileRequest &request) {
  v1::CompileResponse response;
  ANYSHAPE_RETURN_IF_ERROR(call("Compile", [&](grpc::ClientContext &context) {
    return stub->Compile(&context, request, &response);
  }));
  if (response.info().executable_id().empty())
    return internalError("Compile returned no executable id");
  Compiled compiled;
  compiled.id = response.info().executable_id();
  compiled.info = std::move(*response.mutable_info());
  compiled.cacheHit = response.cache_hit();
  compiled.compileMs = response.compile_ms();
  return compiled;
}

Client::RunResult Client::run(const Compiled &compiled,
                              std::vector<v1::Tensor> inputs,
                              v1::ExecuteTiming *timing) {
  ANYSHAPE_ASSIGN_OR_RETURN(v1::ExecuteRequest request,
                            executeRequestFor(compiled, inputs.size()));
  for (size_t k = 0; k < inputs.size(); ++k)
    request.mutable_inputs(k)->mutable_tensor()->Swap(&inputs[k]);
  v1::ExecuteResponse response;
  ANYSHAPE_RETURN_IF_ERROR(
      impl_->call("Execute", [&](grpc::ClientContext &context) {
        return impl_->stub->Execute(&context, request, &response);
      }));
  if (timing)
    *timing = response.timing();
  return outputsInOrder(compiled.info.outputs(), response);
}

StatusOr<std::vector<v1::NamedTensor>>
Client::run(const std::string &executableId,
            const std::vector<v1::NamedTensor> &inputs,
            const std::vector<std::string> &keepOutputs,
            const std::vector<std::string> &freeAfter) {
  v1::ExecuteRequest request;
  request.set_executable_id(executableId);
  for (const v1::NamedTensor &input : inputs)
    *request.add_inputs() = input;
  for (const std::string &name : keepOutputs)
    request.add_keep_outputs(name);
  for (const std::string &id : freeAfter)
    request.add_free_after(id);
  v1::ExecuteResponse response;
  ANYSHAPE_RETURN_IF_ERROR(
      impl_->call("Execute", [&](grpc::ClientContext &context) {
        return impl_->stub->Execute(&context, request, &response);
      }));
  return std::vector<v1::NamedTensor>(
      std::make_move_iterator(response.mutable_outputs()->begin()),
      std::make_move_iterator(response.mutable_outputs()->end()));
}

void Client::runAsync(const Compiled &compiled, std::vector<v1::Tensor> inputs,
                      RunCallback done) {
  auto request = executeRequestFor(compiled, inputs.size());
  if (!request) {
    done(request.status());
    return;
  }
  for (size_t k = 0; k < inputs.size(); ++k)
    request->mutable_inputs(k)->mutable_tensor()->Swap(&inputs[k]);
  auto run = std::make_shared<AsyncRun>();
  run->impl = impl_.get();
  run->outputs = compiled.info.outputs();
  run->request = std::move(*request);
  run->deadline = impl_->callDeadline();
  run->done = std::move(done);
  impl_->beginAsync();
  run->start();
}

std::future<Client::RunResult>
Client::runAsync(const Compiled &compiled, std::vector<v1::Tensor> inputs) {
  auto promise = std::make_shared<std::promise<RunResult>>();
  std::future<RunResult> future = promise->get_future();
  runAsync(compiled, std::move(inputs), [promise](RunResult result) {
    promise->set_value(std::move(result));
  });
  return future;
}

StatusOr<v1::ExecutableInfo> Client::info(const std::string &executableId) {
  v1::GetExecutableRequest request;
  request.set_executable_id(executableId);
  v1::ExecutableInfo response;
  ANYSHAPE_RETURN_IF_ERROR(
      impl_->call("GetExecutable", [&](grpc::ClientContext &context) {
        return impl_->stub->GetExecutable(&context, request, &response);
      }));
  return response;
}

StatusOr<bool> Client::unload(const std::string &executableId) {
  v1::UnloadRequest request;
  request.set_executable_id(executableId);
  v1::UnloadResponse response;
  ANYSHAPE_RETURN_IF_ERROR(
      impl_->call("Unload", [&](grpc::ClientContext &context) {
        return impl_->stub->Unload(&context, request, &response);
      }));
  return response.was_loaded();
}

StatusOr<int64_t>
Client::freeTensors(const std::vector<std::string> &tensorIds) {
  v1::FreeTensorsRequest request;
  for (const std::string &id : tensorIds)
    request.add_tensor_ids(id);
  v1::FreeTensorsResponse response;
  ANYSHAPE_RETURN_IF_ERROR(
      impl_->call("FreeTensors", [&](grpc::ClientContext &context) {
        return impl_->stub->FreeTensors(&context, request, &response);
      }));
  return response.freed();
}

StatusOr<v1::StatsResponse> Client::stats() {
  v1::StatsResponse response;
  ANYSHAPE_RETURN_IF_ERROR(
      impl_->call("Stats", [&](grpc::ClientContext &context) {
        return impl_->stub->Stats(&context, v1::StatsRequest(), &response);
      }));
  return response;
}

} // namespace anyshape::client

// anyshape-server: the compile-once, run-any-shape service.
//
//   anyshape-server [--listen 127.0.0.1:50051] [--cache-dir DIR] ...
//
// Runs until SIGTERM or SIGINT, then drains: health turns NOT_SERVING, new
// requests get UNAVAILABLE, admitted ones finish (bounded by
// --drain-seconds), and the process exits 0.
#include "server/Server.h"

#include "runtime/Allocator.h"
#include "runtime/Threading.h"
#include "runtime/cuda/CudaDevice.h"
#include "server/HeapPolicy.h"
#include "server/Io.h"
#include "server/Log.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <pthread.h>
#include <unistd.h>

namespace {

const char *kUsage = R"(usage: anyshape-server [options]

  --listen ADDR            gRPC address (default 127.0.0.1:50051; loopback
                           only unless you choose otherwise; port 0 picks a
                           free port; unix:PATH listens on a Unix domain
                           socket, for clients on this machine)
  --port-file FILE         write the bound host:port (or the unix: address)
                           to FILE once serving
  --tls-cert FILE          serve TLS with this PEM certificate chain ...
  --tls-key FILE           ... and this PEM private key (default: plaintext,
                           for loopback)
  --tls-client-ca FILE     mutual TLS: require a client certificate signed by
                           this PEM CA
  --auth-tokens FILE       require `authorization: Bearer TOKEN` metadata;
                           FILE (mode 0600) has a `TOKEN ROLE[,ROLE]` line
                           per token, roles compile (Compile, UploadTensor),
                           execute (Execute, GetExecutable), admin (Stats,
                           Unload) or all; CompileAndExecute needs compile
                           and execute; no token: UNAUTHENTICATED, a missing
                           role: PERMISSION_DENIED; the health check stays
                           open, reflection is off (default: no
                           authentication)
  --metrics-listen ADDR    serve Prometheus metrics at http://ADDR/metrics
                           (default: off); with --tls-cert it is
                           https://ADDR/metrics, under the same certificate
                           and, with --tls-client-ca, the same client check
  --cache-dir DIR          persistent compile cache (created with mode 0700:
                           it holds code this server executes; default: none)
  --cache-key-file FILE    the secret that authenticates the cache's entries
                           (default DIR.key beside the directory, created
                           with 32 random bytes if missing; mode 0600, owned
                           by the server's user): an entry the server did
                           not write is refused, so write access to DIR is
                           not enough to run code as the server
  --cache-bytes N          in-memory compile cache bound (default 2 GiB)
  --redis HOST:PORT        a compile cache shared with other servers, behind
                           memory and disk: what any of them compiled, this
                           one loads; a new graph raced across them compiles
                           once (a lease in Redis). Needs --cache-key-file,
                           the same key on every server. Redis down or slow
                           fails no request (default: none)
  --redis-user NAME        the Redis ACL user to AUTH as (with a password)
  --redis-password-file F  AUTH with the password in F (mode 0600)
  --redis-timeout-ms N     Redis connect and command timeout (default 500);
                           after a failure Redis is skipped for 1 s
  --redis-lease-ms N       a compile lease's time to live, renewed every
                           third of it while the compile runs (default 10000)
  --compile-threads N      concurrent compiles (default 1); each runs in a
                           worker process of its own, so that a compile that
                           crashes or runs away fails only its request
  --compile-memory-bytes N a compile worker's address-space limit (default
                           16G); a compile needing more is RESOURCE_EXHAUSTED
  --compile-cpu-seconds N  a compile worker's CPU-time limit (default 600)
  --cuda-memory-bytes N    device memory CUDA executions may hold (default:
                           all of the device's); beyond it an execution is
                           RESOURCE_EXHAUSTED
  --compile-worker-program FILE
                           the compile worker (default: anyshape-compile-worker
                           beside this program); the server links no compiler
  --execute-threads N      concurrent executions (default: cores); each gets
                           cores / (executions running when it starts)
                           OpenMP threads: a lone request gets every core
  --specialize-after N     hot-shape specialisation: once one executable has
                           run N times at the same input shapes, compile it
                           for those sizes in the background (low CPU
                           priority, one at a time) and run them on that
                           from then on; other shapes stay dynamic. At most
                           8 per executable (default 0: off)
  --max-batch ROWS         dynamic batching: concurrent Execute requests for
                           one executable whose inputs differ only along a
                           symbol its graph is proved row-independent along
                           (e.g. batch) run as one, up to ROWS rows along
                           it; each gets its own rows back. Only requests
                           with inline inputs that keep and free nothing
                           (default 0: off; docs/service.md)
  --max-batch-delay-us N   how long a run waits for more requests to join,
                           only while others for its executable are on
                           their way: a request alone never waits
                           (default 1000)
  --max-queue N            queued executions before RESOURCE_EXHAUSTED
                           (default 1024); compiles queue up to 64
  --max-message-bytes N    gRPC message limit, both directions (default 256 MiB)
  --tensor-store-bytes N   tensor store bound (default 4 GiB)
  --max-kept-bytes N       bytes of outputs kept between requests
                           (ExecuteRequest.keep_outputs; default 2 GiB)
  --max-kept-tensors N     how many kept outputs at once (default 4096)
  --kept-idle-seconds N    a kept output no request names for this long
                           is dropped (default 300)
  --max-upload-bytes N     one uploaded tensor's bound (default 2 GiB)
  --max-elements N         elements of any one tensor (default 2^32)
  --buffer-cache-bytes N   freed buffers kept for reuse (default 1 GiB)
  --heap-keep-bytes N      freed heap memory kept for the next request instead
                           of given back to the system (default 256 MiB; 0:
                           glibc's defaults, which fault every page of a
                           large tensor in again on each request)
  --drain-seconds N        on SIGTERM, wait this long for in-flight work
                           (default 30)
  --testing-compile-delay-ms N
                           test-only: every compile first sleeps N ms (fault
                           tests use it to hold a compile slot; default 0)
  --testing-compile-faults test-only: a graph named anyshape-testing-FAULT
                           (abort, spin, sleep, allocate) makes its compile
                           worker misbehave that way
  --help                   this text

Sizes accept K, M and G suffixes (powers of 1024).
)";

bool parseSize(const std::string &text, int64_t &out) {
  char *end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || value < 0)
    return false;
  int shift = 0;
  std::string suffix(end);
  if (suffix == "K")
    shift = 10;
  else if (suffix == "M")
    shift = 20;
  else if (suffix == "G")
    shift = 30;
  else if (!suffix.empty())
    return false;
  if (value > (std::numeric_limits<int64_t>::max() >> shift))
    return false;
  out = static_cast<int64_t>(value) << shift;
  return true;
}

/// `name` in the directory this program's binary is in (where the build
/// and an install put the compile worker), or `name` alone if that
/// directory cannot be read.
std::string besideThisProgram(const std::string &name) {
  char path[4096];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0)
    return name;
  std::string self(path, static_cast<size_t>(n));
  size_t slash = self.rfind('/');
  return slash == std::string::npos ? name : self.substr(0, slash + 1) + name;
}

int usageError(const std::string &message) {
  std::fprintf(stderr, "anyshape-server: %s\n%s", message.c_str(), kUsage);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  using namespace anyshape;
  server::ServerOptions options;
  options.service.compileWorkers.program =
      besideThisProgram("anyshape-compile-worker");
  options.service.executeThreads = runtime::hardwareThreads();
  std::string portFile;
  std::string authTokensFile;
  std::string redisAddress, redisPasswordFile;
  server::RedisCacheOptions redis;
  int64_t bufferCacheBytes = int64_t{1} << 30;
  int64_t heapKeepBytes = server::kDefaultHeapKeepBytes;
  int64_t cudaMemoryBytes = 0; // 0: the device's whole memory
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--testing-compile-faults") {
      options.service.testingCompileFaults = true;
      continue;
    }
    std::string value;
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return usageError("option " + arg + " needs a value");
    }
    int64_t number = 0;
    bool numeric = parseSize(value, number);
    auto needNumber = [&](int64_t min, int64_t max) {
      return numeric && number >= min && number <= max;
    };
    if (arg == "--listen")
      options.listen = value;
    else if (arg == "--port-file")
      portFile = value;
    else if (arg == "--metrics-listen")
      options.metricsListen = value;
    else if (arg == "--cache-dir")
      options.service.cacheDir = value;
    else if (arg == "--cache-key-file")
      options.service.cacheKeyFile = value;
    else if (arg == "--compile-worker-program")
      options.service.compileWorkers.program = value;
    else if (arg == "--tls-cert")
      options.tls.certFile = value;
    else if (arg == "--tls-key")
      options.tls.keyFile = value;
    else if (arg == "--tls-client-ca")
      options.tls.clientCaFile = value;
    else if (arg == "--auth-tokens")
      authTokensFile = value;
    else if (arg == "--redis")
      redisAddress = value;
    else if (arg == "--redis-user")
      redis.redis.user = value;
    else if (arg == "--redis-password-file")
      redisPasswordFile = value;
    else if (arg == "--redis-timeout-ms" && needNumber(1, 60000))
      redis.redis.timeout = std::chrono::milliseconds(number);
    else if (arg == "--redis-lease-ms" && needNumber(100, 3600000))
      redis.leaseTtl = std::chrono::milliseconds(number);
    else if (arg == "--cache-bytes" && needNumber(0, INT64_MAX))
      options.service.cacheBytes = number;
    else if (arg == "--compile-threads" && needNumber(1, 256))
      options.service.compileThreads = static_cast<int>(number);
    else if (arg == "--execute-threads" && needNumber(1, 1024))
      options.service.executeThreads = static_cast<int>(number);
    else if (arg == "--max-queue" && needNumber(1, 1 << 20))
      options.service.maxQueuedExecutions = static_cast<int>(number);
    else if (arg == "--max-message-bytes" && needNumber(1024, INT32_MAX))
      options.maxMessageBytes = number;
    else if (arg == "--tensor-store-bytes" && needNumber(0, INT64_MAX))
      options.service.tensorStoreBytes = number;
    else if (arg == "--max-kept-bytes" && needNumber(0, INT64_MAX))
      options.service.kept.maxBytes = number;
    else if (arg == "--max-kept-tensors" && needNumber(0, 1 << 24))
      options.service.kept.maxCount = number;
    else if (arg == "--kept-idle-seconds" && needNumber(1, 7 * 24 * 3600))
      options.service.kept.idleSeconds = static_cast<double>(number);
    else if (arg == "--max-upload-bytes" && needNumber(0, INT64_MAX))
      options.service.maxUploadBytes = number;
    else if (arg == "--max-elements" && needNumber(1, INT64_MAX))
      options.service.limits.maxElementsPerTensor = number;
    else if (arg == "--buffer-cache-bytes" && needNumber(0, INT64_MAX))
      bufferCacheBytes = number;
    else if (arg == "--heap-keep-bytes" && needNumber(0, INT32_MAX))
      heapKeepBytes = number;
    else if (arg == "--drain-seconds" && needNumber(0, 3600))
      options.drainTimeout = std::chrono::seconds(number);
    else if (arg == "--compile-memory-bytes" &&
             needNumber(int64_t{256} << 20, INT64_MAX))
      options.service.compileWorkers.addressSpaceBytes = number;
    else if (arg == "--compile-cpu-seconds" && needNumber(1, 86400))
      options.service.compileWorkers.cpuSeconds = number;
    else if (arg == "--cuda-memory-bytes" && needNumber(0, INT64_MAX))
      cudaMemoryBytes = number;
    else if (arg == "--specialize-after" && needNumber(0, INT64_MAX))
      options.service.hotShapes.threshold = number;
    else if (arg == "--max-batch" && needNumber(0, int64_t{1} << 30))
      options.service.batching.maxRows = number;
    else if (arg == "--max-batch-delay-us" && needNumber(0, 1000000))
      options.service.batching.maxDelay = std::chrono::microseconds(number);
    else if (arg == "--testing-compile-delay-ms" && needNumber(0, 600000))
      options.service.testingCompileDelayMs = static_cast<int>(number);
    else
      return usageError("unknown option or bad value: " + arg + " " + value);
  }
  if (!authTokensFile.empty()) {
    auto auth = server::TokenAuth::fromFile(authTokensFile);
    if (!auth.isOk()) {
      server::logEvent("error", "startup_failed",
                       {{"message", auth.status().toString()}});
      return 1;
    }
    options.service.auth =
        std::make_shared<const server::TokenAuth>(std::move(*auth));
  }
  if (!redisAddress.empty()) {
    Status parsed = server::parseRedisAddress(redisAddress, redis.redis);
    if (parsed.isOk() && !redisPasswordFile.empty()) {
      auto password = server::readFileChecked(
          redisPasswordFile, "Redis password file", 4096, /*ownerOnly=*/true);
      parsed = password.status();
      if (password.isOk()) {
        redis.redis.password = *password;
        while (!redis.redis.password.empty() &&
               (redis.redis.password.back() == '\n' ||
                redis.redis.password.back() == '\r'))
          redis.redis.password.pop_back();
      }
    }
    if (!parsed.isOk()) {
      server::logEvent("error", "startup_failed",
                       {{"message", parsed.toString()}});
      return 1;
    }
    options.service.redis = redis;
  } else if (!redisPasswordFile.empty() || !redis.redis.user.empty()) {
    return usageError("--redis-user and --redis-password-file need --redis");
  }
  runtime::setAllocatorCacheLimit(bufferCacheBytes);
  server::logEvent("info", "heap_policy",
                   {{"freed_memory", server::keepFreedHeap(heapKeepBytes)}});
  if (cudaMemoryBytes > 0)
    runtime::cuda::setDeviceMemoryLimit(cudaMemoryBytes);

  // Signals are taken synchronously by this thread only: every thread the
  // server starts inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  auto server = server::Server::start(options);
  if (!server.isOk()) {
    server::logEvent("error", "startup_failed",
                     {{"message", server.status().toString()}});
    return 1;
  }
  if (!portFile.empty()) {
    // Written to a temporary name and renamed: readers never see half.
    std::string temp = portFile + ".tmp";
    std::ofstream(temp) << (*server)->address() << "\n";
    std::rename(temp.c_str(), portFile.c_str());
  }
  int received = 0;
  sigwait(&signals, &received);
  server::logEvent("info", "signal",
                   {{"signal", received == SIGTERM ? "SIGTERM" : "SIGINT"}});
  bool drained = (*server)->drainAndStop();
  return drained ? 0 : 1;
}

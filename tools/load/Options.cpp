// anyshape-load's command line (Options.h).
#include "Options.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace anyshape::load {
namespace {

const char *kUsage = R"(usage: anyshape-load --server HOST:PORT [options]
       anyshape-load --in-process [options]

Uploads the graph's weights once, compiles it once, then sends --requests
Execute requests from --clients concurrent connections, each with random
inputs sized by a length of --symbol drawn from --dist.

  --server ADDR     the anyshape server, or several: IP:PORT,IP:PORT,... or
                    dns:///NAME:PORT, each connection round-robin over
                    them (servers sharing a --redis cache serve each
                    other's executables); TLS and tokens from the
                    environment: ANYSHAPE_TOKEN_FILE, ANYSHAPE_TLS_CA,
                    ANYSHAPE_TLS_CERT, ANYSHAPE_TLS_KEY,
                    ANYSHAPE_TLS_SERVER_NAME; docs/service.md)
  --in-process      no server: compile here and run the same requests from
                    --clients threads in this process, each execution's
                    threads sized as the server sizes them (the service's
                    overhead is the difference between the two)
  --against-in-process
                    with --server: also compile here, and send the trace
                    both ways from one client, block by block (8 requests
                    to one side, a 20 ms pause, the same 8 to the other,
                    the order alternating), so that both sides see the
                    same machine; reports each side's total and
                    percentiles, their ratios and the server's own run
                    time (implies --clients 1)
  --mode NAME       --in-process only: dynamic, one compile for every
                    length (default); static, a compile for each new
                    length, in the request that first needs it (as
                    recompiling systems do); buckets, a compile for each
                    power-of-two bucket, inputs zero-padded to it (a zero
                    mask entry masks a padded token); reference, no
                    compile: each request run by the reference evaluator,
                    one op at a time (eager, as an interpreter runs it)
  --graph FILE      a graph (.pbtxt, .pb) or an ONNX model (.onnx)
                    (default examples/bert_encoder_layer.pbtxt)
  --symbol NAME     the symbol whose size varies (default seq)
  --min N, --max N  its range, inclusive (default 1..512)
  --dist NAME       uniform: every length equally likely (default);
                    skewed: 80% of requests uniform over the lowest 20% of
                    the range, 20% over the rest (short requests dominate)
  --dims S=N,...    sizes of the graph's other symbols (default batch=1)
  --clients N       concurrent clients, one connection each (default 8)
  --requests N      requests in total (default 200)
  --lengths FILE    the trace: one length per request, separated by spaces,
                    commas or newlines (instead of --dist/--min/--max/
                    --requests; the largest sizes the input data)
  --passes N        run the trace N times (default 1); each pass is
                    reported, the first with every shape new, the others
                    warm; the summary is the last pass's
  --seed N          seed of the lengths and input data (default 0)
  --metrics ADDR    the server's --metrics-listen address: sample its
                    anyshape_process_resident_memory_bytes for the peak RSS
                    (without it the peak RSS is reported as n/a)
  --soak SECONDS    instead: a soak for SECONDS, --clients connections
                    sending compiles and executions of 8 graphs (the mlp
                    and elementwise_reduce examples, 6 seeded elementwise
                    chains) at random shapes, 10% of the executions checked
                    against the reference evaluator, 5% of the requests
                    malformed (each must get its code); with --metrics the
                    server's RSS may grow at most 256 MiB after the first
                    quarter; exit 1 on any unexpected error or mismatch
  --json            print the results as one JSON object

exit status: 0 every request succeeded, 1 setup failed or a request failed,
2 usage error
)";

std::optional<int64_t> parseInt(const std::string &text) {
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE)
    return std::nullopt;
  return v;
}

} // namespace

int usageError(const std::string &message) {
  std::fprintf(stderr, "anyshape-load: %s (see --help)\n", message.c_str());
  return 2;
}

int parseArgs(int argc, char **argv, Options &options) {
  std::map<std::string, std::string> values;
  bool modeGiven = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return -1;
    }
    if (arg == "--json" || arg == "--in-process" ||
        arg == "--against-in-process") {
      (arg == "--json"         ? options.json
       : arg == "--in-process" ? options.inProcess
                               : options.againstInProcess) = true;
      continue;
    }
    std::string name = arg, value;
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return usageError("option '" + arg + "' needs a value");
    }
    values[name] = value;
  }
  for (const auto &[name, value] : values) {
    std::optional<int64_t> number = parseInt(value);
    auto needNumber = [&](int64_t &out, int64_t least) {
      if (!number || *number < least)
        return false;
      out = *number;
      return true;
    };
    int64_t seed = 0;
    bool ok = true;
    if (name == "--server")
      options.server = value;
    else if (name == "--graph")
      options.graph = value;
    else if (name == "--symbol")
      options.symbol = value;
    else if (name == "--dims") {
      options.dims = value;
      options.dimsGiven = true;
    } else if (name == "--metrics")
      options.metrics = value;
    else if (name == "--lengths")
      options.lengthsFile = value;
    else if (name == "--mode") {
      auto mode = parseCompileMode(value);
      ok = mode.has_value();
      if (mode)
        options.mode = *mode;
      modeGiven = true;
    } else if (name == "--passes")
      ok = needNumber(options.passes, 1) && options.passes <= 100;
    else if (name == "--min")
      ok = needNumber(options.min, 0);
    else if (name == "--max")
      ok = needNumber(options.max, 0);
    else if (name == "--clients") {
      ok = needNumber(options.clients, 1);
      options.clientsGiven = true;
    } else if (name == "--requests")
      ok = needNumber(options.requests, 1);
    else if (name == "--seed") {
      ok = needNumber(seed, 0);
      options.seed = static_cast<uint64_t>(seed);
    } else if (name == "--soak") {
      ok = needNumber(options.soakSeconds, 1);
    } else if (name == "--dist") {
      auto dist = parseDistribution(value);
      ok = dist.has_value();
      if (dist)
        options.dist = *dist;
    } else {
      return usageError("unknown option '" + name + "'");
    }
    if (!ok)
      return usageError("bad value '" + value + "' for " + name);
  }
  if (options.server.empty() == !options.inProcess)
    return usageError(options.inProcess ? "--server and --in-process exclude "
                                          "each other"
                                        : "--server or --in-process is "
                                          "required");
  if (modeGiven && !options.inProcess)
    return usageError("--mode is --in-process's (a server compiles once)");
  if (options.soakSeconds > 0 && options.inProcess)
    return usageError("--soak is a server's");
  if (options.inProcess && !options.metrics.empty())
    return usageError("--metrics is a server's; --in-process reports its "
                      "own peak RSS");
  if (options.min > options.max)
    return usageError("--min is greater than --max");
  if (options.againstInProcess) {
    if (options.inProcess || options.soakSeconds > 0)
      return usageError("--against-in-process compares a --server's trace "
                        "with this process's");
    if (options.clientsGiven && options.clients != 1)
      return usageError("--against-in-process is one client's comparison");
    if (!options.metrics.empty())
      return usageError("--against-in-process reports no RSS; run without "
                        "--metrics");
    options.clients = 1;
  }
  return 0;
}

StatusOr<std::map<std::string, int64_t>> parseDims(const std::string &text) {
  std::map<std::string, int64_t> dims;
  for (size_t start = 0; start < text.size();) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma - start);
    size_t eq = item.find('=');
    std::optional<int64_t> size =
        eq == std::string::npos ? std::nullopt : parseInt(item.substr(eq + 1));
    if (!size || *size < 0 || eq == 0)
      return invalidArgument("--dims entry '" + item + "' is not SYMBOL=SIZE");
    dims[item.substr(0, eq)] = *size;
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return dims;
}

} // namespace anyshape::load

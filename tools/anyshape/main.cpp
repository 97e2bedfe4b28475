// anyshape: validate and evaluate graph files from the command line.
//
//   anyshape validate FILE.pbtxt
//   anyshape eval FILE.pbtxt --dims seq=128,batch=2 [--seed N]
//                [--backend=reference]
//   anyshape import FILE.pbtxt [--full-constants] [--debuginfo]
//   anyshape --server HOST:PORT eval FILE.pbtxt --dims ... | stats
#include "Cli.h"

#include <cstdio>
#include <cstring>
#include <new>

namespace {

const char *kUsage = R"(usage: anyshape [--server ADDR] <command> [args]

  --server ADDR        run eval and stats on the anyshape server at ADDR
                       (host:port): it compiles once, caches the executable
                       for every shape, and executes; other commands run
                       in-process only; a server with TLS or tokens is
                       reached through ANYSHAPE_TOKEN_FILE, ANYSHAPE_TLS_CA,
                       ANYSHAPE_TLS_CERT, ANYSHAPE_TLS_KEY and
                       ANYSHAPE_TLS_SERVER_NAME (docs/service.md)

FILE is a graph: .pbtxt text, a .pb binary, or an ONNX model (.onnx,
opsets 9-28; its dim_params become the symbols --dims binds).

commands:
  validate FILE        check a graph (.pbtxt text or .pb binary); prints its
                       inputs and output types and the shape checks left
                       to run time, or one line naming the node at fault
                       (exit 1)
  eval FILE [options]  run a graph on random inputs and print each output's
                       shape and checksums
      --dims S=N,...   sizes of the graph's named symbols (e.g. seq=128,batch=2)
      --seed N         seed of the random inputs (default 0)
      --sweep S=N,N,.. run once per size of symbol S (the cpu backend still
                       compiles once)
      --backend NAME   reference (default): the plain reference evaluator;
                       cpu: compiled once (shapes symbolic) and JITed;
                       cuda-emulated: the CUDA kernels, compiled once and
                       run on this CPU by their emulation (their numerics
                       without a GPU; not a fast path);
                       cuda: compiled once into cubins and a host flow
                       that launches them on the GPU (compiles anywhere;
                       says what this machine lacks to run: a driver or a
                       device);
                       with --server the server compiles (no --backend,
                       no --dump-ir; --static and --check apply)
      --static         cpu: compile specialised to the --dims sizes (static
                       fallback) instead of shape-agnostic
      --dump-ir DIR    write what each compile stage leaves to a folder of
                       DIR named by the stage (1-import, 2-mlir-pipeline,
                       4-llvm-optimise, ...; docs/pipeline.md)
      --check          also run the reference evaluator on the same inputs,
                       print max_abs_err/max_rel_err per output, exit 1
                       beyond the tolerance (docs/pipeline.md)
  fingerprint FILE     print the graph's canonical fingerprint (the graph part
                       of the compile cache key; ignores names, node order
                       and consistent symbol renaming)
  import FILE          print the graph as the dhlo MLIR module the compiler
                       starts from (constants over 16 elements elided unless
                       --full-constants; seeded ones over 4096 elements are
                       dhlo.seeded_uniform, generated when the executable
                       loads); --debuginfo prints each op's location, the
                       name of its node
  fusion-plan FILE     print how the compiler groups the graph's ops into
                       kernels (kLoop, kInput, kStitch, kLibrary), decided
                       with symbolic shapes only
  cuda-kernels FILE    compile the graph's CUDA kernels to cubins (no GPU
                       needed: nvJitLink from the CUDA toolkit links them)
                       and print each one's block size, registers, spills,
                       shared memory and cubin size
      --chip CHIP      sm_90 (default, H100/H200) or sm_80 (A100)
      --dump-ir DIR    write what each stage leaves to a folder of DIR:
                       the IR, and per kernel its PTX and nvJitLink log
                       (3-cuda-kernels)
  stats                with --server: the server's counters as JSON
                       (compiles, cache_hits, cache_misses, disk_loads, ...)
  help                 this text

exit status: 0 success, 1 invalid graph, failed run or unreachable server,
2 usage error
)";

} // namespace

namespace {
int run(int argc, char **argv);
} // namespace

// Out of memory (a graph whose constants the compiler materialises past
// what the machine has) is an error like any other, not an abort.
int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc &) {
    std::fputs("error: out of memory (the graph needs more memory than this "
               "machine allows)\n",
               stderr);
    return 1;
  }
}

namespace {
int run(int argc, char **argv) {
  using namespace anyshape::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  GlobalOptions global;
  size_t i = 0;
  while (i < args.size() && args[i].rfind("--", 0) == 0) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (!takeOption(args, i, "--server", global.server)) {
      std::fprintf(stderr, "anyshape: unknown option '%s'\n%s", args[i].c_str(),
                   kUsage);
      return 2;
    }
  }
  if (i >= args.size()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string command = args[i];
  std::vector<std::string> rest(args.begin() + i + 1, args.end());
  // "anyshape eval --help" and the like: the usage, not a usage error.
  for (const std::string &arg : rest)
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  if (command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!global.server.empty()) {
    if (command == "eval")
      return runRemoteEval(global, rest);
    if (command == "stats")
      return runStats(global, rest);
  }
  if (command == "stats")
    return usage("stats needs --server ADDR");
  if (!global.server.empty() &&
      (command == "validate" || command == "fingerprint" ||
       command == "import" || command == "fusion-plan" ||
       command == "cuda-kernels"))
    return usage("'" + command +
                 "' runs in-process; --server applies to eval "
                 "and stats");
  if (command == "validate")
    return runValidate(global, rest);
  if (command == "eval")
    return runEval(global, rest);
  if (command == "fingerprint")
    return runFingerprint(global, rest);
  if (command == "fusion-plan")
    return runFusionPlan(global, rest);
  if (command == "import")
    return runImport(global, rest);
  if (command == "cuda-kernels")
    return runCudaKernels(global, rest);
  std::fprintf(stderr, "anyshape: unknown command '%s'\n%s", command.c_str(),
               kUsage);
  return 2;
}
} // namespace

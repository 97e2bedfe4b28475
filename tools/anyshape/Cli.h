// The anyshape command-line tool: shared pieces of its subcommands.
//
// Each subcommand is one function taking the arguments after its name and
// returning the process exit code: 0 success, 1 the graph or run failed
// (or the server could not be reached), 2 usage error. With --server, eval
// and stats run on an anyshape server (RemoteCommands.cpp) and eval prints
// the same lines as in-process.
#pragma once

#include "ir/reference/Literal.h"
#include "runtime/support/Status.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace anyshape::cli {

struct GlobalOptions {
  std::string server; // --server ADDR; empty runs in-process
};

/// What eval runs: the validated graph, the input seed, the --dims
/// bindings and one binding per run (--dims, or --dims with each --sweep
/// value).
struct EvalRuns {
  v1::Graph graph;
  uint64_t seed = 0;
  std::map<std::string, int64_t> dims;
  std::vector<std::map<std::string, int64_t>> runs;
};

/// Parses eval's --seed, --dims and --sweep, loads and validates FILE and
/// checks the bound symbols. On failure prints why and returns the exit
/// code (1 or 2); else 0.
int prepareEvalRuns(const std::string &file, const std::string &seedText,
                    const std::string &dimsText, const std::string &sweepText,
                    EvalRuns &out);

int runValidate(const GlobalOptions &global,
                const std::vector<std::string> &args);
int runEval(const GlobalOptions &global, const std::vector<std::string> &args);
int runFingerprint(const GlobalOptions &global,
                   const std::vector<std::string> &args);
int runFusionPlan(const GlobalOptions &global,
                  const std::vector<std::string> &args);
int runImport(const GlobalOptions &global,
              const std::vector<std::string> &args);
// CudaCommand.cpp
int runCudaKernels(const GlobalOptions &global,
                   const std::vector<std::string> &args);
// RemoteCommands.cpp: the commands that run on an anyshape server.
int runRemoteEval(const GlobalOptions &global,
                  const std::vector<std::string> &args);
int runStats(const GlobalOptions &global, const std::vector<std::string> &args);

/// Prints "error: <message>" and returns 1.
int fail(const Status &status);
/// Prints the usage error with a pointer to --help and returns 2.
int usage(const std::string &message);
/// "seq=5,batch=2" (or "(none)"): how a run's sizes are printed.
std::string runLabel(const std::map<std::string, int64_t> &binding);
/// Prints "error: dims LABEL: message" for one run of a sweep, which goes on
/// to its next size; returns false (the run failed).
bool runFailed(const std::string &label, const Status &status);

/// If `arg` is "--name=value" or "--name" followed by a value in `args`,
/// stores the value, advances `i` past it and returns true.
bool takeOption(const std::vector<std::string> &args, size_t &i,
                const std::string &name, std::string &value);

/// "seq=128,batch=2" -> {seq: 128, batch: 2}.
StatusOr<std::map<std::string, int64_t>> parseDims(const std::string &text);
/// "seq=1,7,16" -> ("seq", {1, 7, 16}).
StatusOr<std::pair<std::string, std::vector<int64_t>>>
parseSweep(const std::string &text);
/// eval's inputs: input k is randomLiteral(its dtype, shapes[k], seed *
/// 1000003 + k), so local and server runs of one seed see the same data.
std::vector<Literal>
randomInputs(const v1::Graph &graph,
             const std::vector<std::vector<int64_t>> &shapes, uint64_t seed);
/// Prints one output's dtype, shape and checksums (eval's output lines).
void printOutput(const std::string &name, const Literal &out);
/// Compares with the reference evaluator; prints one line per output.
bool checkAgainstReference(const v1::Graph &graph,
                           const std::vector<Literal> &inputs,
                           const std::vector<Literal> &outputs);

} // namespace anyshape::cli

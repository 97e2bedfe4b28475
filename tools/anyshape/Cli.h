// The anyshape command-line tool: shared pieces of its subcommands.
//
// Each subcommand is one function taking the arguments after its name and
// returning the process exit code: 0 success, 1 the graph or run failed,
// 2 usage error. Later backends (cpu, cuda) and --server plug into eval's
// options without changing how the tool is driven.
#pragma once

#include <string>
#include <vector>

namespace anyshape::cli {

struct GlobalOptions {
  std::string server; // --server ADDR; empty runs in-process
};

int runValidate(const GlobalOptions &global,
                const std::vector<std::string> &args);
int runEval(const GlobalOptions &global, const std::vector<std::string> &args);
int runFingerprint(const GlobalOptions &global,
                   const std::vector<std::string> &args);
int runFusionPlan(const GlobalOptions &global,
                  const std::vector<std::string> &args);
int runImport(const GlobalOptions &global,
              const std::vector<std::string> &args);

/// If `arg` is "--name=value" or "--name" followed by a value in `args`,
/// stores the value, advances `i` past it and returns true.
bool takeOption(const std::vector<std::string> &args, size_t &i,
                const std::string &name, std::string &value);

} // namespace anyshape::cli

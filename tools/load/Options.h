// anyshape-load's command line: its usage text, its options and their
// parsing, apart from what runs them (main.cpp).
#pragma once

#include "Target.h"
#include "Workload.h"

#include "runtime/support/Status.h"

#include <cstdint>
#include <map>
#include <string>

namespace anyshape::load {

struct Options {
  std::string server, graph = "examples/bert_encoder_layer.pbtxt";
  std::string symbol = "seq", metrics, dims = "batch=1";
  bool dimsGiven = false;
  int64_t min = 1, max = 512, clients = 8, requests = 200;
  uint64_t seed = 0;
  LengthDistribution dist = LengthDistribution::Uniform;
  bool json = false;
  bool inProcess = false;
  bool againstInProcess = false; ///< --against-in-process (Compare.h)
  bool clientsGiven = false;
  CompileMode mode = CompileMode::Dynamic;
  std::string lengthsFile;
  int64_t passes = 1;
  int64_t soakSeconds = 0; ///< --soak: Soak.h instead of one graph's trace
};

/// Returns 0 with `options` filled, -1 once --help is printed, or 2 after a
/// usage error.
int parseArgs(int argc, char **argv, Options &options);

/// Prints `message` as a usage error; returns the exit status 2.
int usageError(const std::string &message);

/// "batch=1,heads=12" -> {batch: 1, heads: 12}.
StatusOr<std::map<std::string, int64_t>> parseDims(const std::string &text);

} // namespace anyshape::load

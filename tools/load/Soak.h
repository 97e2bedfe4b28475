// anyshape-load --soak: a bounded soak of a server. Client threads, each
// its own connection, send a mix of requests for a fixed time: compiles
// and executions of several graphs (the examples and seeded random
// elementwise chains) at random shapes, a sample of them checked against
// the reference evaluator, and a share of malformed requests that must be
// refused with the right code. It fails on any unexpected error, any
// mismatch, or the server's resident memory growing past a bound after
// the warm-up (sampled from its metrics endpoint).
#pragma once

#include <cstdint>
#include <string>

namespace anyshape::load {

struct SoakOptions {
  std::string server;
  std::string metrics;     ///< the server's --metrics-listen; empty: no RSS
  double seconds = 600;    ///< how long the soak runs
  int64_t clients = 16;    ///< concurrent connections
  double malformed = 0.05; ///< share of malformed requests
  double checked = 0.10;   ///< share of executions checked
  int64_t maxRssGrowthMib = 256; ///< after the first quarter
  uint64_t seed = 0;
};

/// Runs the soak and prints its report; the process exit status: 0 if
/// nothing unexpected happened, 1 otherwise.
int runSoak(const SoakOptions &options);

} // namespace anyshape::load

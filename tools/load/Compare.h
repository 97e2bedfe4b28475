// anyshape-load --against-in-process: is the service slower than the
// library for one client? The same trace goes to the server and to an
// executable compiled in this process, block by block: a block of requests
// to one, a pause, the same block to the other, the order alternating. On
// a shared, noisy machine both sides then see the same drift, so their
// ratio means something where the ratio of two separate runs does not.
// The pause lets the side that just ran go idle: its OpenMP threads spin
// for some milliseconds after a run and would take a core from the other.
#pragma once

#include "anyshape/v1/graph.pb.h"
#include "runtime/support/Status.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace anyshape::load {

/// A server's own account of one request (ExecuteTiming): its wait for an
/// execution slot and the run, and how many requests that run joined
/// (dynamic batching). Negative where there is none (in process).
struct ServerTiming {
  double queueMs = -1, runMs = -1;
  int joined = -1;
};

/// Runs one request of `length` with `inputs`, which it may consume.
using RunRequest = std::function<Status(
    int64_t length, std::vector<v1::Tensor> &inputs, ServerTiming &)>;
using MakeInputs =
    std::function<StatusOr<std::vector<v1::Tensor>>(int64_t length)>;

/// One pass of the trace, both ways: each side's latencies and the
/// server's run and queue times, per request in trace order, for the
/// requests that succeeded both ways.
struct Comparison {
  std::vector<double> serverMs, inProcessMs, serverRunMs, serverQueueMs;
  int64_t errors = 0; ///< requests that failed either way
  std::string firstError;
};

struct CompareOptions {
  int64_t blockSize = 8;
  std::chrono::milliseconds pause{20};
};

/// Runs every length of `lengths` on `server` and on `inProcess`, block by
/// block, the inputs of a length made by `inputsFor`.
Comparison compareAgainstInProcess(const std::vector<int64_t> &lengths,
                                   const MakeInputs &inputsFor,
                                   const RunRequest &server,
                                   const RunRequest &inProcess,
                                   const CompareOptions &options = {});

/// A pass's figures. Totals are the sums of the latencies (the pauses
/// between blocks are no one's); the overhead is each request's latency
/// less the run the server reported (queue, transport, (de)serialisation).
/// The runs' total against in process's splits the gap into the run
/// itself (the same executable on another thread, between gRPC's work)
/// and everything around it.
struct ComparisonSummary {
  double serverTotalS = 0, inProcessTotalS = 0, serverRunTotalS = 0;
  double serverP50 = 0, inProcessP50 = 0, serverP99 = 0, inProcessP99 = 0;
  double serverRunP50 = 0, serverQueueP50 = 0, overheadP50 = 0;
};
ComparisonSummary summarise(const Comparison &comparison);

/// Prints every pass and the last one's summary: text, or one JSON object
/// (`header` is the object's leading fields, without braces).
void printComparison(const std::vector<ComparisonSummary> &passes,
                     int64_t requests, int64_t errors, bool json,
                     const std::string &title, const std::string &header);

} // namespace anyshape::load

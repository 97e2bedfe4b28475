// anyshape-load --against-in-process (Compare.h): the trace block by block,
// to the server and in this process, the order alternating per block.
#include "Compare.h"
#include "Workload.h"

#include <algorithm>
#include <cstdio>
#include <thread>

namespace anyshape::load {
namespace {

/// `request` timed: the latency in ms, or its error.
StatusOr<double> timed(const RunRequest &request, int64_t length,
                       std::vector<v1::Tensor> &inputs, ServerTiming &timing) {
  auto start = std::chrono::steady_clock::now();
  ANYSHAPE_RETURN_IF_ERROR(request(length, inputs, timing));
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

std::vector<double> sorted(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values;
}

double sumSeconds(const std::vector<double> &ms) {
  double sum = 0;
  for (double v : ms)
    sum += v;
  return sum / 1e3;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

} // namespace

Comparison compareAgainstInProcess(const std::vector<int64_t> &lengths,
                                   const MakeInputs &inputsFor,
                                   const RunRequest &server,
                                   const RunRequest &inProcess,
                                   const CompareOptions &options) {
  size_t count = lengths.size();
  std::vector<double> serverMs(count), inProcessMs(count), runMs(count),
      queueMs(count);
  std::vector<bool> failed(count, false);
  Comparison result;
  auto fail = [&](size_t i, const Status &status) {
    if (!failed[i])
      ++result.errors;
    failed[i] = true;
    if (result.firstError.empty())
      result.firstError = status.toString();
  };
  size_t block = static_cast<size_t>(std::max<int64_t>(1, options.blockSize));
  for (size_t first = 0; first < count; first += block) {
    size_t end = std::min(count, first + block);
    bool serverFirst = (first / block) % 2 == 0;
    for (int side = 0; side < 2; ++side) {
      bool toServer = (side == 0) == serverFirst;
      for (size_t i = first; i < end; ++i) {
        auto inputs = inputsFor(lengths[i]);
        if (!inputs) {
          fail(i, inputs.status());
          continue;
        }
        ServerTiming timing;
        StatusOr<double> ms =
            timed(toServer ? server : inProcess, lengths[i], *inputs, timing);
        if (!ms) {
          fail(i, ms.status());
        } else if (toServer) {
          serverMs[i] = *ms;
          runMs[i] = timing.runMs;
          queueMs[i] = timing.queueMs;
        } else {
          inProcessMs[i] = *ms;
        }
      }
      std::this_thread::sleep_for(options.pause);
    }
  }
  for (size_t i = 0; i < count; ++i)
    if (!failed[i]) {
      result.serverMs.push_back(serverMs[i]);
      result.inProcessMs.push_back(inProcessMs[i]);
      result.serverRunMs.push_back(runMs[i]);
      result.serverQueueMs.push_back(queueMs[i]);
    }
  return result;
}

ComparisonSummary summarise(const Comparison &comparison) {
  std::vector<double> overhead;
  for (size_t i = 0; i < comparison.serverMs.size(); ++i)
    overhead.push_back(comparison.serverMs[i] - comparison.serverRunMs[i]);
  std::vector<double> server = sorted(comparison.serverMs),
                      inProcess = sorted(comparison.inProcessMs);
  ComparisonSummary summary;
  summary.serverTotalS = sumSeconds(server);
  summary.inProcessTotalS = sumSeconds(inProcess);
  summary.serverRunTotalS = sumSeconds(comparison.serverRunMs);
  summary.serverP50 = percentile(server, 50);
  summary.inProcessP50 = percentile(inProcess, 50);
  summary.serverP99 = percentile(server, 99);
  summary.inProcessP99 = percentile(inProcess, 99);
  summary.serverRunP50 = percentile(sorted(comparison.serverRunMs), 50);
  summary.serverQueueP50 = percentile(sorted(comparison.serverQueueMs), 50);
  summary.overheadP50 = percentile(sorted(overhead), 50);
  return summary;
}

void printComparison(const std::vector<ComparisonSummary> &passes,
                     int64_t requests, int64_t errors, bool json,
                     const std::string &title, const std::string &header) {
  if (passes.empty())
    return;
  const ComparisonSummary &s = passes.back();
  if (json) {
    std::string passesJson;
    for (const ComparisonSummary &pass : passes) {
      char buffer[320];
      std::snprintf(buffer, sizeof buffer,
                    "%s{\"server_total_s\": %.4f, \"in_process_total_s\": "
                    "%.4f, \"total_ratio\": %.4f, \"server_p50\": %.3f, "
                    "\"in_process_p50\": %.3f, \"p50_ratio\": %.4f}",
                    passesJson.empty() ? "" : ", ", pass.serverTotalS,
                    pass.inProcessTotalS,
                    ratio(pass.serverTotalS, pass.inProcessTotalS),
                    pass.serverP50, pass.inProcessP50,
                    ratio(pass.serverP50, pass.inProcessP50));
      passesJson += buffer;
    }
    std::printf(
        "{%s, \"mode\": \"against-in-process\", \"requests\": %lld, "
        "\"errors\": %lld, \"server_total_s\": %.4f, \"in_process_total_s\": "
        "%.4f, \"total_ratio\": %.4f, \"server_p50\": %.3f, "
        "\"in_process_p50\": %.3f, \"p50_ratio\": %.4f, \"server_p99\": "
        "%.3f, \"in_process_p99\": %.3f, \"server_run_ms_p50\": %.3f, "
        "\"server_queue_ms_p50\": %.3f, \"overhead_ms_p50\": %.3f, "
        "\"server_run_total_s\": %.4f, \"run_ratio\": %.4f, "
        "\"passes\": [%s]}\n",
        header.c_str(), static_cast<long long>(requests),
        static_cast<long long>(errors), s.serverTotalS, s.inProcessTotalS,
        ratio(s.serverTotalS, s.inProcessTotalS), s.serverP50, s.inProcessP50,
        ratio(s.serverP50, s.inProcessP50), s.serverP99, s.inProcessP99,
        s.serverRunP50, s.serverQueueP50, s.overheadP50, s.serverRunTotalS,
        ratio(s.serverRunTotalS, s.inProcessTotalS), passesJson.c_str());
    return;
  }
  std::printf("%s\n", title.c_str());
  std::printf("  requests     %lld each way, %lld failed\n",
              static_cast<long long>(requests), static_cast<long long>(errors));
  std::printf("  %-11s  %12s  %12s  %s\n", "", "server", "in process",
              "server / in process");
  for (size_t p = 0; passes.size() > 1 && p < passes.size(); ++p)
    std::printf("  pass %-6zu  %10.3f s  %10.3f s  %.2fx%s\n", p + 1,
                passes[p].serverTotalS, passes[p].inProcessTotalS,
                ratio(passes[p].serverTotalS, passes[p].inProcessTotalS),
                p == 0 ? "  (every shape new)" : "");
  std::printf("  %-11s  %10.3f s  %10.3f s  %.2fx\n", "total", s.serverTotalS,
              s.inProcessTotalS, ratio(s.serverTotalS, s.inProcessTotalS));
  std::printf("  %-11s  %9.2f ms  %9.2f ms  %.2fx\n", "p50", s.serverP50,
              s.inProcessP50, ratio(s.serverP50, s.inProcessP50));
  std::printf("  %-11s  %9.2f ms  %9.2f ms  %.2fx\n", "p99", s.serverP99,
              s.inProcessP99, ratio(s.serverP99, s.inProcessP99));
  std::printf("  server side  run p50 %.2f ms, queue p50 %.3f ms; the rest of "
              "the latency (transport) p50 %.2f ms\n",
              s.serverRunP50, s.serverQueueP50, s.overheadP50);
  std::printf("  server runs  %10.3f s  (%.2fx in process; the rest %.3f s)\n",
              s.serverRunTotalS, ratio(s.serverRunTotalS, s.inProcessTotalS),
              s.serverTotalS - s.serverRunTotalS);
}

} // namespace anyshape::load

#include "server/Metrics.h"

#include <cstdio>
#include <unistd.h>

namespace anyshape::server {

void Histogram::observe(double seconds) {
  size_t bucket = 0;
  while (bucket < kBounds.size() && seconds > kBounds[bucket])
    ++bucket;
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  sumNanos_.fetch_add(static_cast<int64_t>(seconds * 1e9),
                      std::memory_order_relaxed);
}

void Histogram::render(const std::string &name, const std::string &help,
                       std::string &out) const {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " histogram\n";
  int64_t cumulative = 0;
  char line[160];
  for (size_t b = 0; b <= kBounds.size(); ++b) {
    cumulative += counts_[b].load(std::memory_order_relaxed);
    if (b < kBounds.size())
      std::snprintf(line, sizeof(line), "%s_bucket{le=\"%g\"} %lld\n",
                    name.c_str(), kBounds[b],
                    static_cast<long long>(cumulative));
    else
      std::snprintf(line, sizeof(line), "%s_bucket{le=\"+Inf\"} %lld\n",
                    name.c_str(), static_cast<long long>(cumulative));
    out += line;
  }
  std::snprintf(line, sizeof(line), "%s_sum %.9f\n%s_count %lld\n",
                name.c_str(), sumNanos_.load() * 1e-9, name.c_str(),
                static_cast<long long>(count_.load()));
  out += line;
}

std::string Metrics::renderPrometheus() const {
  std::string out;
  auto scalar = [&](const std::string &name, const std::string &help,
                    const char *type, double value) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.17g", value);
    out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type +
           "\n" + name + " " + text + "\n";
  };
  scalar("anyshape_compile_requests_total", "Compile requests received.",
         "counter", compileRequests.load());
  scalar("anyshape_executions_total", "Executions run.", "counter",
         executions.load());
  scalar("anyshape_execution_errors_total", "Executions that failed.",
         "counter", executionErrors.load());
  scalar("anyshape_rejected_requests_total",
         "Requests refused: queue full or draining.", "counter",
         rejectedRequests.load());
  scalar("anyshape_unauthorized_requests_total",
         "Requests refused for a missing or unknown token or a role it lacks.",
         "counter", unauthorizedRequests.load());
  scalar("anyshape_in_flight_requests", "Requests being handled.", "gauge",
         inFlight.load());
  scalar("anyshape_compile_worker_failures_total",
         "Compile workers that crashed, failed or were stopped by a drain.",
         "counter", workerFailures.load());
  scalar("anyshape_compile_worker_limit_kills_total",
         "Compiles past a worker's memory or CPU-time limit.", "counter",
         workerLimitKills.load());
  scalar("anyshape_compile_worker_deadline_kills_total",
         "Compile workers stopped at their request's deadline.", "counter",
         workerDeadlineKills.load());
  for (const Gauge &g : gauges)
    scalar(g.name, g.help, g.type.c_str(), g.read());
  compileSeconds.render("anyshape_compile_seconds",
                        "Compile latency (cache misses).", out);
  executeSeconds.render("anyshape_execute_seconds",
                        "Execute latency, queue included.", out);
  return out;
}

int64_t residentMemoryBytes() {
  std::FILE *f = std::fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  long long size = 0, resident = 0;
  int read = std::fscanf(f, "%lld %lld", &size, &resident);
  std::fclose(f);
  return read == 2 ? resident * ::sysconf(_SC_PAGESIZE) : 0;
}

} // namespace anyshape::server

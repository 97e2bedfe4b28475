// Server metrics (server/Metrics.h) in Prometheus text format, and the
// HTTP endpoint that serves them (server/MetricsEndpoint.h), spoken to
// over a raw socket as a scraper would.
#include "server/Metrics.h"
#include "server/MetricsEndpoint.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <chrono>
#include <cstring>
#include <map>
#include <netinet/in.h>
#include <optional>
#include <sstream>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace anyshape;
using namespace anyshape::server;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// The value of the sample line `name` (exact, labels included).
std::optional<double> sample(const std::string &text, const std::string &name) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(name + " ", 0) == 0)
      return std::stod(line.substr(name.size() + 1));
  return std::nullopt;
}

TEST(Metrics, RendersCountersWithHelpAndType) {
  Metrics metrics;
  metrics.compileRequests = 4;
  metrics.executions += 3;
  metrics.executionErrors = 1;
  metrics.rejectedRequests = 2;
  metrics.inFlight = 5;
  std::string text = metrics.renderPrometheus();
  EXPECT_TRUE(contains(text, "# HELP anyshape_executions_total "));
  EXPECT_TRUE(contains(text, "# TYPE anyshape_executions_total counter\n"));
  EXPECT_TRUE(contains(text, "# TYPE anyshape_in_flight_requests gauge\n"));
  EXPECT_EQ(sample(text, "anyshape_compile_requests_total"), 4);
  EXPECT_EQ(sample(text, "anyshape_executions_total"), 3);
  EXPECT_EQ(sample(text, "anyshape_execution_errors_total"), 1);
  EXPECT_EQ(sample(text, "anyshape_rejected_requests_total"), 2);
  EXPECT_EQ(sample(text, "anyshape_in_flight_requests"), 5);
  // Every sample's family is introduced by HELP and TYPE.
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#')
      continue;
    std::string family = line.substr(0, line.find_first_of(" {"));
    for (const char *suffix : {"_bucket", "_sum", "_count"})
      if (family.size() > std::strlen(suffix) &&
          family.compare(family.size() - std::strlen(suffix), std::string::npos,
                         suffix) == 0 &&
          contains(text,
                   "# TYPE " +
                       family.substr(0, family.size() - std::strlen(suffix)) +
                       " histogram"))
        family.resize(family.size() - std::strlen(suffix));
    EXPECT_TRUE(contains(text, "# HELP " + family + " ")) << line;
    EXPECT_TRUE(contains(text, "# TYPE " + family + " ")) << line;
  }
  EXPECT_EQ(text.back(), '\n');
}

TEST(Metrics, RendersRegisteredGauges) {
  Metrics metrics;
  double cacheBytes = 1234;
  metrics.gauges.push_back({"anyshape_cache_bytes", "Bytes in the cache.",
                            "gauge", [&] { return cacheBytes; }});
  metrics.gauges.push_back({"anyshape_tier_loads_total", "Tier loads.",
                            "counter", [] { return 7.0; }});
  std::string text = metrics.renderPrometheus();
  EXPECT_TRUE(contains(text, "# HELP anyshape_cache_bytes Bytes in the "
                             "cache.\n# TYPE anyshape_cache_bytes gauge\n"));
  EXPECT_TRUE(contains(text, "# TYPE anyshape_tier_loads_total counter\n"));
  EXPECT_EQ(sample(text, "anyshape_cache_bytes"), 1234);
  EXPECT_EQ(sample(text, "anyshape_tier_loads_total"), 7);
  // Read when rendered, not when registered.
  cacheBytes = 99;
  EXPECT_EQ(sample(metrics.renderPrometheus(), "anyshape_cache_bytes"), 99);
}

TEST(Metrics, HistogramBucketsAreCumulative) {
  Metrics metrics;
  // One observation below the first bound, one exactly on a bound (le is
  // inclusive), one in the middle, one past the last bound.
  for (double seconds : {0.00005, 0.001, 0.3, 10.0})
    metrics.compileSeconds.observe(seconds);
  std::string text = metrics.renderPrometheus();
  const std::string name = "anyshape_compile_seconds";
  EXPECT_TRUE(contains(text, "# TYPE " + name + " histogram\n"));
  EXPECT_TRUE(contains(text, "# HELP " + name + " "));

  std::map<std::string, double> expected = {
      {"0.0001", 1}, {"0.00025", 1}, {"0.0005", 1}, {"0.001", 2}, {"0.0025", 2},
      {"0.25", 2},   {"0.5", 3},     {"1", 3},      {"5", 3},     {"+Inf", 4}};
  for (const auto &[bound, count] : expected)
    EXPECT_EQ(sample(text, name + "_bucket{le=\"" + bound + "\"}"), count)
        << bound;

  double previous = 0;
  int buckets = 0;
  for (double bound : Histogram::kBounds) {
    std::ostringstream label;
    label << bound;
    auto value = sample(text, name + "_bucket{le=\"" + label.str() + "\"}");
    ASSERT_TRUE(value.has_value()) << "no bucket le=" << label.str();
    EXPECT_GE(*value, previous) << label.str();
    previous = *value;
    ++buckets;
  }
  EXPECT_EQ(buckets, 14);
  auto infinity = sample(text, name + "_bucket{le=\"+Inf\"}");
  ASSERT_TRUE(infinity.has_value());
  EXPECT_GE(*infinity, previous);
  EXPECT_EQ(sample(text, name + "_count"), *infinity);
  ASSERT_TRUE(sample(text, name + "_sum").has_value());
  EXPECT_NEAR(*sample(text, name + "_sum"), 10.30105, 1e-6);

  // The other histogram is untouched and still rendered in full.
  EXPECT_EQ(sample(text, "anyshape_execute_seconds_bucket{le=\"+Inf\"}"), 0);
  EXPECT_EQ(sample(text, "anyshape_execute_seconds_count"), 0);
}

TEST(Metrics, ResidentMemoryIsReported) {
  EXPECT_GT(residentMemoryBytes(), 1 << 20);
}

/// Sends `request` to `address` ("host:port") and reads until the server
/// closes.
std::string scrape(const std::string &address, const std::string &request) {
  size_t colon = address.rfind(':');
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port =
      htons(static_cast<uint16_t>(std::stoi(address.substr(colon + 1))));
  if (::inet_pton(AF_INET, address.substr(0, colon).c_str(), &addr.sin_addr) !=
      1)
    return "bad address";
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return "no socket";
  timeval timeout{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return "connect failed";
  }
  (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string response;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0;)
    response.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  return response;
}

std::string bodyOf(const std::string &response) {
  size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

std::unique_ptr<MetricsEndpoint>
startEndpoint(std::function<std::string()> render) {
  auto endpoint = MetricsEndpoint::start("127.0.0.1:0", std::move(render));
  EXPECT_TRUE(endpoint.isOk()) << endpoint.status().toString();
  return endpoint.isOk() ? std::move(*endpoint) : nullptr;
}

TEST(MetricsEndpoint, ServesTheRenderedMetrics) {
  Metrics metrics;
  metrics.executions = 42;
  metrics.executeSeconds.observe(0.002);
  auto endpoint = startEndpoint([&] { return metrics.renderPrometheus(); });
  ASSERT_NE(endpoint, nullptr);
  const std::string &address = endpoint->address();
  ASSERT_EQ(address.rfind("127.0.0.1:", 0), 0u) << address;
  EXPECT_NE(address, "127.0.0.1:0") << "the bound port is reported";

  std::string response =
      scrape(address, "GET /metrics HTTP/1.1\r\nHost: test\r\n\r\n");
  EXPECT_EQ(response.rfind("HTTP/1.0 200", 0), 0u) << response;
  std::string body = bodyOf(response);
  EXPECT_EQ(body, metrics.renderPrometheus());
  EXPECT_TRUE(contains(
      response, "Content-Length: " + std::to_string(body.size()) + "\r\n"))
      << response;
  EXPECT_TRUE(contains(response, "Content-Type: text/plain")) << response;
  EXPECT_EQ(sample(body, "anyshape_executions_total"), 42);

  // Each scrape renders afresh.
  metrics.executions = 43;
  EXPECT_EQ(sample(bodyOf(scrape(address, "GET /metrics HTTP/1.0\r\n\r\n")),
                   "anyshape_executions_total"),
            43);
}

TEST(MetricsEndpoint, OtherPathsAreNotFound) {
  int renders = 0;
  auto endpoint = startEndpoint([&] {
    ++renders;
    return std::string("metric 1\n");
  });
  ASSERT_NE(endpoint, nullptr);
  for (const char *request :
       {"GET / HTTP/1.0\r\n\r\n", "GET /health HTTP/1.0\r\n\r\n",
        "POST /metrics HTTP/1.0\r\n\r\n", "garbage\r\n\r\n"}) {
    std::string response = scrape(endpoint->address(), request);
    EXPECT_EQ(response.rfind("HTTP/1.0 404", 0), 0u)
        << request << " -> " << response;
    EXPECT_FALSE(contains(response, "metric 1")) << request;
  }
  EXPECT_EQ(renders, 0);
  // Still serving after the refusals.
  EXPECT_EQ(
      bodyOf(scrape(endpoint->address(), "GET /metrics HTTP/1.0\r\n\r\n")),
      "metric 1\n");
}

TEST(MetricsEndpoint, BadAddressesAreErrors) {
  for (const char *address :
       {"", "nonsense", "127.0.0.1", "example.com:9100", "300.1.1.1:9100",
        "127.0.0.1:65536", "127.0.0.1:-1", ":9100"}) {
    auto endpoint =
        MetricsEndpoint::start(address, [] { return std::string(); });
    EXPECT_FALSE(endpoint.isOk()) << "'" << address << "' was accepted";
  }
}

TEST(MetricsEndpoint, APortInUseIsAnError) {
  auto first = startEndpoint([] { return std::string(); });
  ASSERT_NE(first, nullptr);
  auto second =
      MetricsEndpoint::start(first->address(), [] { return std::string(); });
  ASSERT_FALSE(second.isOk());
  EXPECT_EQ(second.status().code(), StatusCode::Unavailable);
  EXPECT_TRUE(contains(second.status().message(), first->address()))
      << second.status().toString();
}

TEST(MetricsEndpoint, StopsListeningWhenDestroyed) {
  auto endpoint = startEndpoint([] { return std::string("x 1\n"); });
  ASSERT_NE(endpoint, nullptr);
  std::string address = endpoint->address();
  ASSERT_EQ(bodyOf(scrape(address, "GET /metrics HTTP/1.0\r\n\r\n")), "x 1\n");
  auto start = std::chrono::steady_clock::now();
  endpoint.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(scrape(address, "GET /metrics HTTP/1.0\r\n\r\n"), "connect failed");
}

// BUG (disabled until fixed): the port is parsed with atoi, so a port
// that is not a number reads as 0 (any free port) or as its leading
// digits, and --metrics-listen=127.0.0.1:http silently serves on a
// random port instead of failing at startup.
TEST(MetricsEndpoint, NonNumericPortsAreErrors) {
  for (const char *address :
       {"127.0.0.1:http", "127.0.0.1:", "127.0.0.1:91x0"}) {
    auto endpoint =
        MetricsEndpoint::start(address, [] { return std::string(); });
    EXPECT_FALSE(endpoint.isOk())
        << "'" << address << "' was accepted as "
        << (endpoint.isOk() ? (*endpoint)->address() : std::string());
  }
}

// BUG (disabled until fixed): the header promises requests "bounded in
// size and time", but the 2 s limit applies to each recv, not to the
// request: one client trickling a byte every second holds the single
// serving thread (and the destructor's join) until it has sent 4 KiB,
// over an hour, and no scrape is answered meanwhile.
TEST(MetricsEndpoint, ASlowClientDoesNotStallScrapes) {
  auto endpoint = startEndpoint([] { return std::string("x 1\n"); });
  ASSERT_NE(endpoint, nullptr);
  std::string address = endpoint->address();
  std::thread trickle([&] {
    size_t colon = address.rfind(':');
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port =
        htons(static_cast<uint16_t>(std::stoi(address.substr(colon + 1))));
    ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0)
      for (int k = 0; k < 8; ++k) {
        (void)::send(fd, "G", 1, MSG_NOSIGNAL);
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
      }
    ::close(fd);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto start = std::chrono::steady_clock::now();
  std::string body = bodyOf(scrape(address, "GET /metrics HTTP/1.0\r\n\r\n"));
  auto waited = std::chrono::steady_clock::now() - start;
  trickle.join();
  EXPECT_EQ(body, "x 1\n");
  EXPECT_LT(waited, std::chrono::milliseconds(2500))
      << "the scrape waited "
      << std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()
      << " ms behind a slow client";
}

} // namespace

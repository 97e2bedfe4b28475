// anyshape-load's arithmetic and scraping without a server: lengths stay in
// range, repeat for a seed, and follow the documented skew; a trace file
// is read as written; a bucket's inputs are padded with zeros; percentiles are
// nearest-rank; the RSS metric is found among others and fetched over HTTP
// from a one-shot in-test endpoint; --against-in-process sends every length
// both ways, block by block in alternating order, and sums what it measured.
#include "tools/load/Compare.h"
#include "tools/load/Metrics.h"
#include "tools/load/Workload.h"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <utility>

namespace anyshape::load {
namespace {

TEST(LoadLengths, UniformStaysInRangeAndRepeatsForASeed) {
  auto lengths = drawLengths(LengthDistribution::Uniform, 1, 512, 5000, 7);
  ASSERT_EQ(lengths.size(), 5000u);
  EXPECT_EQ(*std::min_element(lengths.begin(), lengths.end()), 1);
  EXPECT_EQ(*std::max_element(lengths.begin(), lengths.end()), 512);
  double mean = 0;
  for (int64_t n : lengths)
    mean += double(n) / lengths.size();
  EXPECT_NEAR(mean, 256.5, 10);
  EXPECT_EQ(lengths, drawLengths(LengthDistribution::Uniform, 1, 512, 5000, 7));
  EXPECT_NE(lengths, drawLengths(LengthDistribution::Uniform, 1, 512, 5000, 8));
}

TEST(LoadLengths, SkewedPutsEightyPercentInTheLowestFifth) {
  auto lengths = drawLengths(LengthDistribution::Skewed, 1, 512, 20000, 3);
  // The low band of [1, 512] is [1, 103]: 512 / 5 rounded up.
  int64_t low = std::count_if(lengths.begin(), lengths.end(),
                              [](int64_t n) { return n <= 103; });
  EXPECT_NEAR(double(low) / lengths.size(), 0.8, 0.02);
  EXPECT_EQ(*std::min_element(lengths.begin(), lengths.end()), 1);
  EXPECT_EQ(*std::max_element(lengths.begin(), lengths.end()), 512);
  EXPECT_GT(std::count(lengths.begin(), lengths.end(), 104), 0);
}

TEST(LoadLengths, DegenerateRanges) {
  for (auto dist : {LengthDistribution::Uniform, LengthDistribution::Skewed}) {
    EXPECT_EQ(drawLengths(dist, 5, 5, 3, 0), (std::vector<int64_t>{5, 5, 5}));
    for (int64_t n : drawLengths(dist, 4, 6, 100, 0))
      EXPECT_TRUE(n >= 4 && n <= 6) << n;
    EXPECT_TRUE(drawLengths(dist, 1, 9, 0, 0).empty());
  }
}

TEST(LoadLengths, DistributionNames) {
  EXPECT_EQ(parseDistribution("uniform"), LengthDistribution::Uniform);
  EXPECT_EQ(parseDistribution("skewed"), LengthDistribution::Skewed);
  EXPECT_FALSE(parseDistribution("zipf").has_value());
  EXPECT_STREQ(distributionName(LengthDistribution::Skewed), "skewed");
}

TEST(LoadLengths, ATraceFileIsReadAsWritten) {
  auto lengths = parseLengths("3, 17\n1 512,\t0\r\n", 100);
  ASSERT_TRUE(lengths.isOk()) << lengths.status().toString();
  EXPECT_EQ(*lengths, (std::vector<int64_t>{3, 17, 1, 512, 0}));
  for (const char *bad : {"", " ,\n", "12 -3", "4 x", "99999999999999999999"}) {
    auto refused = parseLengths(bad, 100);
    EXPECT_EQ(refused.status().code(), StatusCode::InvalidArgument) << bad;
  }
  auto tooMany = parseLengths("1 2 3 4", 3);
  EXPECT_EQ(tooMany.status().code(), StatusCode::ResourceExhausted);
  EXPECT_TRUE(parseLengths("1 2 3", 3).isOk());
}

TEST(LoadPadding, ABucketsInputsKeepTheDataAndPadWithZeros) {
  // [2, 3] i32 padded to [3, 4]: each row's values, then zeros.
  v1::Tensor t;
  t.set_dtype(v1::DTYPE_I32);
  t.add_shape(2);
  t.add_shape(3);
  std::vector<int32_t> values = {1, 2, 3, 4, 5, 6};
  t.set_data(values.data(), values.size() * 4);
  auto padded = padTensor(t, {3, 4});
  ASSERT_TRUE(padded.isOk()) << padded.status().toString();
  EXPECT_EQ(padded->shape_size(), 2);
  EXPECT_EQ(padded->shape(0), 3);
  EXPECT_EQ(padded->shape(1), 4);
  std::vector<int32_t> out(12);
  ASSERT_EQ(padded->data().size(), out.size() * 4);
  std::memcpy(out.data(), padded->data().data(), padded->data().size());
  EXPECT_EQ(out, (std::vector<int32_t>{1, 2, 3, 0, 4, 5, 6, 0, 0, 0, 0, 0}));
  EXPECT_FALSE(padTensor(t, {1, 4}).isOk()); // a dim may not shrink
  EXPECT_FALSE(padTensor(t, {4}).isOk());    // nor the rank change
}

TEST(LoadPercentile, NearestRank) {
  std::vector<double> values;
  for (int k = 1; k <= 100; ++k)
    values.push_back(k);
  EXPECT_EQ(percentile(values, 50), 50);
  EXPECT_EQ(percentile(values, 90), 90);
  EXPECT_EQ(percentile(values, 99), 99);
  EXPECT_EQ(percentile(values, 100), 100);
  EXPECT_EQ(percentile(values, 0), 1);
  EXPECT_EQ(percentile({4.5}, 99), 4.5);
  EXPECT_EQ(percentile({1, 2, 3}, 50), 2);
  EXPECT_EQ(percentile({}, 50), 0);
}

const char *kMetrics =
    "# HELP anyshape_process_resident_memory_bytes Resident memory.\n"
    "# TYPE anyshape_process_resident_memory_bytes gauge\n"
    "anyshape_process_resident_memory_bytes_peak 9\n"
    "anyshape_compiles_total{target=\"cpu\"} 3\n"
    "anyshape_process_resident_memory_bytes 1.5e+09\n";

TEST(LoadMetrics, FindsTheSampleNotAPrefixOfIt) {
  EXPECT_EQ(findMetric(kMetrics, "anyshape_process_resident_memory_bytes"),
            1.5e9);
  EXPECT_EQ(findMetric(kMetrics, "anyshape_compiles_total"), 3);
  EXPECT_FALSE(findMetric(kMetrics, "anyshape_missing").has_value());
  EXPECT_FALSE(findMetric("", "x").has_value());
}

TEST(LoadMetrics, FetchesOverHttp) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(
      bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address),
      0);
  ASSERT_EQ(listen(listener, 1), 0);
  socklen_t length = sizeof address;
  getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length);
  std::string request;
  std::thread server([&] {
    int connection = accept(listener, nullptr, nullptr);
    char buffer[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = recv(connection, buffer, sizeof buffer, 0);
      if (n <= 0)
        break;
      request.append(buffer, n);
    }
    std::string reply = std::string("HTTP/1.0 200 OK\r\nContent-Type: "
                                    "text/plain\r\n\r\n") +
                        kMetrics;
    send(connection, reply.data(), reply.size(), 0);
    close(connection);
  });
  auto body = fetchMetrics(
      "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) +
          "/metrics",
      std::chrono::milliseconds(2000));
  server.join();
  close(listener);
  ASSERT_TRUE(body.isOk()) << body.status().toString();
  EXPECT_EQ(request.rfind("GET /metrics HTTP/1.0\r\n", 0), 0u) << request;
  EXPECT_EQ(*body, kMetrics);
}

TEST(LoadMetrics, NothingListeningIsUnavailable) {
  auto body = fetchMetrics("127.0.0.1:1", std::chrono::milliseconds(500));
  ASSERT_FALSE(body.isOk());
  EXPECT_EQ(body.status().code(), StatusCode::Unavailable);
  EXPECT_EQ(
      fetchMetrics("nonsense", std::chrono::milliseconds(10)).status().code(),
      StatusCode::InvalidArgument);
}

// --against-in-process ------------------------------------------------------

/// A side that records (side, length) and fails the lengths in `failing`.
RunRequest recording(std::vector<std::pair<char, int64_t>> &calls, char side,
                     std::vector<int64_t> failing = {}) {
  return [&calls, side, failing](int64_t length,
                                 const std::vector<v1::Tensor> &inputs,
                                 ServerTiming &timing) -> Status {
    EXPECT_EQ(inputs.size(), 1u);
    calls.emplace_back(side, length);
    if (std::find(failing.begin(), failing.end(), length) != failing.end())
      return Status(StatusCode::Internal, "refused " + std::to_string(length));
    if (side == 's') {
      timing.queueMs = 0.5;
      timing.runMs = static_cast<double>(length);
    }
    return Status::ok();
  };
}

MakeInputs oneInput() {
  return [](int64_t) -> StatusOr<std::vector<v1::Tensor>> {
    return std::vector<v1::Tensor>(1);
  };
}

TEST(LoadCompare, EveryLengthGoesBothWaysBlockByBlockInAlternatingOrder) {
  std::vector<int64_t> lengths = {11, 12, 13, 14, 15, 16, 17};
  std::vector<std::pair<char, int64_t>> calls;
  CompareOptions options;
  options.blockSize = 3;
  options.pause = std::chrono::milliseconds(0);
  Comparison result =
      compareAgainstInProcess(lengths, oneInput(), recording(calls, 's'),
                              recording(calls, 'i'), options);
  std::vector<std::pair<char, int64_t>> expected = {
      {'s', 11}, {'s', 12}, {'s', 13}, {'i', 11}, {'i', 12},
      {'i', 13}, {'i', 14}, {'i', 15}, {'i', 16}, {'s', 14},
      {'s', 15}, {'s', 16}, {'s', 17}, {'i', 17}};
  EXPECT_EQ(calls, expected);
  EXPECT_EQ(result.errors, 0);
  ASSERT_EQ(result.serverMs.size(), lengths.size());
  ASSERT_EQ(result.inProcessMs.size(), lengths.size());
  // The server's own account is kept per request, in trace order.
  for (size_t i = 0; i < lengths.size(); ++i) {
    EXPECT_EQ(result.serverRunMs[i], static_cast<double>(lengths[i]));
    EXPECT_EQ(result.serverQueueMs[i], 0.5);
    EXPECT_GE(result.serverMs[i], 0);
  }
}

TEST(LoadCompare, ARequestThatFailsEitherWayCountsInNeitherSide) {
  std::vector<int64_t> lengths = {1, 2, 3, 4, 5, 6};
  std::vector<std::pair<char, int64_t>> calls;
  CompareOptions options;
  options.pause = std::chrono::milliseconds(0);
  Comparison result =
      compareAgainstInProcess(lengths, oneInput(), recording(calls, 's', {2}),
                              recording(calls, 'i', {2, 5}), options);
  EXPECT_EQ(result.errors, 2); // length 2 failed twice: one request
  EXPECT_EQ(result.firstError, "INTERNAL: refused 2");
  EXPECT_EQ(result.serverMs.size(), 4u);
  EXPECT_EQ(result.inProcessMs.size(), 4u);
  EXPECT_EQ(result.serverRunMs, (std::vector<double>{1, 3, 4, 6}));
  EXPECT_EQ(calls.size(), 12u); // a failure does not stop the trace
}

TEST(LoadCompare, InputsThatCannotBeMadeAreAnErrorNotARun) {
  std::vector<std::pair<char, int64_t>> calls;
  CompareOptions options;
  options.pause = std::chrono::milliseconds(0);
  MakeInputs noInputs = [](int64_t) -> StatusOr<std::vector<v1::Tensor>> {
    return invalidArgument("no such shape");
  };
  Comparison result = compareAgainstInProcess(
      {1, 2}, noInputs, recording(calls, 's'), recording(calls, 'i'), options);
  EXPECT_EQ(result.errors, 2);
  EXPECT_TRUE(calls.empty());
  EXPECT_TRUE(result.serverMs.empty());
}

TEST(LoadCompare, SummarySumsLatenciesAndTakesTheOverheadPerRequest) {
  Comparison comparison;
  comparison.serverMs = {4, 2, 9};
  comparison.serverRunMs = {1, 1.5, 8.5};
  comparison.serverQueueMs = {0.1, 0.2, 0.3};
  comparison.inProcessMs = {3, 1, 6};
  ComparisonSummary summary = summarise(comparison);
  EXPECT_DOUBLE_EQ(summary.serverTotalS, 0.015);
  EXPECT_DOUBLE_EQ(summary.inProcessTotalS, 0.010);
  EXPECT_DOUBLE_EQ(summary.serverRunTotalS, 0.011); // the runs alone
  EXPECT_EQ(summary.serverP50, 4);
  EXPECT_EQ(summary.inProcessP50, 3);
  EXPECT_EQ(summary.serverP99, 9);
  EXPECT_EQ(summary.serverRunP50, 1.5);
  EXPECT_EQ(summary.serverQueueP50, 0.2);
  // Overheads 3, 0.5, 0.5: the median of the differences (0.5), not the
  // difference of the medians (4 - 1.5).
  EXPECT_EQ(summary.overheadP50, 0.5);
}

} // namespace
} // namespace anyshape::load

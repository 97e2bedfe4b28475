// Dynamic batching against a real server (--max-batch): concurrent
// requests joined into one run each get their own rows, equal to the
// reference; a request alone is not delayed; a graph whose rows are not
// proved independent never joins; a request whose shape disagrees, or
// whose data fails the run, fails alone while the others succeed.
#include "../support/ExampleGraph.h"
#include "E2eSupport.h"

#include "ir/graph/GraphText.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

using namespace anyshape;
using namespace anyshape::test;

namespace {

struct Answer {
  grpc::Status status;
  v1::ExecuteResponse response;
};

/// Sends every request at once, one thread each; the answers in order.
std::vector<Answer>
sendTogether(const std::string &address,
             const std::vector<v1::ExecuteRequest> &requests) {
  std::vector<Answer> answers(requests.size());
  std::vector<std::thread> threads;
  for (size_t k = 0; k < requests.size(); ++k)
    threads.emplace_back([&, k] {
      auto stub = v1::AnyShape::NewStub(
          grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
      grpc::ClientContext context;
      answers[k].status =
          stub->Execute(&context, requests[k], &answers[k].response);
    });
  for (std::thread &t : threads)
    t.join();
  return answers;
}

struct Prepared {
  std::vector<v1::ExecuteRequest> requests;
  std::vector<std::vector<Literal>> expected;
};

/// One request per batch size, random inputs, and the reference's outputs.
Prepared prepare(const std::string &id, const v1::Graph &graph,
                 const std::vector<int64_t> &batches, uint64_t seed) {
  Prepared p;
  for (int64_t batch : batches) {
    auto shapes = inputShapesFor(graph, {{"batch", batch}});
    EXPECT_TRUE(shapes.isOk());
    auto inputs = test::randomInputs(graph, *shapes, seed++);
    p.requests.push_back(executeRequest(id, graph, inputs.tensors));
    auto expected = evaluateGraph(graph, inputs.literals);
    EXPECT_TRUE(expected.isOk());
    p.expected.push_back(*expected);
  }
  return p;
}

/// Every answer OK and equal to the reference; the largest join seen.
int checkAll(const Prepared &p, const std::vector<Answer> &answers) {
  int largest = 0;
  for (size_t r = 0; r < answers.size(); ++r) {
    EXPECT_TRUE(answers[r].status.ok())
        << "request " << r << ": " << answers[r].status.error_message();
    if (!answers[r].status.ok())
      continue;
    largest = std::max(largest, answers[r].response.timing().joined_requests());
    EXPECT_GE(answers[r].response.timing().joined_requests(), 1);
    for (int k = 0; k < answers[r].response.outputs_size(); ++k) {
      auto literal = literalFromTensor(answers[r].response.outputs(k).tensor());
      EXPECT_TRUE(literal.isOk());
      if (!literal.isOk())
        continue;
      NumericDiff diff = compareLiterals(*literal, p.expected[r][k]);
      EXPECT_TRUE(diff.ok())
          << "request " << r << ", output " << k << ": " << diff.firstMismatch;
    }
  }
  return largest;
}

const std::vector<int64_t> kBatches{1, 3, 2, 1, 4, 1, 2, 5};

/// `graph`'s executable id on `server`, or "" if it did not start or
/// compile.
std::string compiledOn(ServerProcess &server, const v1::Graph &graph) {
  if (server.address().empty())
    return "";
  auto stub = server.stub();
  return compiledId(*stub, graph);
}

} // namespace

TEST(DynamicBatching, JoinedRequestsEachGetTheirOwnRows) {
  ServerProcess server({"--max-batch", "64", "--max-batch-delay-us", "200000"});
  v1::Graph graph = exampleGraph("mlp");
  std::string id = compiledOn(server, graph);
  ASSERT_FALSE(id.empty());
  // Concurrent arrival is up to the scheduler: a few bursts, until one
  // joins (every answer is checked in each).
  int largest = 0;
  for (int burst = 0; burst < 10 && largest < 2; ++burst) {
    Prepared p = prepare(id, graph, kBatches, 100 * burst);
    largest = checkAll(p, sendTogether(server.address(), p.requests));
  }
  EXPECT_GE(largest, 2) << "no burst of 8 concurrent requests was joined";
}

TEST(DynamicBatching, ARequestAloneIsNotDelayed) {
  ServerProcess server(
      {"--max-batch", "64", "--max-batch-delay-us", "1000000"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  v1::Graph graph = exampleGraph("mlp");
  std::string id = compiledId(*stub, graph);
  for (int k = 0; k < 3; ++k) {
    auto start = std::chrono::steady_clock::now();
    v1::ExecuteTiming timing;
    grpc::Status status =
        executeAndCheck(*stub, id, graph, {{"batch", 3}}, k, &timing);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(timing.joined_requests(), 1);
    // The delay is 1 s; a run of this MLP takes about a millisecond.
    EXPECT_LT(std::chrono::steady_clock::now() - start,
              std::chrono::milliseconds(500));
  }
}

TEST(DynamicBatching, RowsNotProvedIndependentNeverJoin) {
  // Each row adds the column sums over the whole batch: joined requests
  // would see each other's rows.
  v1::Graph graph = *parseGraphText(R"(
    inputs { name: "x" type { dtype: DTYPE_F32 dims { symbol: "batch" }
             dims { size: 4 } } }
    nodes { name: "s" op: "reduce" operands: "x"
            reduce { kind: REDUCE_SUM dimensions: 0 } }
    nodes { name: "b" op: "broadcast_in_dim" operands: "s"
            broadcast_in_dim { shape { symbol: "batch" } shape { size: 4 }
                               broadcast_dimensions: 1 } }
    nodes { name: "y" op: "add" operands: "x" operands: "b" }
    outputs: "y")");
  // A long delay, so that requests sent together join.
  ServerProcess server({"--max-batch", "64", "--max-batch-delay-us", "200000"});
  std::string id = compiledOn(server, graph);
  ASSERT_FALSE(id.empty());
  for (int burst = 0; burst < 3; ++burst) {
    Prepared p = prepare(id, graph, kBatches, 10 * burst);
    EXPECT_EQ(checkAll(p, sendTogether(server.address(), p.requests)), 1);
  }
}

TEST(DynamicBatching, ABadRequestFailsAloneTheOthersSucceed) {
  // An embedding whose indices are checked: an index out of range fails
  // the run that holds it.
  v1::Graph graph = *parseGraphText(R"pb(
    inputs { name: "ids" type { dtype: DTYPE_I64 dims { symbol: "batch" }
             dims { size: 2 } } }
    nodes { name: "table" op: "constant" constant { dtype: DTYPE_F32
            shape: 5 shape: 3 seeded_uniform { seed: 1 low: -1 high: 1 } } }
    nodes { name: "c" op: "check_index" operands: "ids" operands: "table"
            check_index { axis: 0 what: "node 'g' (Gather)" } }
    nodes { name: "g" op: "gather" operands: "table" operands: "c"
            gather { axis: 0 } }
    outputs: "g")pb");
  // A long delay, so that requests sent together join.
  ServerProcess server({"--max-batch", "64", "--max-batch-delay-us", "200000"});
  std::string id = compiledOn(server, graph);
  ASSERT_FALSE(id.empty());
  auto stub = server.stub();
  for (int burst = 0; burst < 3; ++burst) {
    // Indices in range but for request 2's one, 7; request 5's ids have
    // one dim too many.
    Prepared p;
    for (size_t r = 0; r < kBatches.size(); ++r) {
      Literal ids =
          randomLiteral(v1::DTYPE_I64, {kBatches[r], 2}, 10 * burst + r);
      for (int64_t &i : ids.i)
        i %= 5;
      if (r == 2)
        ids.i[1] = 7;
      p.requests.push_back(executeRequest(id, graph, {literalToTensor(ids)}));
      auto expected = evaluateGraph(graph, {ids});
      p.expected.push_back(expected.isOk() ? *expected
                                           : std::vector<Literal>{});
    }
    p.requests[5].mutable_inputs(0)->mutable_tensor()->add_shape(1);
    std::vector<Answer> answers = sendTogether(server.address(), p.requests);
    EXPECT_EQ(answers[2].status.error_code(), grpc::INVALID_ARGUMENT);
    EXPECT_NE(answers[2].status.error_message().find("node 'g' (Gather)"),
              std::string::npos)
        << answers[2].status.error_message();
    EXPECT_EQ(answers[5].status.error_code(), grpc::INVALID_ARGUMENT);
    answers[2] = answers[0], answers[5] = answers[0];
    p.expected[2] = p.expected[0], p.expected[5] = p.expected[0];
    checkAll(p, answers);
  }
  // The server still serves.
  EXPECT_TRUE(executeAndCheck(*stub, id, graph, {{"batch", 0}}, 1).ok());
}

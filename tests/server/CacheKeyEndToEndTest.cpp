// End-to-end tests of what a compile's cache key must keep apart, each
// against a real anyshape-server process over real gRPC: the server's
// element limit (the compiled shape checks enforce it), and a graph's
// input and output names (Execute maps a request through them).
#include "E2eSupport.h"
#include "anyshape/client/GraphBuilder.h"

#include <gtest/gtest.h>

using namespace anyshape;
using namespace anyshape::test;

namespace {

TEST(ServerEndToEnd, TheElementLimitReachesTheCompiledChecks) {
  // --max-elements is enforced on intermediates too: the compile (in its
  // worker) generates the shape checks with the server's limit, and the
  // limit is part of the cache key. x: f32[n] broadcast to [n, n] stays
  // inside 100 elements at n = 10 and is refused at n = 11, although the
  // input (11 elements) passes the server's own check.
  ServerProcess server({"--max-elements", "100"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  client::GraphBuilder b("square");
  b.output(
      b.broadcastInDim(b.parameter("x", v1::DTYPE_F32, {"n"}), {"n", "n"}, {1}),
      "y");
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  std::string id = compiledId(*stub, *graph);
  ASSERT_FALSE(id.empty());
  EXPECT_TRUE(executeAndCheck(*stub, id, *graph, {{"n", 10}}, 1).ok());
  grpc::Status refused = executeAndCheck(*stub, id, *graph, {{"n", 11}}, 2);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.error_message().find("<= 100 "), std::string::npos)
      << refused.error_message();
}

TEST(ServerEndToEnd, AGraphUnderOtherNamesRunsByItsOwnNames) {
  // Clients name inputs and outputs their own way (torch.compile and
  // torch.export name one model's inputs differently); Execute maps the
  // request's names through the graph the key stands for. Two namings of
  // one graph are two keys, each running by its own names.
  ServerProcess server({});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  auto build = [](const std::string &in, const std::string &out) {
    client::GraphBuilder b("scale");
    b.output(b.mul(b.parameter(in, v1::DTYPE_F32, {"n"}), b.scalar(2.0)), out);
    return *b.build();
  };
  v1::Graph first = build("x", "y"), second = build("tokens", "doubled");
  std::string a = compiledId(*stub, first), b = compiledId(*stub, second);
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  EXPECT_NE(a, b);
  EXPECT_TRUE(executeAndCheck(*stub, a, first, {{"n", 5}}, 1).ok());
  grpc::Status status = executeAndCheck(*stub, b, second, {{"n", 7}}, 2);
  EXPECT_TRUE(status.ok()) << status.error_message();
}

} // namespace

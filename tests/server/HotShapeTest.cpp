// Hot-shape specialisation against a real server (--specialize-after):
// a shape that has run N times is compiled for its sizes in the
// background and runs on that from then on, with results still matching
// the reference; other shapes stay on the dynamic executable; the
// specialisation is a cache entry, found on disk after a restart without
// compiling; Unload forgets the counts.
#include "../support/ExampleGraph.h"
#include "E2eSupport.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

using namespace anyshape;
using namespace anyshape::test;

namespace {

/// Waits (up to 60 s: a compile) until the server has `count`
/// specialisations.
v1::StatsResponse awaitSpecializations(v1::AnyShape::Stub &stub,
                                       int64_t count) {
  v1::StatsResponse s = stats(stub);
  for (int wait = 0; wait < 600 && s.specializations() < count &&
                     s.specialization_errors() == 0;
       ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    s = stats(stub);
  }
  return s;
}

/// Runs `graph` at batch `batch`, checked against the reference; whether
/// the run was on a specialisation.
bool runsSpecialised(v1::AnyShape::Stub &stub, const std::string &id,
                     const v1::Graph &graph, int64_t batch, uint64_t seed) {
  v1::ExecuteTiming timing;
  grpc::Status status =
      executeAndCheck(stub, id, graph, {{"batch", batch}}, seed, &timing);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return timing.specialized();
}

TEST(HotShapeSpecialization, AHotShapeRunsOnItsSpecialisationOthersDoNot) {
  std::string dir = freshDirectory();
  v1::Graph graph = exampleGraph("mlp");
  {
    ServerProcess server({"--cache-dir", dir, "--specialize-after", "3"});
    ASSERT_FALSE(server.address().empty());
    auto stub = server.stub();
    std::string id = compiledId(*stub, graph);
    ASSERT_FALSE(id.empty());
    for (int k = 0; k < 3; ++k)
      EXPECT_FALSE(runsSpecialised(*stub, id, graph, 5, k))
          << "run " << k << " was specialised before the shape was hot";
    v1::StatsResponse s = awaitSpecializations(*stub, 1);
    ASSERT_EQ(s.specializations(), 1);
    EXPECT_EQ(s.specialization_errors(), 0);
    EXPECT_EQ(s.compiles(), 2); // the graph, then its batch-5 version
    for (int k = 0; k < 3; ++k)
      EXPECT_TRUE(runsSpecialised(*stub, id, graph, 5, 10 + k));
    EXPECT_FALSE(runsSpecialised(*stub, id, graph, 6, 20));
    EXPECT_FALSE(runsSpecialised(*stub, id, graph, 1, 21));
    s = stats(*stub);
    EXPECT_EQ(s.specialized_executions(), 3);
    EXPECT_EQ(s.executions(), 8);
    EXPECT_EQ(s.compiles(), 2);
    EXPECT_EQ(server.stop(), 0);
  }
  // A restart over the same cache: the specialisation is a disk entry.
  ServerProcess server({"--cache-dir", dir, "--specialize-after", "3"});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  std::string id = compiledId(*stub, graph);
  for (int k = 0; k < 3; ++k)
    runsSpecialised(*stub, id, graph, 5, 30 + k);
  v1::StatsResponse s = awaitSpecializations(*stub, 1);
  ASSERT_EQ(s.specializations(), 1);
  EXPECT_TRUE(runsSpecialised(*stub, id, graph, 5, 40));
  s = stats(*stub);
  EXPECT_EQ(s.compiles(), 0);
  EXPECT_EQ(s.disk_loads(), 2);
  // Unload forgets the counts: batch 5 is dynamic again until hot again.
  {
    grpc::ClientContext context;
    v1::UnloadRequest request;
    request.set_executable_id(id);
    v1::UnloadResponse response;
    ASSERT_TRUE(stub->Unload(&context, request, &response).ok());
  }
  id = compiledId(*stub, graph);
  EXPECT_FALSE(runsSpecialised(*stub, id, graph, 5, 50));
}

TEST(HotShapeSpecialization, OffByDefault) {
  ServerProcess server({});
  ASSERT_FALSE(server.address().empty());
  auto stub = server.stub();
  v1::Graph graph = exampleGraph("mlp");
  std::string id = compiledId(*stub, graph);
  for (int k = 0; k < 20; ++k)
    EXPECT_FALSE(runsSpecialised(*stub, id, graph, 4, k));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  v1::StatsResponse s = stats(*stub);
  EXPECT_EQ(s.specializations(), 0);
  EXPECT_EQ(s.compiles(), 1);
}

} // namespace

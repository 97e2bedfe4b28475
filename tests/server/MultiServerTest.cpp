// Several anyshape-server processes sharing one real redis-server
// (server/cache/RedisCache.h), over real gRPC on loopback: a graph
// compiled on one is served by the others with no compile; eight clients
// racing a new graph across three servers cause one compile; restarted
// with empty disks, the fleet compiles nothing; Redis killed mid-run and
// restarted fails no request; a damaged entry in Redis is never executed;
// a server killed mid-compile leaves its lease to another; the client
// SDK, given the fleet's addresses, spreads its calls over them and skips
// one that drains.
#include "../support/ExampleGraph.h"
#include "E2eSupport.h"
#include "RedisProcess.h"

#include "anyshape/client/Client.h"

#include <atomic>
#include <thread>

namespace anyshape::test {
namespace {

/// A scratch key file every server of the fleet shares.
std::string fleetKeyFile() {
  std::string dir = freshDirectory();
  return dir.substr(0, dir.rfind('/')) + "/fleet.key";
}

struct Fleet {
  explicit Fleet(RedisProcess &redis) : redis(redis) {}
  RedisProcess &redis;
  std::string keyFile = fleetKeyFile();
  std::vector<std::unique_ptr<ServerProcess>> servers;

  /// Starts `count` servers, each with an empty disk cache of its own
  /// (or none).
  void start(int count, std::vector<std::string> extra = {}, bool disk = true) {
    servers.clear();
    for (int k = 0; k < count; ++k) {
      std::vector<std::string> args{"--cache-key-file", keyFile, "--redis",
                                    redis.address()};
      if (disk)
        args.insert(args.end(), {"--cache-dir", freshDirectory()});
      args.insert(args.end(), extra.begin(), extra.end());
      servers.push_back(std::make_unique<ServerProcess>(args));
      ASSERT_FALSE(servers.back()->address().empty())
          << "server " << k << " did not start";
    }
  }
  int64_t compiles() {
    int64_t total = 0;
    for (auto &server : servers)
      total += stats(*server->stub()).compiles();
    return total;
  }
};

TEST(MultiServer, AGraphCompiledOnOneIsServedByTheOthers) {
  RedisProcess redis;
  REQUIRE_REDIS(redis);
  Fleet fleet(redis);
  fleet.start(3);
  v1::Graph graph = exampleGraph("mlp");
  std::string id = compiledId(*fleet.servers[0]->stub(), graph);
  ASSERT_FALSE(id.empty());
  for (int k = 1; k < 3; ++k) {
    auto stub = fleet.servers[k]->stub();
    Called called = compile(*stub, graph);
    ASSERT_TRUE(called.status.ok()) << called.status.error_message();
    EXPECT_TRUE(called.compiled.cache_hit());
    EXPECT_EQ(called.compiled.info().executable_id(), id);
    for (int64_t batch : {1, 7, 33})
      EXPECT_TRUE(
          executeAndCheck(*stub, id, graph, {{"batch", batch}}, batch).ok());
    v1::StatsResponse s = stats(*stub);
    EXPECT_EQ(s.compiles(), 0);
    EXPECT_EQ(s.redis_hits(), 1);
    EXPECT_TRUE(s.redis_available());
  }
  EXPECT_EQ(stats(*fleet.servers[0]->stub()).redis_leases_taken(), 1);
}

TEST(MultiServer, EightClientsRacingAcrossThreeServersCompileOnce) {
  RedisProcess redis;
  REQUIRE_REDIS(redis);
  Fleet fleet(redis);
  // Each compile takes at least 1.5 s: every client arrives while the
  // first compile runs.
  fleet.start(3, {"--testing-compile-delay-ms", "1500"});
  v1::Graph graph = exampleGraph("elementwise_reduce");
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c)
    clients.emplace_back([&, c] {
      auto stub = fleet.servers[c % 3]->stub();
      Called called = compile(*stub, graph);
      if (!called.status.ok() ||
          !executeAndCheck(*stub, called.compiled.info().executable_id(), graph,
                           {{"rows", 5}, {"cols", 9}}, c)
               .ok())
        ++failures;
    });
  for (std::thread &t : clients)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(fleet.compiles(), 1);
  int64_t waits = 0;
  for (auto &server : fleet.servers)
    waits += stats(*server->stub()).redis_lease_waits();
  EXPECT_EQ(waits, 2); // the two servers that did not compile

  // Every server restarted with an empty disk: nothing compiles again.
  fleet.start(3);
  for (auto &server : fleet.servers) {
    Called called = compile(*server->stub(), graph);
    ASSERT_TRUE(called.status.ok());
    EXPECT_TRUE(called.compiled.cache_hit());
  }
  EXPECT_EQ(fleet.compiles(), 0);
}

TEST(MultiServer, RedisKilledMidRunFailsNoRequest) {
  RedisProcess redis;
  REQUIRE_REDIS(redis);
  Fleet fleet(redis);
  // No disk, and memory for one executable: every compile request of the
  // two graphs, taken in turn, goes to Redis, and while it is down is
  // compiled again (each server's one client runs the executable it just
  // compiled, before the next compile evicts it).
  fleet.start(2, {"--redis-timeout-ms", "200", "--cache-bytes", "1"},
              /*disk=*/false);
  std::vector<v1::Graph> graphs{exampleGraph("mlp"),
                                exampleGraph("elementwise_reduce")};
  auto symbolsFor = [](int graph, int64_t n) {
    return graph == 0
               ? std::map<std::string, int64_t>{{"batch", n}}
               : std::map<std::string, int64_t>{{"rows", n}, {"cols", n + 2}};
  };
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0}, requests{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 2; ++c)
    clients.emplace_back([&, c] {
      auto stub = fleet.servers[c]->stub();
      for (int run = 0; !stop; ++run) {
        int which = (c + run) % 2;
        const v1::Graph &graph = graphs[which];
        Called called = compile(*stub, graph);
        ++requests;
        if (!called.status.ok()) {
          ++failures;
          continue;
        }
        if (!executeAndCheck(*stub, called.compiled.info().executable_id(),
                             graph, symbolsFor(which, 1 + (run + c) % 9), run)
                 .ok())
          ++failures;
        ++requests;
      }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  redis.kill();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_TRUE(redis.start());
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  stop = true;
  for (std::thread &t : clients)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(requests.load(), 10);
  for (auto &server : fleet.servers) {
    v1::StatsResponse s = stats(*server->stub());
    EXPECT_TRUE(s.redis_available());
    EXPECT_EQ(s.compile_errors(), 0);
    EXPECT_EQ(s.execution_errors(), 0);
  }
  EXPECT_GT(stats(*fleet.servers[0]->stub()).redis_errors() +
                stats(*fleet.servers[1]->stub()).redis_errors(),
            0);
  // Redis lost everything; a new compile is written through again and
  // served to the other server from it.
  v1::Graph fresh = exampleGraph("embedding");
  ASSERT_FALSE(compiledId(*fleet.servers[0]->stub(), fresh).empty());
  auto other = fleet.servers[1]->stub();
  int64_t before = stats(*other).compiles();
  ASSERT_FALSE(compiledId(*other, fresh).empty());
  EXPECT_EQ(stats(*other).compiles(), before);
}

TEST(MultiServer, ADamagedRedisEntryIsNeverExecuted) {
  RedisProcess redis;
  REQUIRE_REDIS(redis);
  Fleet fleet(redis);
  fleet.start(2);
  v1::Graph graph = exampleGraph("mlp");
  std::string id = compiledId(*fleet.servers[0]->stub(), graph);
  ASSERT_FALSE(id.empty());
  std::string name = "anyshape:entry:" + id;
  const std::string valid = redis.command({"GET", name});
  ASSERT_GT(valid.size(), 1000u);
  std::string record = valid;
  // One bit of the object code flipped, as a bad actor with write access
  // to Redis (or a damaged value) would leave it.
  record[record.size() / 2] ^= 0x01;
  ASSERT_EQ(redis.command({"SET", name, record}), "OK");
  auto stub = fleet.servers[1]->stub();
  Called called = compile(*stub, graph);
  ASSERT_TRUE(called.status.ok());
  EXPECT_FALSE(called.compiled.cache_hit());
  EXPECT_TRUE(executeAndCheck(*stub, id, graph, {{"batch", 3}}, 3).ok());
  v1::StatsResponse s = stats(*stub);
  EXPECT_EQ(s.cache_dropped_entries(), 1);
  EXPECT_EQ(s.compiles(), 1);
  EXPECT_EQ(s.redis_hits(), 0);
  // Replaced by the recompile: a valid record again (the same bytes as
  // the first server's, not merely gone).
  EXPECT_EQ(redis.command({"GET", name}), valid);
}

TEST(MultiServer, ALeaseOfAServerKilledMidCompileIsTakenOver) {
  RedisProcess redis;
  REQUIRE_REDIS(redis);
  Fleet fleet(redis);
  fleet.start(
      2, {"--testing-compile-delay-ms", "3000", "--redis-lease-ms", "600"});
  v1::Graph graph = exampleGraph("mlp");
  std::thread doomed([&] { (void)compile(*fleet.servers[0]->stub(), graph); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  auto survivor = fleet.servers[1]->stub();
  std::thread killer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(fleet.servers[0]->pid(), SIGKILL);
  });
  auto start = std::chrono::steady_clock::now();
  Called called = compile(*survivor, graph);
  killer.join();
  doomed.join();
  ASSERT_TRUE(called.status.ok()) << called.status.error_message();
  // It waited for the lease to expire, not for the dead server's 3 s.
  EXPECT_LT(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(3000 + 3000));
  v1::StatsResponse s = stats(*survivor);
  EXPECT_EQ(s.compiles(), 1);
  EXPECT_EQ(s.redis_lease_waits(), 1);
  EXPECT_EQ(s.redis_lease_takeovers(), 1);
  EXPECT_EQ(fleet.servers[0]->wait(), 128 + SIGKILL);
}

TEST(MultiServer, TheClientBalancesOverTheFleetAndSkipsADrainingServer) {
  RedisProcess redis;
  REQUIRE_REDIS(redis);
  Fleet fleet(redis);
  fleet.start(2, {"--drain-seconds", "3"});
  auto client = client::Client::connect(fleet.servers[0]->address() + "," +
                                        fleet.servers[1]->address());
  ASSERT_TRUE(client.isOk()) << client.status().toString();
  v1::Graph graph = exampleGraph("mlp");
  auto compiled = (*client)->compile(graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  auto runChecked = [&](int64_t batch) {
    auto shapes = inputShapesFor(graph, {{"batch", batch}});
    auto inputs = randomInputs(graph, *shapes, batch);
    auto outputs = (*client)->run(*compiled, inputs.tensors);
    if (!outputs.isOk()) {
      ADD_FAILURE() << outputs.status().toString();
      return;
    }
    auto expected = evaluateGraph(graph, inputs.literals);
    ASSERT_TRUE(expected.isOk());
    for (size_t k = 0; k < outputs->size(); ++k) {
      auto literal = literalFromTensor((*outputs)[k]);
      ASSERT_TRUE(literal.isOk());
      EXPECT_TRUE(compareLiterals(*literal, (*expected)[k]).ok());
    }
  };
  for (int64_t batch = 1; batch <= 20; ++batch)
    runChecked(batch);
  // Round robin: both served runs; one compiled, the other loaded the
  // executable from Redis.
  auto first = fleet.servers[0]->stub(), second = fleet.servers[1]->stub();
  v1::StatsResponse a = stats(*first), b = stats(*second);
  EXPECT_GE(a.executions(), 5);
  EXPECT_GE(b.executions(), 5);
  EXPECT_EQ(a.executions() + b.executions(), 20);
  EXPECT_EQ(a.compiles() + b.compiles(), 1);

  // The first drains (health NOT_SERVING, then gone): every run still
  // succeeds, on the second.
  fleet.servers[0]->terminate();
  for (int64_t batch = 1; batch <= 20; ++batch)
    runChecked(batch);
  EXPECT_EQ(fleet.servers[0]->wait(), 0);
  EXPECT_GE(stats(*second).executions(), b.executions() + 18);
}

TEST(MultiServer, RedisNeedsTheFleetsKeyFile) {
  ServerProcess server({"--redis", "127.0.0.1:1"});
  EXPECT_TRUE(server.address().empty());
  EXPECT_EQ(server.wait(), 1);
}

} // namespace
} // namespace anyshape::test

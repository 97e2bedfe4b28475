// CoreShare (runtime/Threading.h): how the server sizes each execution's
// OpenMP team by the executions running when it starts.
#include "runtime/Threading.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

using namespace anyshape::runtime;

TEST(CoreShare, ALoneExecutionGetsEveryCore) {
  CoreShare cores(8);
  {
    CoreShare::Claim claim(cores);
    EXPECT_EQ(claim.threads(), 8);
    EXPECT_EQ(anyshapeTeamSize(), 8);
    EXPECT_EQ(cores.running(), 1);
  }
  EXPECT_EQ(cores.running(), 0);
}

TEST(CoreShare, EachExecutionGetsItsShareOfThoseRunning) {
  CoreShare cores(8);
  std::vector<std::unique_ptr<CoreShare::Claim>> claims;
  std::vector<int> threads;
  for (int i = 0; i < 10; ++i) {
    claims.push_back(std::make_unique<CoreShare::Claim>(cores));
    threads.push_back(claims.back()->threads());
  }
  // 8 / 1, 8 / 2, ..., never below one thread.
  EXPECT_EQ(threads, (std::vector<int>{8, 4, 2, 2, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(cores.running(), 10);
  claims.resize(1); // the others end
  EXPECT_EQ(cores.running(), 1);
  CoreShare::Claim next(cores);
  EXPECT_EQ(next.threads(), 4);
}

TEST(CoreShare, TheThreadsTeamIsRestoredAfterAClaim) {
  ScopedThreads outer(3);
  CoreShare cores(6);
  {
    CoreShare::Claim claim(cores);
    EXPECT_EQ(anyshapeTeamSize(), 6);
  }
  EXPECT_EQ(anyshapeTeamSize(), 3);
}

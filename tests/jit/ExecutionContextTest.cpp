// The execution context (runtime/ExecutionContext.h): a run's team size
// comes from its context, not from the thread it runs on, so two runs of
// one executable with different team sizes may run at once, each forking
// exactly its own team, and both compute what a serial run does. A
// runtime call that fails says so in the context, for the run to report.
#include "runtime/ExecutionContext.h"
#include "anyshape/client/GraphBuilder.h"
#include "compiler/Compiler.h"
#include "ir/graph/Bindings.h"
#include "runtime/Gemm.h"
#include "runtime/OpenMpAbi.h"
#include "runtime/Threading.h"

#include "RandomInputs.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

using namespace anyshape;

namespace {

struct TeamRun {
  bool allMatched = true;
  int largestTeam = 0;
};

TEST(ExecutionContext, RunsWithDifferentTeamSizesRunAtOnce) {
  // 256 x 1024 elements: far more work than a kernel's parallel threshold.
  client::GraphBuilder b("team_sizes");
  client::Value x = b.parameter("x", v1::DTYPE_F32, {"n", 1024});
  b.output(b.tanh(b.add(x, x)));
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto compiled = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const jit::Executable &executable = **compiled;

  auto shapes = inputShapesFor(*graph, {{"n", 256}});
  ASSERT_TRUE(shapes.isOk());
  auto inputs = test::randomInputs(*graph, *shapes, 5);
  auto serial = executable.run(inputs.tensors, {1});
  ASSERT_TRUE(serial.isOk()) << serial.status().toString();
  std::vector<const v1::Tensor *> pointers;
  for (const v1::Tensor &t : inputs.tensors)
    pointers.push_back(&t);

  // Both threads start with an OpenMP setting of 3, which neither run may
  // take: each forks the team its context says.
  std::promise<void> go;
  std::shared_future<void> start = go.get_future().share();
  auto runWith = [&](int64_t team) {
    return std::async(std::launch::async, [&, team] {
      runtime::ScopedThreads threadSetting(3);
      runtime::resetLargestTeamForkedByThisThread();
      TeamRun result;
      start.wait();
      for (int i = 0; i < 20; ++i) {
        auto outputs = executable.run(pointers, {team});
        result.allMatched &=
            outputs.isOk() && (*outputs)[0].data() == (*serial)[0].data();
      }
      result.largestTeam = runtime::largestTeamForkedByThisThread();
      return result;
    });
  };
  auto one = runWith(1);
  auto two = runWith(2);
  go.set_value();
  TeamRun ofOne = one.get(), ofTwo = two.get();
  EXPECT_TRUE(ofOne.allMatched);
  EXPECT_TRUE(ofTwo.allMatched);
  EXPECT_EQ(ofOne.largestTeam, 1);
  EXPECT_EQ(ofTwo.largestTeam, 2);
}

} // namespace

namespace {

TEST(ExecutionContext, ALibraryFailureBecomesTheRunsError) {
  // oneDNN throws on a descriptor it cannot describe (here a negative
  // size, which generated code never passes); the exception must not
  // unwind through generated code, so the GEMM records it in the context
  // and returns, and the first error is the one kept.
  float data[4] = {};
  runtime::Memref3D bad{data, data, 0, {1, -2, 2}, {4, 2, 1}};
  runtime::Memref3D good{data, data, 0, {1, 2, 2}, {4, 2, 1}};
  runtime::AnyshapeExecutionContext context = runtime::cachingContext(1);
  EXPECT_EQ(context.runtimeError[0], '\0');
  runtime::anyshapeBatchMatmulF32(&bad, &good, &good, &context);
  std::string first = context.runtimeError;
  EXPECT_EQ(first.rfind("oneDNN matmul failed: ", 0), 0u) << first;
  runtime::anyshapeRuntimeError(&context, "a later failure");
  EXPECT_EQ(std::string(context.runtimeError), first);
}

} // namespace

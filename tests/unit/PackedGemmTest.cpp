// The GEMM from a packed constant weight (runtime/PackedGemm.h): its
// results against a plain triple loop for each weight and activation
// layout, team size and batch the pipeline passes; one pack per slot,
// serving every team size (oneDNN's own multi-thread pack corrupts memory
// on a smaller team); the plain GEMM for what the pack cannot serve; a
// race of first calls; and the slot's release.
#include "runtime/PackedGemm.h"

#include "GemmOperand.h"

#include "runtime/ExecutionContext.h"
#include "runtime/Threading.h"

#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

namespace {

using namespace anyshape;
using namespace anyshape::runtime;

using test::Layout;
using Tensor = test::GemmOperand;

Tensor make(int64_t batch, int64_t rows, int64_t cols, bool transposed,
            std::mt19937 &random) {
  return test::makeGemmOperand(
      batch, rows, cols, transposed ? Layout::kTransposed : Layout::kDense,
      random);
}

/// An empty slot, as generated code's memref<1xi64> global.
struct Slot {
  int64_t value = 0;
  SlotMemref view{&value, &value, 0, {1}, {1}};
  ~Slot() { anyshapeReleaseGemmPack(reinterpret_cast<int64_t>(&value)); }
};

/// Runs c = a x w through the packed entry on a team of `team` and checks
/// every element against a triple loop.
void runAndCheck(Tensor &a, Tensor &w, Slot &slot, int team,
                 const std::string &what) {
  int64_t batch = a.view.sizes[0], m = a.view.sizes[1];
  int64_t n = w.view.sizes[2];
  std::mt19937 random(3);
  Tensor c = make(batch, m, n, false, random); // garbage to overwrite
  AnyshapeExecutionContext context = cachingContext(team);
  anyshapeBatchMatmulPackedF32(&a.view, &w.view, &c.view, &slot.view, &context);
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t r = 0; r < m; ++r)
      for (int64_t col = 0; col < n; ++col)
        ASSERT_NEAR(c.at(i, r, col), test::productAt(a, w, i, r, col), 1e-4)
            << what << " team " << team << " at [" << i << ", " << r << ", "
            << col << "]";
}

TEST(PackedGemm, MatchesTheTripleLoopForEveryLayoutAndTeam) {
  std::mt19937 random(11);
  // {batch, m, n, k}: one row (the plain GEMV), fewer columns than a
  // slice, odd sizes, a contraction of one, a batch over a broadcast
  // weight.
  for (auto [batch, m, n, k] :
       std::vector<std::array<int64_t, 4>>{{1, 1, 40, 8},
                                           {1, 7, 5, 3},
                                           {1, 37, 100, 65},
                                           {1, 130, 96, 1},
                                           {3, 9, 70, 24}})
    for (bool weightTransposed : {false, true})
      for (bool inputTransposed : {false, true}) {
        Tensor w = make(1, k, n, weightTransposed, random);
        if (batch > 1)
          w.view.sizes[0] = batch, w.view.strides[0] = 0;
        Tensor a = make(batch, m, k, inputTransposed, random);
        Slot slot;
        std::string what =
            "[" + std::to_string(batch) + ", " + std::to_string(m) + ", " +
            std::to_string(k) + "] x [" + std::to_string(k) + ", " +
            std::to_string(n) + "] weight " +
            (weightTransposed ? "transposed" : "row-major") + ", input " +
            (inputTransposed ? "transposed" : "row-major");
        // The first call packs, the others run from the pack, on teams of
        // every size (the pack was made on the first's).
        for (int team : {2, 1, 3, 2})
          runAndCheck(a, w, slot, team, what);
      }
}

TEST(PackedGemm, OnePackServesEveryTeamAndLeavesTheCallersTeamAlone) {
  if (!packedGemmAvailable())
    GTEST_SKIP() << "this oneDNN has no packed GEMM";
  std::mt19937 random(5);
  Tensor w = make(1, 96, 300, false, random);
  Tensor a = make(1, 24, 96, false, random);
  Slot slot;
  ScopedThreads callers(2);
  PackedGemmCounts before = packedGemmCounts();
  for (int team : {2, 1, 4, 1, 2})
    runAndCheck(a, w, slot, team, "[24, 96] x [96, 300]");
  PackedGemmCounts after = packedGemmCounts();
  EXPECT_EQ(after.packs - before.packs, 1);
  EXPECT_EQ(after.packedCalls - before.packedCalls, 5);
  EXPECT_EQ(after.plainCalls - before.plainCalls, 0);
  EXPECT_NE(slot.value, 0);
  EXPECT_EQ(anyshapeTeamSize(), 2);
}

TEST(PackedGemm, WhatThePackCannotServeRunsThePlainGemm) {
  if (!packedGemmAvailable())
    GTEST_SKIP() << "this oneDNN has no packed GEMM";
  std::mt19937 random(9);
  Tensor w = make(1, 48, 64, false, random);
  Tensor other = make(1, 48, 64, false, random);
  Tensor a = make(1, 10, 48, false, random);
  Tensor row = make(1, 1, 48, false, random);
  Slot slot;
  PackedGemmCounts before = packedGemmCounts();
  runAndCheck(a, w, slot, 2, "packs");
  runAndCheck(a, other, slot, 2, "another weight in the slot");
  runAndCheck(row, w, slot, 2, "one row");
  // Every other column of the input: no layout the library reads.
  Tensor strided = test::makeGemmOperand(1, 10, 48, Layout::kStrided, random);
  runAndCheck(strided, w, slot, 2, "a strided input");
  // A weight of its own per batch item: nothing to pack in its slot.
  Tensor perItem = make(2, 48, 64, false, random);
  Tensor pair = make(2, 10, 48, false, random);
  Slot unused;
  runAndCheck(pair, perItem, unused, 2, "a weight per batch item");
  EXPECT_EQ(unused.value, 0);
  PackedGemmCounts after = packedGemmCounts();
  EXPECT_EQ(after.packs - before.packs, 1);
  EXPECT_EQ(after.packedCalls - before.packedCalls, 1);
  EXPECT_EQ(after.plainCalls - before.plainCalls, 4);
}

TEST(PackedGemm, RacingFirstCallsPackOnceAndAllGetTheProduct) {
  if (!packedGemmAvailable())
    GTEST_SKIP() << "this oneDNN has no packed GEMM";
  std::mt19937 random(13);
  Tensor w = make(1, 200, 400, true, random);
  Tensor a = make(1, 16, 200, false, random);
  Slot slot;
  PackedGemmCounts before = packedGemmCounts();
  std::vector<std::thread> runs;
  for (int t = 0; t < 4; ++t)
    runs.emplace_back([&, t] {
      runAndCheck(a, w, slot, 1 + t % 2, "racing " + std::to_string(t));
    });
  for (std::thread &run : runs)
    run.join();
  PackedGemmCounts after = packedGemmCounts();
  EXPECT_EQ(after.packs - before.packs, 1);
  EXPECT_EQ((after.packedCalls - before.packedCalls) +
                (after.plainCalls - before.plainCalls),
            4);
}

TEST(PackedGemm, ReleaseEmptiesTheSlot) {
  std::mt19937 random(17);
  Tensor w = make(1, 32, 64, false, random);
  Tensor a = make(1, 4, 32, false, random);
  Slot slot;
  runAndCheck(a, w, slot, 1, "before release");
  anyshapeReleaseGemmPack(reinterpret_cast<int64_t>(&slot.value));
  EXPECT_EQ(slot.value, 0);
  anyshapeReleaseGemmPack(reinterpret_cast<int64_t>(&slot.value)); // no-op
  runAndCheck(a, w, slot, 2, "after release: packs again");
}

} // namespace

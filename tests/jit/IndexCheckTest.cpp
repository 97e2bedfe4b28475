// check_index on the CPU and in the emulated CUDA kernels: in-range
// indices run and match the reference at many shapes; an index out of
// range fails the run with INVALID_ARGUMENT naming the check, the first
// such index in row-major order and the range, whether the indices are
// given or computed, i32 or i64 (a strided view of them is checked in the
// differential runs); an empty index tensor checks nothing; and the
// executable keeps serving.
#include "../support/DrawShapes.h"
#include "../support/IndexCheckGraph.h"

#include "MatchesReference.h"

#include <gtest/gtest.h>

using namespace anyshape;

namespace {

/// The status of a run of `executable` on `table` [rows, 4], `ids` and
/// `columns`.
Status runWith(const jit::Executable &executable, int64_t rows,
               std::vector<int64_t> idsShape, std::vector<int64_t> ids,
               std::vector<int64_t> columns) {
  Literal table = randomLiteral(v1::DTYPE_F32, {rows, 4}, 1);
  Literal cols =
      Literal::zeros(v1::DTYPE_I32, {static_cast<int64_t>(columns.size())});
  cols.i = columns;
  auto result =
      executable.run({literalToTensor(table), test::i64Tensor(idsShape, ids),
                      literalToTensor(cols)});
  return result.isOk() ? Status::ok() : result.status();
}

} // namespace

TEST(IndexChecks, InRangeIndicesMatchTheReferenceAtEveryShape) {
  // Random indices are in [0, 8): with 9 rows or more every one is in
  // range; with fewer, some runs fail on both sides (a match).
  v1::Graph graph = test::indexCheckGraph();
  for (compiler::KernelBackend backend : test::kHostBackends)
    test::checkAcrossShapes(graph,
                            test::drawShapes({{"rows", {1, 20}},
                                              {"batch", {0, 3}},
                                              {"seq", {1, 9}},
                                              {"k", {0, 5}}},
                                             16, 41),
                            "index checks", test::onBackend(backend));
}

TEST(IndexChecks, AnOutOfRangeIndexFailsTheRunNamingItAndTheRange) {
  v1::Graph graph = test::indexCheckGraph();
  for (compiler::KernelBackend backend : test::kHostBackends) {
    auto executable =
        compiler::Compiler::compile(graph, test::onBackend(backend));
    ASSERT_TRUE(executable.isOk()) << executable.status().toString();
    const jit::Executable &e = **executable;
    // In range: negative rows count from the end.
    EXPECT_TRUE(runWith(e, 5, {2, 2}, {0, -5, 3, -1}, {0, 3}).isOk());
    // 10^9 given as an index: refused, naming the node, index and range.
    Status huge = runWith(e, 5, {1, 2}, {1, 1000000000}, {0});
    EXPECT_EQ(huge.code(), StatusCode::InvalidArgument) << huge.toString();
    EXPECT_EQ(huge.message(), "node 'emb' (Gather): index 1000000000 is out "
                              "of range [-5, 5) for axis 0 of size 5");
    // The first out of range in row-major order.
    Status first = runWith(e, 5, {2, 3}, {0, 1, 2, 7, -9, 8}, {0});
    EXPECT_EQ(first.message(), "node 'emb' (Gather): index 7 is out of range "
                               "[-5, 5) for axis 0 of size 5");
    // Below the range.
    EXPECT_NE(runWith(e, 5, {1, 1}, {-6}, {0})
                  .message()
                  .find("index -6 is out of range [-5, 5)"),
              std::string::npos);
    // i32 indices whose negative ones are refused.
    Status negative = runWith(e, 5, {1, 1}, {0}, {2, -1});
    EXPECT_EQ(negative.message(), "node 'cols' (Gather): index -1 is out of "
                                  "range [0, 4) for axis 1 of size 4");
    // Computed indices: ids + 1 reaches 5 where ids are in range.
    Status computed = runWith(e, 5, {1, 1}, {4}, {0});
    EXPECT_EQ(computed.message(), "node 'next' (Gather): index 5 is out of "
                                  "range [-5, 5) for axis 0 of size 5");
    // No indices: nothing to check, even with an empty table.
    EXPECT_TRUE(runWith(e, 0, {0, 3}, {}, {}).isOk());
    // The executable keeps serving.
    EXPECT_TRUE(runWith(e, 3, {1, 1}, {1}, {1}).isOk());
  }
}

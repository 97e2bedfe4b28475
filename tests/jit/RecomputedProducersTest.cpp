// Producers the fusion plan has every kernel recompute (dense, seeded and
// splat constants, broadcasts of scalars, iotas) feeding every kind of op,
// in every operand position: as the table a gather reads rows or columns
// of (at i32 and i64 indices, constant ones out of range and negative,
// and ones given at run time), as what a pad extends, crops and
// interleaves, as operands of concatenates, slices, reshapes, transposes,
// reductions, products and elementwise ops, and as an output; and the
// gathers then padded on symbolic dims and concatenated. Each graph is
// compiled once for the CPU and once for the emulated CUDA kernels, and
// checked against the reference at many shapes. A producer read at
// computed indices (a gather's table, a pad's operand) is a kernel of its
// own; built outside every fusion, it failed the plan check.
#include "../support/DrawShapes.h"
#include "anyshape/client/GraphBuilder.h"

#include "MatchesReference.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace anyshape;
using namespace anyshape::client;

namespace {

enum class Producer {
  Dense,         // a constant with its data
  SmallSeeded,   // a seeded constant embedded in the code
  LargeSeeded,   // a seeded constant generated at load
  Splat,         // a splat constant
  LargeSplat,    // a splat constant of more than 4096 elements
  Broadcast,     // a scalar broadcast to symbolic dims
  Iota,          // an iota over symbolic dims
  IotaBroadcast, // an iota along the columns, broadcast over the rows
};

template <typename T> std::string bytesOf(const std::vector<T> &values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// `kind` of shape [r, cols] for constants, [rows, cols] for the others.
Value produce(GraphBuilder &b, Producer kind, int64_t r, Dim rows,
              int64_t cols) {
  switch (kind) {
  case Producer::Dense: {
    std::vector<float> data(static_cast<size_t>(r * cols));
    for (size_t i = 0; i < data.size(); ++i)
      data[i] = 0.25f * static_cast<float>(i % 13) - 1;
    return b.constant(v1::DTYPE_F32, {r, cols}, bytesOf(data));
  }
  case Producer::SmallSeeded:
  case Producer::LargeSeeded:
    return b.seededUniform(v1::DTYPE_F32, {r, cols}, 11, -1, 1);
  case Producer::Splat:
  case Producer::LargeSplat:
    return b.splat(0.5, v1::DTYPE_F32, {r, cols});
  case Producer::Broadcast:
    return b.broadcastInDim(b.scalar(1.5), {rows, cols}, {});
  case Producer::Iota:
    return b.iota(v1::DTYPE_F32, {rows, cols}, 0);
  case Producer::IotaBroadcast:
    return b.broadcastInDim(b.iota(v1::DTYPE_F32, {cols}, 0), {rows, cols},
                            {1});
  }
  return Value();
}

v1::Graph graphOf(Producer kind) {
  bool large = kind == Producer::LargeSeeded || kind == Producer::LargeSplat;
  bool constant = kind != Producer::Broadcast && kind != Producer::Iota &&
                  kind != Producer::IotaBroadcast;
  int64_t r = large ? 80 : 8, cols = large ? 64 : 6;
  Dim rows = constant ? Dim(r) : Dim("rows");
  GraphBuilder b("recomputed");
  Value x = b.parameter("x", v1::DTYPE_F32, {rows, cols});
  Value p = produce(b, kind, r, rows, cols);
  Value w = b.parameter("w", v1::DTYPE_F32, {cols, 5});
  Value n = b.parameter("n", v1::DTYPE_I64, {"n"});
  Value zero = b.scalar(0);

  // Gathers: rows at constant i32 and i64 indices (out of range and
  // negative ones clamp), rows and columns at indices given at run time.
  int64_t last = constant ? r - 1 : 0;
  Value i32 = b.constant(
      v1::DTYPE_I32, {6},
      bytesOf(std::vector<int32_t>{0, 3, -2, static_cast<int32_t>(last),
                                   static_cast<int32_t>(r + 10), -100}));
  Value i64 =
      b.constant(v1::DTYPE_I64, {4},
                 bytesOf(std::vector<int64_t>{1, -1, int64_t{1} << 40, 0}));
  Value rows32 = b.gather(p, i32, 0);
  Value rows64 = b.gather(p, i64, 0);
  Value rowsN = b.gather(p, n, 0);
  Value columnsN = b.gather(p, n, 1);
  b.output(rows32, "rows_i32");
  b.output(rows64, "rows_i64");
  b.output(columnsN, "columns_n");
  // Padded on symbolic dims (edge, cropping, interior) and concatenated.
  Value padded = b.pad(rowsN, zero, {2, -1}, {-1, 1}, {1, 0});
  Value cropped = b.pad(columnsN, zero, {-1, 1}, {0, -1}, {0, 1});
  b.output(
      b.concatenate({padded, b.pad(rows32, zero, {1, 0}, {0, 0}), rows64}, 0),
      "gathers_padded_joined");
  b.output(b.exp(cropped), "columns_cropped");
  // Every other kind of op on the producer itself.
  b.output(b.pad(p, zero, {1, -1}, {-1, 2}, {1, 0}), "pad");
  b.output(b.concatenate({p, x, p}, 0), "concatenate");
  b.output(b.slice(p, {0, 1}, {rows, cols}, {2, 1}), "slice");
  b.output(b.reshape(p, {-1}), "reshape");
  b.output(b.transpose(p, {1, 0}), "transpose");
  b.output(b.reduce(p, {1}, Reduction::Sum), "row_sum");
  b.output(b.reduce(p, {0}, Reduction::Max), "column_max");
  b.output(b.matmul(p, w), "matmul");
  b.output(b.select(b.compare(p, x, Comparison::Gt), p, b.mul(x, p)),
           "elementwise");
  b.output(p, "itself");
  auto graph = b.build();
  EXPECT_TRUE(graph.isOk()) << graph.status().toString();
  return graph.isOk() ? *graph : v1::Graph();
}

const char *nameOf(Producer kind) {
  switch (kind) {
  case Producer::Dense:
    return "dense";
  case Producer::SmallSeeded:
    return "small seeded";
  case Producer::LargeSeeded:
    return "large seeded";
  case Producer::Splat:
    return "splat";
  case Producer::LargeSplat:
    return "large splat";
  case Producer::Broadcast:
    return "broadcast";
  case Producer::Iota:
    return "iota";
  case Producer::IotaBroadcast:
    return "broadcast iota";
  }
  return "?";
}

constexpr Producer kProducers[] = {
    Producer::Dense, Producer::SmallSeeded,  Producer::LargeSeeded,
    Producer::Splat, Producer::LargeSplat,   Producer::Broadcast,
    Producer::Iota,  Producer::IotaBroadcast};

std::vector<std::map<std::string, int64_t>> shapesFor(uint64_t seed) {
  // n = 1 and n = 9 (past the rows of the small producers: clamped).
  return test::drawShapes({{"rows", {1, 9}}, {"n", {1, 9}}}, 8, seed);
}

} // namespace

TEST(RecomputedProducers, FeedEveryOpOnTheCpu) {
  for (Producer kind : kProducers) {
    SCOPED_TRACE(nameOf(kind));
    test::checkAcrossShapes(graphOf(kind), shapesFor(31), nameOf(kind));
  }
}

TEST(RecomputedProducers, FeedEveryOpInEmulatedCudaKernels) {
  compiler::CompileOptions options;
  options.backend = compiler::KernelBackend::kCudaEmulated;
  for (Producer kind : kProducers) {
    SCOPED_TRACE(nameOf(kind));
    test::checkAcrossShapes(graphOf(kind), shapesFor(32),
                            std::string(nameOf(kind)) + " (emulated CUDA)",
                            options);
  }
}

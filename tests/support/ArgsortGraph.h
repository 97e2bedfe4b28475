// A graph of argsorts, for the tests of argsort on every backend: x [n, m]
// sorted along either axis both ways, with ties (x rounded; i32 inputs are
// 0..7), through a transposed (strided) view, as f16, i32 and bool, and a
// top-3 of each row by the composition importers use (the first 3
// positions, their values gathered), a kernel after the argsort reading
// its result.
#pragma once

#include "anyshape/client/GraphBuilder.h"

#include <stdexcept>

namespace anyshape::test {

inline v1::Graph argsortsGraph() {
  using namespace client;
  GraphBuilder b("argsorts");
  Value x = b.parameter("x", v1::DTYPE_F32, {"n", "m"});
  Value y = b.parameter("y", v1::DTYPE_F32, {"m", "n"});
  Value k = b.parameter("k", v1::DTYPE_I32, {"n", "m"});
  Value rounded = b.floor(b.mul(x, b.scalar(3.0, v1::DTYPE_F32)));
  b.output(b.argsort(x, 1), "rows_ascending");
  b.output(b.argsort(x, 0, /*descending=*/true), "columns_descending");
  b.output(b.argsort(rounded, 1), "ties_ascending");
  b.output(b.argsort(rounded, 1, true), "ties_descending");
  b.output(b.argsort(b.transpose(y, {1, 0}), 1, true), "of_transposed");
  b.output(b.argsort(b.convert(x, v1::DTYPE_F16), 0), "f16");
  b.output(b.argsort(k, 1, true), "i32_descending");
  b.output(
      b.argsort(b.compare(x, b.scalar(0.0, v1::DTYPE_F32), Comparison::Gt), 1),
      "bool");
  // The row's three largest: x flattened, at n_i * m + position.
  Value all = b.argsort(x, 1, true);
  Value first = b.slice(all, {Dim(0), Dim(0)}, {Dim("n"), Dim(3)});
  Value row = b.mul(b.iota(v1::DTYPE_I64, {Dim("n"), Dim(3)}, 0),
                    b.convert(b.dimSize(x, 1), v1::DTYPE_I64));
  b.output(b.gather(b.reshape(x, {Dim(-1)}), b.add(row, first), 0), "top3");
  auto graph = b.build();
  if (!graph.isOk()) // a bug in this graph: say so, not a garbage graph
    throw std::runtime_error(graph.status().toString());
  return *graph;
}

} // namespace anyshape::test

// A graph of cumulatives, for the tests of cumulative on every backend:
// x [n, m] folded along either axis by every kind, exclusive and
// reversed, through a transposed (strided) view, as f16 and i32 (inputs
// 0..7, so products wrap), and a kernel after it reading its result
// (top-p's mask: the cumulative softmax compared with a threshold).
#pragma once

#include "anyshape/client/GraphBuilder.h"

#include <stdexcept>

namespace anyshape::test {

inline v1::Graph cumulativesGraph() {
  using namespace client;
  GraphBuilder b("cumulatives");
  Value x = b.parameter("x", v1::DTYPE_F32, {"n", "m"});
  Value y = b.parameter("y", v1::DTYPE_F32, {"m", "n"});
  Value k = b.parameter("k", v1::DTYPE_I32, {"n", "m"});
  b.output(b.cumulative(x, 1), "sum_rows");
  b.output(b.cumulative(x, 0, Reduction::Sum, /*exclusive=*/true),
           "sum_columns_exclusive");
  b.output(b.cumulative(x, 1, Reduction::Max, false, /*reverse=*/true),
           "max_reversed");
  b.output(b.cumulative(x, 1, Reduction::Min, true, true),
           "min_exclusive_reversed");
  b.output(
      b.cumulative(b.mul(x, b.scalar(0.5, v1::DTYPE_F32)), 1, Reduction::Prod),
      "prod");
  b.output(b.cumulative(b.transpose(y, {1, 0}), 1), "of_transposed");
  b.output(b.cumulative(b.convert(x, v1::DTYPE_F16), 1), "f16");
  b.output(b.cumulative(k, 1, Reduction::Prod), "i32_prod_wraps");
  b.output(b.cumulative(k, 0, Reduction::Sum, true, true), "i32_sum");
  Value e = b.exp(x);
  Value mass = b.cumulative(e, 1);
  b.output(b.compare(mass, b.scalar(2.0, v1::DTYPE_F32), Comparison::Gt),
           "past_threshold");
  auto graph = b.build();
  if (!graph.isOk()) // a bug in this graph: say so, not a garbage graph
    throw std::runtime_error(graph.status().toString());
  return *graph;
}

} // namespace anyshape::test

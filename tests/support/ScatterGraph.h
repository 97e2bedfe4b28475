// A graph of scatters, for the tests of scatter on every backend: rows of
// updates combined into x [n, 3] at indices [m] (random indices are 0..7,
// so rows repeat, and clamp when n is smaller) by every reduction, into a
// transposed (strided) operand, with i32 indices, into an i32 operand,
// and a kernel after a scatter reading its result.
#pragma once

#include "anyshape/client/GraphBuilder.h"

#include <stdexcept>

namespace anyshape::test {

inline v1::Graph scattersGraph() {
  using namespace client;
  GraphBuilder b("scatters");
  Value x = b.parameter("x", v1::DTYPE_F32, {"n", 3});
  Value idx = b.parameter("idx", v1::DTYPE_I64, {"m"});
  Value u = b.parameter("u", v1::DTYPE_F32, {"m", 3});
  Value y = b.parameter("y", v1::DTYPE_F32, {3, "n"});
  Value k = b.parameter("k", v1::DTYPE_I32, {"n", 3});
  b.output(b.scatter(x, idx, u), "replaced");
  b.output(b.exp(b.scatter(x, idx, u, ScatterMode::Add)), "added_exp");
  b.output(b.scatter(x, idx, u, ScatterMode::Mul), "multiplied");
  b.output(b.scatter(x, idx, u, ScatterMode::Max), "maxed");
  b.output(b.scatter(x, idx, u, ScatterMode::Min), "minned");
  b.output(b.scatter(b.transpose(y, {1, 0}), idx, u, ScatterMode::Add),
           "into_transposed");
  b.output(b.scatter(x, b.convert(idx, v1::DTYPE_I32), u), "i32_indices");
  b.output(b.scatter(k, idx, b.convert(u, v1::DTYPE_I32), ScatterMode::Add),
           "i32_added");
  auto graph = b.build();
  if (!graph.isOk()) // a bug in this graph: say so, not a garbage graph
    throw std::runtime_error(graph.status().toString());
  return *graph;
}

} // namespace anyshape::test

// A graph whose kernels copy strided views, for the tests of copies on
// every backend: a concatenate along columns (each part a strided
// window of the result), a transposed input's rows merged (a reshape of
// a strided view, a copy), and a gather from a matrix's row with its
// unit dim merged away (read through the reshape, no copy).
#pragma once

#include "anyshape/client/GraphBuilder.h"

#include <stdexcept>

namespace anyshape::test {

/// x [n, m], idx i64 [k]: [exp(x), x] along columns; x transposed and
/// flattened plus one; row 1 of x gathered at idx.
inline v1::Graph stridedCopiesGraph() {
  using namespace client;
  GraphBuilder b("strided_copies");
  Value x = b.parameter("x", v1::DTYPE_F32, {"n", "m"});
  Value idx = b.parameter("idx", v1::DTYPE_I64, {"k"});
  b.output(b.concatenate({b.exp(x), x}, 1), "side_by_side");
  Value flat = b.reshape(b.transpose(x, {1, 0}), {"m*n"});
  b.output(b.add(flat, b.broadcastInDim(b.scalar(1.0), {"m*n"}, {})), "flat");
  Value row = b.reshape(b.slice(x, {1, 0}, {2, "m"}), {"m"});
  b.output(b.gather(row, idx, 0), "picked");
  auto graph = b.build();
  if (!graph.isOk()) // a bug in this graph: say so, not a garbage graph
    throw std::runtime_error(graph.status().toString());
  return *graph;
}

} // namespace anyshape::test

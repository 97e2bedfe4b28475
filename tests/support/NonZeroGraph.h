// Graphs with a data-dependent size, for the tests of nonzero on every
// backend: the positive elements of x [n, m], or its rows of positive
// sum, picked through nonzero's coordinates, with values broadcast and
// iota'd to their count.
#pragma once

#include "anyshape/client/GraphBuilder.h"

#include <stdexcept>

namespace anyshape::test {

/// The positive elements of x [n, m]: their coordinates, their values
/// (gathered from x flattened, at row * m + column), tanh of them plus
/// 1.5 broadcast to the count and an iota over it, and their sum.
inline v1::Graph positiveElementsGraph() {
  using namespace client;
  GraphBuilder b("positive_elements");
  Value x = b.parameter("x", v1::DTYPE_F32, {"n", "m"});
  Value where =
      b.nonzero(b.compare(x, b.scalar(0), Comparison::Gt), "positives");
  b.output(where, "where");
  // Rows of the coordinates by gathers at a scalar index.
  Value rows = b.gather(where, b.scalar(0, v1::DTYPE_I64), 0);
  Value columns = b.gather(where, b.scalar(1, v1::DTYPE_I64), 0);
  Value width = b.dimSize(x, 1);
  Value linear = b.add(b.mul(rows, width), columns);
  Value values = b.gather(b.reshape(x, {"n*m"}), linear, 0);
  Value shifted =
      b.add(b.tanh(values), b.broadcastInDim(b.scalar(1.5), {"positives"}, {}));
  b.output(b.add(shifted, b.convert(b.iota(v1::DTYPE_I64, {"positives"}, 0),
                                    v1::DTYPE_F32)),
           "shifted");
  b.output(b.reduce(values, {0}, Reduction::Sum), "total");
  auto graph = b.build();
  if (!graph.isOk()) // a bug in this graph: say so, not a garbage graph
    throw std::runtime_error(graph.status().toString());
  return *graph;
}

/// The rows of x [n, 4] whose sum is positive: nonzero's coordinates,
/// the rows gathered, tanh of them plus an iota over the count, and their
/// column sums. No size is read as data (dim_size): the count alone
/// sizes what follows.
inline v1::Graph positiveRowsGraph() {
  using namespace client;
  GraphBuilder b("positive_rows");
  Value x = b.parameter("x", v1::DTYPE_F32, {"n", 4});
  Value sums = b.reduce(x, {1}, Reduction::Sum);
  Value where = b.nonzero(b.compare(sums, b.scalar(0), Comparison::Gt), "kept");
  b.output(where, "where");
  Value rows = b.gather(x, b.gather(where, b.scalar(0, v1::DTYPE_I64), 0), 0);
  Value counted =
      b.convert(b.iota(v1::DTYPE_I64, {"kept", 4}, 0), v1::DTYPE_F32);
  b.output(b.add(b.tanh(rows), counted), "shifted");
  b.output(b.reduce(rows, {0}, Reduction::Sum), "column_sums");
  auto graph = b.build();
  if (!graph.isOk())
    throw std::runtime_error(graph.status().toString());
  return *graph;
}

/// The positive elements of x [n] added to x itself: n == 1 or n ==
/// count, a rule only the run decides, checked once the nonzero has
/// counted (a run picking some but not all of n > 1 elements breaks it).
inline v1::Graph countMeetsInputGraph() {
  using namespace client;
  GraphBuilder b("count_meets_n");
  Value x = b.parameter("x", v1::DTYPE_F32, {"n"});
  Value picked =
      b.gather(x,
               b.reshape(b.nonzero(b.compare(x, b.scalar(0), Comparison::Gt)),
                         {"count"}),
               0);
  b.output(b.add(picked, x), "sum");
  auto graph = b.build();
  if (!graph.isOk())
    throw std::runtime_error(graph.status().toString());
  return *graph;
}

} // namespace anyshape::test

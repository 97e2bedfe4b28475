// A graph whose gathers check their indices (check_index), for the tests
// of the checks on every backend: rows of a table at run-time i64 indices
// (negative ones allowed, as ONNX allows them), columns at i32 indices
// (negative ones refused), and rows at computed and at strided indices.
#pragma once

#include "anyshape/client/GraphBuilder.h"
#include "ir/reference/Literal.h"

#include <stdexcept>
#include <vector>

namespace anyshape::test {

inline v1::Graph indexCheckGraph() {
  using namespace client;
  GraphBuilder b("index_checks");
  Value table = b.parameter("table", v1::DTYPE_F32, {"rows", 4});
  Value ids = b.parameter("ids", v1::DTYPE_I64, {"batch", "seq"});
  Value columns = b.parameter("columns", v1::DTYPE_I32, {"k"});
  b.output(b.gather(table,
                    b.checkIndex(ids, table, 0, true, "node 'emb' (Gather)"),
                    0),
           "rows");
  b.output(
      b.gather(table,
               b.checkIndex(columns, table, 1, false, "node 'cols' (Gather)"),
               1),
      "picked_columns");
  Value next = b.add(ids, b.scalar(1, v1::DTYPE_I64));
  b.output(b.gather(table,
                    b.checkIndex(next, table, 0, true, "node 'next' (Gather)"),
                    0),
           "next_rows");
  Value everyOther = b.slice(ids, {0, 0}, {"batch", "seq"}, {1, 2});
  b.output(b.gather(table,
                    b.checkIndex(everyOther, table, 0, true,
                                 "node 'strided' (Gather)"),
                    0),
           "strided_rows");
  auto graph = b.build();
  if (!graph.isOk()) // a bug in this graph: say so, not a garbage graph
    throw std::runtime_error(graph.status().toString());
  return *graph;
}

/// The wire tensor of i64 `values` of `shape`.
inline v1::Tensor i64Tensor(std::vector<int64_t> shape,
                            const std::vector<int64_t> &values) {
  Literal literal = Literal::zeros(v1::DTYPE_I64, std::move(shape));
  literal.i = values;
  return literalToTensor(literal);
}

} // namespace anyshape::test

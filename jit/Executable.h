//===- Executable.h - a compiled graph ----------------------------*- C++
//-*-===//
//
// The JITed code of one graph plus what is needed to call it: the graph
// (every call's shapes are checked against all of its shape rules before
// any data is touched, so no kernel ever sees inconsistent sizes) and each
// output's dtype and rank. run() is safe to call from
// many threads at once: it keeps no per-call state in the object.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "anyshape/v1/graph.pb.h"
#include "ir/graph/Limits.h"
#include "ir/graph/Validate.h"
#include "runtime/support/Status.h"

#include <memory>
#include <vector>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace anyshape::jit {

struct TensorSignature {
  v1::DType dtype;
  int64_t rank;
};

class Executable {
public:
  Executable(v1::Graph graph, GraphInfo info,
             std::vector<TensorSignature> outputs,
             std::unique_ptr<mlir::ExecutionEngine> engine);
  ~Executable();

  /// Runs on `inputs` (in graph input order); outputs in graph output
  /// order. Shape mismatches are INVALID_ARGUMENT naming the input and dim.
  StatusOr<std::vector<v1::Tensor>>
  run(const std::vector<v1::Tensor> &inputs) const;

  const v1::Graph &graph() const { return graph_; }

private:
  v1::Graph graph_;
  GraphInfo info_; // of graph_: the order and types the checks walk
  std::vector<TensorSignature> outputs_;
  std::unique_ptr<mlir::ExecutionEngine> engine_;
  /// The packed entry, looked up once: runs take no JIT lock.
  void (*entry_)(void **) = nullptr;
  GraphLimits limits_;
};

} // namespace anyshape::jit

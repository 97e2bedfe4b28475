//===- SplitWideConcatenations.cpp - bound a concatenate's width -*- C++ -*-=//
//
// dhlo-split-wide-concatenations: a concatenate of n > 64 operands becomes a
// concatenate of chunks, each chunk a concatenate of k consecutive operands
// (k = max(64, ceil(sqrt(n)))). A concatenate is one kernel that copies
// every operand in straight-line code, and LLVM's optimiser and code
// generator grow faster than linearly on one block that long (5,000
// operands: 19 s, 1.5x the per-operand time of 1,000). Split, no kernel has
// more than max(64, sqrt(n)) copies, and the chunks whose operands have the
// same types are the same kernel, which anyshape-merge-identical-kernels
// compiles once: the 5,000-operand concatenate compiles in under a second.
// The price is one more copy of the data, paid only by concatenates wider
// than 64, which real graphs do not build.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/dhlo/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <cmath>

namespace anyshape::dhlo {

#define GEN_PASS_DEF_SPLITWIDECONCATENATIONS
#include "ir/dhlo/Transforms/Passes.h.inc"

using namespace mlir;

namespace {

/// Wider than this, a concatenate is split; also the smallest chunk.
constexpr int64_t kMaxOperands = 64;

int64_t chunkSize(int64_t operands) {
  auto root =
      static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(operands))));
  return std::max(kMaxOperands, root);
}

void split(ConcatenateOp op) {
  OperandRange inputs = op.getInputs();
  auto n = static_cast<int64_t>(inputs.size());
  int64_t k = chunkSize(n);
  OpBuilder b(op);
  SmallVector<Value> chunks;
  for (int64_t first = 0; first < n; first += k) {
    int64_t count = std::min(k, n - first);
    ValueRange chunk = inputs.slice(first, count);
    // The chunk's type is inferred (InferTypeOpInterface): shape
    // propagation, which runs next, refines it as for any other op.
    chunks.push_back(count == 1 ? chunk.front()
                                : b.create<ConcatenateOp>(op.getLoc(), chunk,
                                                          op.getDimension())
                                      .getResult());
  }
  op->setOperands(chunks);
}

struct SplitWideConcatenationsPass
    : impl::SplitWideConcatenationsBase<SplitWideConcatenationsPass> {
  void runOnOperation() override {
    SmallVector<ConcatenateOp> wide;
    getOperation().walk([&](ConcatenateOp op) {
      if (static_cast<int64_t>(op.getInputs().size()) > kMaxOperands)
        wide.push_back(op);
    });
    for (ConcatenateOp op : wide)
      split(op);
  }
};

} // namespace
} // namespace anyshape::dhlo

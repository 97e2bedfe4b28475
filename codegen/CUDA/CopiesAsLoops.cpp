//===- CopiesAsLoops.cpp - a fusion's copies as linalg.copy -----*- C++ -*-===//
//
// anyshape-copies-as-loops (see Passes.td). A copy inside a fusion moves
// a kernel's data, so on the GPU it must be a grid like the fusion's other
// loops: as linalg.copy it becomes a parallel loop, which the mapping to
// the GPU schedules; any layout, strided or not, since the loop reads
// and writes through the views' strides.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_COPIESASLOOPS
#include "codegen/CUDA/Passes.h.inc"

namespace {

struct CopiesAsLoopsPass : impl::CopiesAsLoopsBase<CopiesAsLoopsPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](dhlo::FusionOp fusion) {
      fusion.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      b.create<linalg::CopyOp>(copy.getLoc(), copy.getSource(),
                               copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace
} // namespace anyshape::codegen

//===- CopyConcatenations.cpp - insert_slice chains as copies --*- C++ -*-===//
//
// anyshape-copy-concatenations (see Passes.td). Runs on @main's tensors,
// right before bufferization.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_COPYCONCATENATIONS
#include "codegen/Common/Passes.h.inc"

namespace {

/// The chain of insert_slices that starts at `empty`, or empty if it does
/// not qualify (Passes.td).
SmallVector<tensor::InsertSliceOp> chainFrom(tensor::EmptyOp empty) {
  SmallVector<tensor::InsertSliceOp> chain;
  Value link = empty.getResult();
  while (link.hasOneUse()) {
    auto next = llvm::dyn_cast<tensor::InsertSliceOp>(*link.getUsers().begin());
    if (!next || next.getDest() != link ||
        next->getBlock() != empty->getBlock())
      break;
    chain.push_back(next);
    link = next.getResult();
  }
  // A chain of one is still a chain: the rest of the buffer is undefined,
  // as the empty's contents are. Rank-reducing slices (which the lowerings
  // do not make) would need a collapse of the subview: left alone.
  for (tensor::InsertSliceOp link : chain)
    if (link.getSourceType().getRank() != link.getType().getRank())
      return {};
  return chain;
}

struct CopyConcatenationsPass
    : impl::CopyConcatenationsBase<CopyConcatenationsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk(
        [&](tensor::EmptyOp empty) { empties.push_back(empty); });
    for (tensor::EmptyOp empty : empties) {
      SmallVector<tensor::InsertSliceOp> chain = chainFrom(empty);
      if (chain.empty())
        continue;
      tensor::InsertSliceOp last = chain.back();
      auto type = llvm::cast<RankedTensorType>(empty.getType());
      // The empty's sizes dominate the empty, so the first link; each copy
      // goes where its link was, which its source and offsets dominate.
      // Copying there, not all at the last link, keeps each offset live
      // only up to its own copy: with N operands all at the end, N offsets
      // were live at once, and LLVM's register allocation took 21 s of a
      // 25 s compile at N = 5,000.
      OpBuilder b(chain.front());
      auto bufferType = MemRefType::get(type.getShape(), type.getElementType());
      Value buffer = b.create<memref::AllocOp>(empty.getLoc(), bufferType,
                                               empty.getDynamicSizes());
      // One buffer view per distinct source: bufferization's analysis of
      // N views of one tensor was quadratic (2.2 s at N = 5,000).
      llvm::DenseMap<Value, Value> sourceBuffers;
      for (tensor::InsertSliceOp link : chain) {
        b.setInsertionPoint(link);
        Value &source = sourceBuffers[link.getSource()];
        if (!source) {
          auto sourceType = llvm::cast<RankedTensorType>(link.getSourceType());
          source = b.create<bufferization::ToMemrefOp>(
              link.getLoc(),
              bufferization::getMemRefTypeWithFullyDynamicLayout(sourceType),
              link.getSource(), /*read_only=*/true);
        }
        Value target = b.create<memref::SubViewOp>(
            link.getLoc(), buffer, link.getMixedOffsets(), link.getMixedSizes(),
            link.getMixedStrides());
        b.create<memref::CopyOp>(link.getLoc(), source, target);
      }
      b.setInsertionPoint(last);
      Value tensor = b.create<bufferization::ToTensorOp>(
          last.getLoc(), type, buffer, /*restrict=*/true, /*writable=*/true);
      last.getResult().replaceAllUsesWith(tensor);
      for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        it->erase();
      empty.erase();
    }
  }
};

} // namespace
} // namespace anyshape::codegen

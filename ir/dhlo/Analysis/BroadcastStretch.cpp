//===- BroadcastStretch.cpp - which broadcast dims stretch -------*- C++
//-*-===//
#include "BroadcastStretch.h"

namespace anyshape::dhlo {

llvm::SmallVector<DimStretch>
broadcastStretch(BroadcastInDimOp op, const ShapeConstraintAnalysis &analysis) {
  mlir::Value operand = op.getOperand();
  llvm::SmallVector<DimStretch> stretch;
  for (auto [i, r] : llvm::enumerate(op.getBroadcastDimensions())) {
    std::optional<int64_t> size = analysis.staticValue(operand, i);
    // A 1 onto a 1 reads the result's index (0 too): an affine map that
    // stays a projected permutation, which linalg's reshape propagation
    // needs (a batch of 1 at static shapes).
    if (size == 1 && analysis.staticValue(op.getResult(), r) != 1)
      stretch.push_back(DimStretch::AlwaysZero);
    // Onto a 1 the operand dim is 1 too (its shape check), so index 0,
    // the result's only one, is right without a run-time choice; the
    // choice would hide an iota producer from linalg's fusion (Dynamo's
    // graph for a size it specialised to 1).
    else if (size || analysis.staticValue(op.getResult(), r) == 1 ||
             analysis.isEqual(operand, i, op.getResult(), r) ||
             analysis.isKnownNonOne(operand, i))
      stretch.push_back(DimStretch::Same);
    else
      stretch.push_back(DimStretch::AtRunTime);
  }
  return stretch;
}

bool stretchesAtRunTime(BroadcastInDimOp op,
                        const ShapeConstraintAnalysis &analysis) {
  return llvm::is_contained(broadcastStretch(op, analysis),
                            DimStretch::AtRunTime);
}

} // namespace anyshape::dhlo

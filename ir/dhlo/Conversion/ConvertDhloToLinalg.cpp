//===- ConvertDhloToLinalg.cpp - the dhlo-convert-to-linalg pass -*- C++
//-*-===//
//
// Decides, with the shape constraint analysis, which broadcast dims can
// never stretch (recorded as `dhlo.stretch` for the pattern), applies the
// per-family patterns, and drops the #dhlo.shape encodings once no dhlo op
// needs them.
//
//===----------------------------------------------------------------------===//
#include "LoweringUtils.h"

#include "ir/dhlo/Analysis/BroadcastStretch.h"
#include "ir/dhlo/Analysis/ShapeConstraintAnalysis.h"
#include "ir/dhlo/Conversion/Passes.h"
#include "ir/dhlo/IR/ReshapeGroups.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace anyshape::dhlo {

#define GEN_PASS_DEF_CONVERTDHLOTOLINALG
#include "ir/dhlo/Conversion/Passes.h.inc"

using namespace mlir;

namespace {

/// Per operand dim of each broadcast: 0 reads index 0 (static 1), 1 reads
/// the result index (proven not to stretch), 2 decides at run time.
void recordBroadcastStretch(func::FuncOp func) {
  ShapeConstraintAnalysis analysis(func);
  func.walk([&](BroadcastInDimOp op) {
    SmallVector<int64_t> stretch;
    for (DimStretch dim : broadcastStretch(op, analysis))
      stretch.push_back(static_cast<int64_t>(dim));
    op->setAttr("dhlo.stretch",
                DenseI64ArrayAttr::get(op.getContext(), stretch));
  });
}

/// Records in `dhlo.reshape_groups` how each reshape that splits or merges
/// dims in order maps them (ReshapeLowering makes those views), read from
/// the symbolic types before lowering drops them.
void recordReshapeGroups(func::FuncOp func) {
  func.walk([&](ReshapeOp op) {
    std::optional<SmallVector<ReassociationIndices>> groups = reshapeGroups(op);
    if (!groups)
      return;
    SmallVector<Attribute> attrs;
    for (const ReassociationIndices &group : *groups)
      attrs.push_back(DenseI64ArrayAttr::get(op.getContext(), group));
    op->setAttr(kReshapeGroupsAttr, ArrayAttr::get(op.getContext(), attrs));
  });
}

void dropEncodings(func::FuncOp func) {
  auto strip = [](Value v) {
    auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
    if (type && type.getEncoding())
      v.setType(withoutEncoding(type));
  };
  func.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          strip(arg);
    for (Value result : op->getResults())
      strip(result);
  });
  Operation *terminator = func.getBody().back().getTerminator();
  func.setType(FunctionType::get(func.getContext(),
                                 func.getBody().front().getArgumentTypes(),
                                 terminator->getOperandTypes()));
}

struct ConvertDhloToLinalgPass
    : impl::ConvertDhloToLinalgBase<ConvertDhloToLinalgPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return; // a runtime function's declaration
    recordBroadcastStretch(func);
    recordReshapeGroups(func);
    RewritePatternSet patterns(&getContext());
    populateElementwiseToLinalgPatterns(patterns);
    populateShapeOpsToLinalgPatterns(patterns);
    populateContractionsToLinalgPatterns(patterns);
    GreedyRewriteConfig config;
    config.useTopDownTraversal = true;
    // Whether every op was lowered is checked below, with a precise error;
    // the driver's own convergence result adds nothing to that.
    (void)applyPatternsAndFoldGreedily(func, std::move(patterns), config);
    bool failedToLower = false;
    func.walk([&](Operation *op) {
      // Fusions (the plan's kernels) stay: the backend forms one kernel
      // of each. So do the host flow's calls (isHostFlowCall).
      if (llvm::isa<DhloDialect>(op->getDialect()) &&
          !llvm::isa<FusionOp, YieldOp>(op) && !isHostFlowCall(op)) {
        op->emitError("the CPU backend cannot lower this op");
        failedToLower = true;
      }
    });
    if (failedToLower)
      return signalPassFailure();
    dropEncodings(func);
  }
};

} // namespace
} // namespace anyshape::dhlo

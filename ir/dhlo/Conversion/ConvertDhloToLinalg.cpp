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

/// The symbolic dims of a tensor type (its #dhlo.shape encoding), with
/// static sizes filled in; nullopt for a dim nothing is known of.
SmallVector<std::optional<SymExpr>> symbolicDims(RankedTensorType type) {
  auto shape = llvm::dyn_cast_or_null<ShapeAttr>(type.getEncoding());
  SmallVector<std::optional<SymExpr>> dims;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      dims.push_back(SymExpr::constant(type.getDimSize(d)));
    else
      dims.push_back(shape ? shape.getDim(d) : std::nullopt);
  }
  return dims;
}

/// How the dims of `fewer` split into those of `more`, in order: each
/// symbolic dim is one equal dim of `more`, each static size a run of
/// static dims multiplying to it; trailing 1s join the last group. nullopt
/// when the reshape is not such a split (then it reshapes through memory
/// order, tensor.reshape).
std::optional<SmallVector<ReassociationIndices>>
splitGroups(ArrayRef<std::optional<SymExpr>> fewer,
            ArrayRef<std::optional<SymExpr>> more) {
  SmallVector<ReassociationIndices> groups;
  size_t j = 0;
  for (const std::optional<SymExpr> &dim : fewer) {
    if (!dim)
      return std::nullopt;
    ReassociationIndices group;
    std::optional<int64_t> size = dim->constantValue();
    if (!size) {
      // Unit dims before it join its group ([seq] -> [1, seq]: PyTorch's
      // packed QKV reshapes [seq, batch, 96] to [1, seq, batch, 3, 32]).
      while (j < more.size() && more[j] == SymExpr::constant(1))
        group.push_back(j++);
      if (j >= more.size() || more[j] != dim)
        return std::nullopt;
      group.push_back(j++);
    } else {
      int64_t product = 1;
      while (j < more.size() && (product < *size || group.empty())) {
        std::optional<int64_t> next =
            more[j] ? more[j]->constantValue() : std::nullopt;
        if (!next || *next == 0)
          return std::nullopt;
        product *= *next;
        group.push_back(j++);
      }
      if (group.empty() || product != *size)
        return std::nullopt;
    }
    groups.push_back(std::move(group));
  }
  for (; j < more.size(); ++j) {
    if (groups.empty() || more[j] != SymExpr::constant(1))
      return std::nullopt;
    groups.back().push_back(j);
  }
  return groups;
}

/// Records in `dhlo.reshape_groups` how each reshape that splits or merges
/// dims in order maps them (ReshapeLowering makes those views), read from
/// the symbolic types before lowering drops them.
void recordReshapeGroups(func::FuncOp func) {
  func.walk([&](ReshapeOp op) {
    auto from = llvm::cast<RankedTensorType>(op.getOperand().getType());
    RankedTensorType to = op.getType();
    std::optional<SmallVector<ReassociationIndices>> groups;
    if (from.getRank() < to.getRank())
      groups = splitGroups(symbolicDims(from), symbolicDims(to));
    else if (from.getRank() > to.getRank())
      groups = splitGroups(symbolicDims(to), symbolicDims(from));
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
      // of each.
      if (llvm::isa<DhloDialect>(op->getDialect()) &&
          !llvm::isa<FusionOp, YieldOp>(op)) {
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

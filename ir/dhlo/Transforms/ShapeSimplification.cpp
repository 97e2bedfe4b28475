//===- ShapeSimplification.cpp - canonical dims, no-op removal --*- C++ -*-===//
//
// dhlo-shape-simplification: every tensor type is rewritten to the
// canonical form the shape constraint analysis proves (static where static,
// the class representative symbol otherwise), after which broadcasts,
// reshapes and transposes whose operand and result types coincide are
// no-ops and fold away with the ops' own folders and patterns.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/Analysis/ShapeConstraintAnalysis.h"
#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/dhlo/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace anyshape::dhlo {

#define GEN_PASS_DEF_SHAPESIMPLIFICATION
#include "ir/dhlo/Transforms/Passes.h.inc"

using namespace mlir;

namespace {

/// Points every dim_size at the first function argument dim the analysis
/// proves equal to the one it reads: sizes read from different values
/// become the same op, which CSE merges (two gathers' index arithmetic on
/// equal-sized inputs is then one computation, planned once).
void readDimsFromArguments(func::FuncOp func,
                           const ShapeConstraintAnalysis &analysis) {
  func.walk([&](DimSizeOp op) {
    for (BlockArgument arg : func.getArguments()) {
      auto type = llvm::dyn_cast<RankedTensorType>(arg.getType());
      if (!type)
        continue;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (analysis.isEqual(op.getOperand(), op.getDimension(), arg, d)) {
          if (op.getOperand() != arg || op.getDimension() != d) {
            op.getOperandMutable().assign(arg);
            op.setDimension(d);
          }
          return;
        }
    }
  });
}

Type canonicalType(const ShapeConstraintAnalysis &analysis, Value v) {
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return v.getType();
  SmallVector<int64_t> shape;
  SmallVector<std::optional<SymExpr>> dims;
  bool allStatic = true;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    SymExpr dim = analysis.canonicalDim(v, d);
    std::optional<int64_t> value = dim.constantValue();
    // The analysis' own atoms ("#3") stand for dims nothing names.
    bool unnamed = llvm::any_of(dim.symbols(), [](const std::string &atom) {
      return !atom.empty() && atom[0] == '#';
    });
    shape.push_back(value ? *value : ShapedType::kDynamic);
    allStatic &= value.has_value();
    dims.push_back(unnamed ? std::nullopt : std::optional<SymExpr>(dim));
  }
  bool anyKnown = llvm::any_of(dims, [](const std::optional<SymExpr> &d) {
    return d && !d->isConstant();
  });
  Attribute encoding = allStatic || !anyKnown
                           ? Attribute()
                           : ShapeAttr::get(type.getContext(), dims);
  return RankedTensorType::get(shape, type.getElementType(), encoding);
}

struct ShapeSimplificationPass
    : impl::ShapeSimplificationBase<ShapeSimplificationPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    {
      ShapeConstraintAnalysis analysis(func);
      for (const std::string &c : analysis.contradictions())
        func.emitWarning("shape constraints contradict (the function fails "
                         "at run time for every input): ")
            << c;
      // Canonical types of contradictory constraints would make ops
      // invalid; leave the types as they are then.
      if (analysis.contradictions().empty()) {
        SmallVector<std::pair<Value, Type>> updates;
        func.walk([&](Operation *op) {
          for (Region &region : op->getRegions())
            for (Block &block : region)
              for (BlockArgument arg : block.getArguments())
                if (canRetype(arg))
                  updates.emplace_back(arg, canonicalType(analysis, arg));
          // Only dhlo ops accept any refinement of their result types.
          if (!llvm::isa<DhloDialect>(op->getDialect()))
            return;
          for (Value result : op->getResults())
            if (canRetype(result))
              updates.emplace_back(result, canonicalType(analysis, result));
        });
        for (auto &[value, type] : updates)
          value.setType(type);
        updateSignature(func);
        readDimsFromArguments(func, analysis);
      }
    }

    RewritePatternSet patterns(context);
    for (RegisteredOperationName name : context->getRegisteredOperations())
      if (&name.getDialect() == context->getLoadedDialect<DhloDialect>())
        name.getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsAndFoldGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::dhlo

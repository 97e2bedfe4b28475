//===- ShapePropagation.cpp - refine result types ---------------*- C++ -*-===//
//
// dhlo-shape-propagation: re-infers result types in program order and keeps
// the more informative of declared and inferred, dim by dim. Refinement only
// ever adds knowledge consistent with the shape rules, so dhlo users of a
// refined value stay valid; values with other users keep their types
// (Retyping).
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/dhlo/Transforms/Passes.h"

namespace anyshape::dhlo {

#define GEN_PASS_DEF_SHAPEPROPAGATION
#include "ir/dhlo/Transforms/Passes.h.inc"

using namespace mlir;

namespace {

std::optional<SymExpr> knownDim(RankedTensorType type, int64_t d) {
  if (!type.isDynamicDim(d))
    return SymExpr::constant(type.getDimSize(d));
  auto shape = llvm::dyn_cast_or_null<ShapeAttr>(type.getEncoding());
  return shape ? shape.getDim(d) : std::nullopt;
}

/// Per dim: static beats symbolic beats unknown; declared wins ties.
RankedTensorType refine(RankedTensorType declared, RankedTensorType inferred) {
  if (declared.getRank() != inferred.getRank() ||
      declared.getElementType() != inferred.getElementType())
    return declared;
  SmallVector<int64_t> shape;
  SmallVector<std::optional<SymExpr>> dims;
  bool allStatic = true;
  for (int64_t d = 0; d < declared.getRank(); ++d) {
    std::optional<SymExpr> a = knownDim(declared, d), b = knownDim(inferred, d);
    std::optional<SymExpr> best = a;
    if (!a || (!a->isConstant() && b && b->isConstant()))
      best = b;
    std::optional<int64_t> value = best ? best->constantValue() : std::nullopt;
    shape.push_back(value ? *value : ShapedType::kDynamic);
    allStatic &= value.has_value();
    dims.push_back(best);
  }
  bool anyKnown = llvm::any_of(dims, [](const std::optional<SymExpr> &d) {
    return d && !d->isConstant();
  });
  Attribute encoding = allStatic || !anyKnown
                           ? Attribute()
                           : ShapeAttr::get(declared.getContext(), dims);
  return RankedTensorType::get(shape, declared.getElementType(), encoding);
}

/// Refines the result types of `func`'s dhlo ops in program order.
LogicalResult propagate(func::FuncOp func, const Retyping &retyping) {
  MLIRContext *context = func.getContext();
  auto *dhlo = context->getLoadedDialect<DhloDialect>();
  WalkResult walked = func.walk([&](InferTypeOpInterface op) {
    if (op->getDialect() != dhlo)
      return WalkResult::advance();
    SmallVector<Type> inferred;
    if (failed(op.inferReturnTypes(
            context, op->getLoc(), op->getOperands(), op->getAttrDictionary(),
            op->getPropertiesStorage(), op->getRegions(), inferred)))
      return WalkResult::interrupt();
    for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
      auto declared = llvm::dyn_cast<RankedTensorType>(result.getType());
      auto better = llvm::dyn_cast<RankedTensorType>(type);
      if (declared && better && retyping.canRetype(result))
        result.setType(refine(declared, better));
    }
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  retyping.updateSignature();
  return success();
}

struct ShapePropagationPass : impl::ShapePropagationBase<ShapePropagationPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseSet<StringAttr> referenced = referencedSymbols(module);
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      if (failed(propagate(func, Retyping(func, referenced))))
        return signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::dhlo

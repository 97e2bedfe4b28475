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

#include <map>

namespace anyshape::dhlo {

#define GEN_PASS_DEF_SHAPESIMPLIFICATION
#include "ir/dhlo/Transforms/Passes.h.inc"

using namespace mlir;

namespace {

using ArgumentDims = std::map<std::string, std::pair<BlockArgument, int64_t>>;

/// `dim` as i64 scalar arithmetic on argument dim sizes (a polynomial, a
/// floor quotient of them: a dividend is never negative, so dhlo.div's
/// truncation is the floor; a max or a min of them); null when a symbol
/// is no argument's dim.
Value sizeFromArguments(OpBuilder &b, Location loc, const SymExpr &dim,
                        const ArgumentDims &arguments, int depth = 0) {
  if (depth > 16) // as deep as quotients nest
    return nullptr;
  auto i64 = RankedTensorType::get({}, b.getI64Type());
  auto constant = [&](int64_t v) -> Value {
    return b.create<ConstantOp>(loc, DenseElementsAttr::get(i64, v));
  };
  Value sum;
  for (const auto &[monomial, coefficient] : dim.terms()) {
    Value term =
        coefficient != 1 || monomial.empty() ? constant(coefficient) : Value();
    for (const std::string &name : monomial) {
      Value factor;
      if (auto it = arguments.find(name); it != arguments.end()) {
        factor = b.create<DimSizeOp>(loc, it->second.first,
                                     b.getI64IntegerAttr(it->second.second));
      } else if (auto quotient = SymExpr::quotientOf(name)) {
        Value dividend =
            sizeFromArguments(b, loc, quotient->dividend, arguments, depth + 1);
        if (!dividend)
          return nullptr;
        factor = b.create<DivOp>(loc, dividend, constant(quotient->divisor));
      } else if (auto extreme = SymExpr::extremumOf(name)) {
        Value a = sizeFromArguments(b, loc, extreme->a, arguments, depth + 1);
        Value c = sizeFromArguments(b, loc, extreme->b, arguments, depth + 1);
        if (!a || !c)
          return nullptr;
        factor = extreme->larger ? b.create<MaxOp>(loc, a, c).getResult()
                                 : b.create<MinOp>(loc, a, c).getResult();
      } else {
        return nullptr;
      }
      term = term ? b.create<MulOp>(loc, term, factor).getResult() : factor;
    }
    sum = sum ? b.create<AddOp>(loc, sum, term).getResult() : term;
  }
  return sum ? sum : constant(0);
}

/// Points every dim_size at the first function argument dim the analysis
/// proves equal to the one it reads: sizes read from different values
/// become the same op, which CSE merges (two gathers' index arithmetic on
/// equal-sized inputs is then one computation, planned once). A size that
/// is an expression of argument dims (a convolution's output, a quotient)
/// becomes that arithmetic: reading it then keeps no intermediate value
/// alive outside its kernel.
void readDimsFromArguments(func::FuncOp func,
                           const ShapeConstraintAnalysis &analysis) {
  // The first argument dim of each canonical size, collected once: a scan
  // of every argument per dim_size would be quadratic in a graph's inputs.
  ArgumentDims firstArgumentDim;
  for (BlockArgument arg : func.getArguments()) {
    auto type = llvm::dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !analysis.hasDims(arg))
      continue;
    for (int64_t d = 0; d < type.getRank(); ++d)
      firstArgumentDim.try_emplace(analysis.canonicalDim(arg, d).toString(),
                                   arg, d);
  }
  SmallVector<DimSizeOp> computed;
  func.walk([&](DimSizeOp op) {
    if (!analysis.hasDims(op.getOperand()))
      return;
    SymExpr dim = analysis.canonicalDim(op.getOperand(), op.getDimension());
    auto found = firstArgumentDim.find(dim.toString());
    if (found == firstArgumentDim.end()) {
      if (!dim.isConstant())
        computed.push_back(op);
      return;
    }
    auto [arg, d] = found->second;
    if (op.getOperand() != arg || op.getDimension() != d) {
      op.getOperandMutable().assign(arg);
      op.setDimension(d);
    }
  });
  for (DimSizeOp op : computed) {
    OpBuilder b(op);
    SymExpr dim = analysis.canonicalDim(op.getOperand(), op.getDimension());
    if (Value size = sizeFromArguments(b, op.getLoc(), dim, firstArgumentDim)) {
      op.replaceAllUsesWith(size);
      op.erase();
    }
  }
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
    bool unnamed = llvm::any_of(dim.leafSymbols(), [](const std::string &atom) {
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

/// Rewrites `func`'s types to their canonical dims, then folds what became
/// a no-op with `patterns` (dhlo's canonicalizations).
LogicalResult simplify(func::FuncOp func,
                       const llvm::DenseSet<StringAttr> &referenced,
                       const FrozenRewritePatternSet &patterns) {
  {
    ShapeConstraintAnalysis analysis(func);
    for (const std::string &c : analysis.contradictions())
      func.emitWarning("shape constraints contradict (the function fails "
                       "at run time for every input): ")
          << c;
    // Canonical types of contradictory constraints would make ops
    // invalid; leave the types as they are then.
    if (analysis.contradictions().empty()) {
      Retyping retyping(func, referenced);
      SmallVector<std::pair<Value, Type>> updates;
      func.walk([&](Operation *op) {
        for (Region &region : op->getRegions())
          for (Block &block : region)
            for (BlockArgument arg : block.getArguments())
              if (retyping.canRetype(arg))
                updates.emplace_back(arg, canonicalType(analysis, arg));
        // Only dhlo ops accept any refinement of their result types.
        if (!llvm::isa<DhloDialect>(op->getDialect()))
          return;
        for (Value result : op->getResults())
          if (retyping.canRetype(result))
            updates.emplace_back(result, canonicalType(analysis, result));
      });
      for (auto &[value, type] : updates)
        value.setType(type);
      retyping.updateSignature();
      readDimsFromArguments(func, analysis);
    }
  }

  if (failed(applyPatternsAndFoldGreedily(func, patterns)))
    return func.emitError("dhlo canonicalization did not converge (a "
                          "pattern changes the IR on every iteration)");
  return success();
}

struct ShapeSimplificationPass
    : impl::ShapeSimplificationBase<ShapeSimplificationPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    RewritePatternSet set(context);
    for (RegisteredOperationName name : context->getRegisteredOperations())
      if (&name.getDialect() == context->getLoadedDialect<DhloDialect>())
        name.getCanonicalizationPatterns(set, context);
    FrozenRewritePatternSet patterns(std::move(set));
    llvm::DenseSet<StringAttr> referenced = referencedSymbols(module);
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      if (failed(simplify(func, referenced, patterns)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::dhlo

//===- Reify.cpp - result dims as index values ------------------*- C++ -*-===//
//
// ReifyRankedShapedTypeOpInterface for every inferable dhlo op: the index
// value of each result dim, so that any dim of any value can be computed
// at run time (the host flow's shape computation is built from this).
//
// A dim is materialised, in order of preference, as
//   1. a constant, if static;
//   2. the polynomial of its #dhlo.shape encoding, each symbol read with
//      tensor.dim from the first function argument dim that binds it
//      (symbols always come from the inputs, so this reaches back to them
//      directly instead of through every intermediate op), a quotient
//      atom computed from its dividend, a data-dependent size read from
//      the nonzero that defines it;
//   3. the op's wire shape rule (ir/graph, the rules validation and type
//      inference use) applied to its operands' dims, for dims no symbol
//      names (a reshape's -1, a strided slice, handwritten IR).
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/IR/DhloDialect.h"

#include "ir/graph/ShapeChecks.h"
#include "ir/graph/ShapeInference.h"
#include "ir/graph/TensorType.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <functional>
#include <map>

using namespace mlir;

namespace anyshape::dhlo {
namespace {

class DimMaterializer {
public:
  DimMaterializer(Operation *op, OpBuilder &builder)
      : b_(builder), loc_(op->getLoc()) {
    auto func = op->getParentOfType<func::FuncOp>();
    if (!func || func.getBody().empty())
      return;
    body_ = &func.getBody().front();
    for (BlockArgument arg : func.getArguments()) {
      auto type = llvm::dyn_cast<RankedTensorType>(arg.getType());
      auto shape = type ? llvm::dyn_cast_or_null<ShapeAttr>(type.getEncoding())
                        : nullptr;
      for (int64_t d = 0; shape && d < shape.getRank(); ++d)
        if (auto dim = shape.getDim(d))
          if (auto symbol = dim->singleSymbol())
            bindings_.emplace(*symbol, std::make_pair(Value(arg), d));
    }
  }

  Value constant(int64_t v) {
    return b_.create<arith::ConstantIndexOp>(loc_, v);
  }

  /// Dim `d` of `tensor`: a constant if static, else tensor.dim.
  Value dimOf(Value tensor, int64_t d) {
    auto type = llvm::cast<RankedTensorType>(tensor.getType());
    if (!type.isDynamicDim(d))
      return constant(type.getDimSize(d));
    return b_.create<tensor::DimOp>(loc_, tensor, d);
  }

  /// The polynomial from argument dims; null if a symbol is unbound.
  Value materialize(const SymExpr &e) {
    Value sum;
    for (const auto &[monomial, coefficient] : e.terms()) {
      Value term = monomial.empty() ? constant(coefficient) : Value();
      for (const std::string &symbol : monomial) {
        Value factor = symbolValue(symbol);
        if (!factor)
          return nullptr;
        term = term ? mul(term, factor) : factor;
      }
      if (!monomial.empty() && coefficient != 1)
        term = mul(term, constant(coefficient));
      sum = sum ? add(sum, term) : term;
    }
    return sum ? sum : constant(0);
  }

  /// A symbol's size: an argument dim, or a quotient of them (its
  /// dividend is never negative, so unsigned division is its floor), or a
  /// max or a min of them (signed: an operand may be negative).
  Value symbolValue(const std::string &symbol) {
    if (auto it = bindings_.find(symbol); it != bindings_.end())
      return dimOf(it->second.first, it->second.second);
    // Unbound by the arguments, a symbol that is no quotient or other
    // fresh size is a nonzero's count (named, or "?count0").
    if (isValidSymbolName(symbol) || isDataDependentSymbolName(symbol))
      return countOf(symbol);
    if (std::optional<SymExpr::Extremum> extreme =
            SymExpr::extremumOf(symbol)) {
      Value a = materialize(extreme->a), c = materialize(extreme->b);
      return !a || !c ? nullptr : extreme->larger ? max(a, c) : min(a, c);
    }
    std::optional<SymExpr::Quotient> quotient = SymExpr::quotientOf(symbol);
    Value dividend = quotient ? materialize(quotient->dividend) : nullptr;
    return dividend ? div(dividend, constant(quotient->divisor)) : nullptr;
  }

  /// A data-dependent size: dim 1 of the nonzero that defines it (never
  /// in a fusion: the planner keeps nonzero in the host flow), which
  /// dominates every value shaped by it.
  Value countOf(const std::string &symbol) {
    if (!body_)
      return nullptr;
    for (NonZeroOp nonzero : body_->getOps<NonZeroOp>()) {
      auto type = llvm::cast<RankedTensorType>(nonzero.getType());
      auto shape = llvm::dyn_cast_or_null<ShapeAttr>(type.getEncoding());
      std::optional<SymExpr> count = shape ? shape.getDim(1) : std::nullopt;
      if (count && count->singleSymbol() == symbol) {
        bindings_.emplace(symbol, std::make_pair(nonzero.getResult(), 1));
        return dimOf(nonzero.getResult(), 1);
      }
    }
    return nullptr;
  }

  Value add(Value a, Value c) { return b_.create<arith::AddIOp>(loc_, a, c); }
  Value sub(Value a, Value c) { return b_.create<arith::SubIOp>(loc_, a, c); }
  Value mul(Value a, Value c) { return b_.create<arith::MulIOp>(loc_, a, c); }
  Value div(Value a, Value c) { return b_.create<arith::DivUIOp>(loc_, a, c); }
  Value max(Value a, Value c) { return b_.create<arith::MaxSIOp>(loc_, a, c); }
  Value min(Value a, Value c) { return b_.create<arith::MinSIOp>(loc_, a, c); }

private:
  OpBuilder &b_;
  Location loc_;
  Block *body_ = nullptr;
  std::map<std::string, std::pair<Value, int64_t>> bindings_;
};

/// The placeholder symbol standing for operand `k`'s dim `i` in rule 3;
/// no graph symbol can take the name (ir/graph's symbols are identifiers).
std::string placeholder(size_t k, int64_t i) {
  return "$" + std::to_string(k) + "." + std::to_string(i);
}

/// Rule 3: result dim `d` from the operands' dims, by the op's wire shape
/// rule (ir/graph/ShapeInference.h, the one owner of every op's dim
/// rules) run on operand types whose dynamic dims are placeholders. The
/// rule's result dim is then a polynomial over those, the attributes'
/// symbols and the fresh sizes its recorded checks define (a strided
/// slice's extent, a reshape's quotient, a padded dim); each becomes index
/// arithmetic on the operands' dims.
Value fromOperands(Operation *op, int64_t d, DimMaterializer &m) {
  std::string error;
  FailureOr<v1::Node> node =
      toWireNode(op->getName().stripDialect(), op->getAttrDictionary(), error);
  if (failed(node))
    return nullptr;
  static const GraphLimits limits;
  ShapeContext shapes = ShapeContext::open(limits, kLocalFreshPrefix);
  std::vector<ShapeCheck> checks;
  shapes.recordChecksInto(&checks);
  std::map<std::string, std::pair<Value, int64_t>> operandDims;
  std::vector<SymTensorType> types;
  for (auto [k, operand] : llvm::enumerate(op->getOperands())) {
    auto type = llvm::cast<RankedTensorType>(operand.getType());
    std::optional<v1::DType> dtype = dtypeOf(type.getElementType());
    if (!dtype)
      return nullptr;
    SymTensorType symbolic{*dtype, {}};
    for (int64_t i = 0; i < type.getRank(); ++i) {
      if (!type.isDynamicDim(i)) {
        symbolic.dims.push_back(SymExpr::constant(type.getDimSize(i)));
        continue;
      }
      symbolic.dims.push_back(SymExpr::symbol(placeholder(k, i)));
      operandDims.emplace(placeholder(k, i), std::make_pair(operand, i));
    }
    types.push_back(std::move(symbolic));
  }
  std::vector<const SymTensorType *> operandTypes;
  for (const SymTensorType &type : types)
    operandTypes.push_back(&type);
  StatusOr<SymTensorType> result = inferNodeType(*node, operandTypes, shapes);
  if (!result || d >= result->rank())
    return nullptr;

  std::map<std::string, const ShapeCheck *> definitions;
  for (const ShapeCheck &check : checks)
    if (!check.symbol.empty())
      definitions.emplace(check.symbol, &check);
  std::function<Value(const SymExpr &, int)> build;
  auto symbolValue = [&](const std::string &name, int depth) -> Value {
    if (auto it = operandDims.find(name); it != operandDims.end())
      return m.dimOf(it->second.first, it->second.second);
    auto it = definitions.find(name);
    if (it == definitions.end()) {
      if (auto quotient = SymExpr::quotientOf(name)) {
        Value dividend = build(quotient->dividend, depth + 1);
        return dividend ? m.div(dividend, m.constant(quotient->divisor))
                        : nullptr;
      }
      if (auto extreme = SymExpr::extremumOf(name)) {
        Value a = build(extreme->a, depth + 1),
              c = build(extreme->b, depth + 1);
        return !a || !c ? nullptr : extreme->larger ? m.max(a, c) : m.min(a, c);
      }
      return m.materialize(SymExpr::symbol(name)); // a function input's
    }
    const ShapeCheck &check = *it->second;
    Value a = build(check.a, depth + 1);
    if (!a)
      return nullptr;
    switch (check.kind) {
    case ShapeCheck::Kind::DefineQuotient: {
      Value b = build(check.b, depth + 1);
      return b ? m.div(a, b) : nullptr;
    }
    case ShapeCheck::Kind::DefinePadded: {
      // edges if a == 0, else a + interior * (a - 1) + edges.
      Value grown = m.mul(m.max(m.sub(a, m.constant(1)), m.constant(0)),
                          m.constant(check.interior));
      return m.add(m.add(a, grown), m.constant(check.edges));
    }
    default:
      return nullptr;
    }
  };
  build = [&](const SymExpr &e, int depth) -> Value {
    if (depth > 16) // definitions refer only to earlier ones; a guard
      return nullptr;
    // Terms added, then those with negative coefficients subtracted: an
    // extent reads `limit - start`.
    Value sum;
    for (bool negative : {false, true})
      for (const auto &[monomial, coefficient] : e.terms()) {
        if ((coefficient < 0) != negative)
          continue;
        int64_t magnitude = negative ? -coefficient : coefficient;
        Value term = monomial.empty() ? m.constant(magnitude) : Value();
        for (const std::string &symbol : monomial) {
          Value factor = symbolValue(symbol, depth);
          if (!factor)
            return nullptr;
          term = term ? m.mul(term, factor) : factor;
        }
        if (!monomial.empty() && magnitude != 1)
          term = m.mul(term, m.constant(magnitude));
        if (!sum)
          sum = negative ? m.sub(m.constant(0), term) : term;
        else
          sum = negative ? m.sub(sum, term) : m.add(sum, term);
      }
    return sum ? sum : m.constant(0);
  };
  return build(result->dims[d], 0);
}

} // namespace

Value materializeSymExpr(Operation *contextOp, OpBuilder &builder,
                         const SymExpr &dim) {
  DimMaterializer m(contextOp, builder);
  return m.materialize(dim);
}

LogicalResult reifyDhloResultShapes(Operation *op, OpBuilder &builder,
                                    ReifiedRankedShapedTypeDims &shapes) {
  DimMaterializer m(op, builder);
  for (Value result : op->getResults()) {
    auto type = llvm::cast<RankedTensorType>(result.getType());
    auto encoding = llvm::dyn_cast_or_null<ShapeAttr>(type.getEncoding());
    SmallVector<OpFoldResult> dims;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        dims.push_back(builder.getIndexAttr(type.getDimSize(d)));
        continue;
      }
      Value dim;
      if (std::optional<SymExpr> symbolic =
              encoding ? encoding.getDim(d) : std::nullopt)
        dim = m.materialize(*symbolic);
      if (!dim)
        dim = fromOperands(op, d, m);
      if (!dim)
        return op->emitOpError("cannot reify result dim ") << d;
      dims.push_back(dim);
    }
    shapes.push_back(std::move(dims));
  }
  return success();
}

} // namespace anyshape::dhlo

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
//      directly instead of through every intermediate op);
//   3. the op's own shape rule applied to its operands' dims, for dims no
//      symbol names (a reshape's -1, a strided slice, handwritten IR).
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/IR/DhloDialect.h"

#include "ir/graph/OpRegistry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

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
        auto it = bindings_.find(symbol);
        if (it == bindings_.end())
          return nullptr;
        Value factor = dimOf(it->second.first, it->second.second);
        term = term ? mul(term, factor) : factor;
      }
      if (!monomial.empty() && coefficient != 1)
        term = mul(term, constant(coefficient));
      sum = sum ? add(sum, term) : term;
    }
    return sum ? sum : constant(0);
  }

  Value add(Value a, Value c) { return b_.create<arith::AddIOp>(loc_, a, c); }
  Value sub(Value a, Value c) { return b_.create<arith::SubIOp>(loc_, a, c); }
  Value mul(Value a, Value c) { return b_.create<arith::MulIOp>(loc_, a, c); }
  Value div(Value a, Value c) { return b_.create<arith::DivUIOp>(loc_, a, c); }
  Value ceilDiv(Value a, Value c) {
    return b_.create<arith::CeilDivUIOp>(loc_, a, c);
  }
  Value max(Value a, Value c) { return b_.create<arith::MaxSIOp>(loc_, a, c); }

private:
  OpBuilder &b_;
  Location loc_;
  std::map<std::string, std::pair<Value, int64_t>> bindings_;
};

/// Rule 3: result dim `d` from the operands' dims.
Value fromOperands(Operation *op, int64_t d, DimMaterializer &m) {
  const OpInfo *info = lookupOp(op->getName().stripDialect());
  auto resultType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  if (info &&
      (info->opClass == OpClass::Unary || info->opClass == OpClass::Binary ||
       info->opClass == OpClass::Select)) {
    // Any operand of the result's rank (select's predicate may be scalar).
    for (Value operand : llvm::reverse(op->getOperands()))
      if (llvm::cast<RankedTensorType>(operand.getType()).getRank() ==
          resultType.getRank())
        return m.dimOf(operand, d);
    return nullptr;
  }
  if (auto transpose = llvm::dyn_cast<TransposeOp>(op))
    return m.dimOf(transpose.getOperand(), transpose.getPermutation()[d]);
  if (auto reduce = llvm::dyn_cast<ReduceOp>(op)) {
    int64_t kept = -1;
    for (int64_t i = 0;; ++i)
      if (!llvm::is_contained(reduce.getDimensions(), i) && ++kept == d)
        return m.dimOf(reduce.getOperand(), i);
  }
  if (auto broadcast = llvm::dyn_cast<BroadcastInDimOp>(op)) {
    if (auto target = broadcast.getShape().getDim(d))
      return m.materialize(*target);
    for (auto [i, r] : llvm::enumerate(broadcast.getBroadcastDimensions()))
      if (r == d) // an unknown target copies its operand dim
        return m.dimOf(broadcast.getOperand(), i);
    return nullptr;
  }
  if (auto reshape = llvm::dyn_cast<ReshapeOp>(op)) {
    ShapeAttr target = reshape.getShape();
    if (!target.isInferred(d))
      return target.getDim(d) ? m.materialize(*target.getDim(d)) : nullptr;
    // The -1: element count over the product of the other target dims.
    auto inType = llvm::cast<RankedTensorType>(reshape.getOperand().getType());
    Value count = m.constant(1);
    for (int64_t i = 0; i < inType.getRank(); ++i)
      count = m.mul(count, m.dimOf(reshape.getOperand(), i));
    Value others = m.constant(1);
    for (int64_t i = 0; i < target.getRank(); ++i) {
      if (i == d)
        continue;
      Value dim = target.getDim(i) ? m.materialize(*target.getDim(i)) : nullptr;
      if (!dim)
        return nullptr;
      others = m.mul(others, dim);
    }
    return m.div(count, others);
  }
  if (auto slice = llvm::dyn_cast<SliceOp>(op)) {
    auto start = slice.getStartIndices().getDim(d);
    auto limit = slice.getLimitIndices().getDim(d);
    Value s = start ? m.materialize(*start) : nullptr;
    Value l = limit ? m.materialize(*limit) : nullptr;
    if (!s || !l)
      return nullptr;
    int64_t stride = slice.getStrides().empty() ? 1 : slice.getStrides()[d];
    return m.ceilDiv(m.sub(l, s), m.constant(stride));
  }
  if (auto pad = llvm::dyn_cast<PadOp>(op)) {
    Value in = m.dimOf(pad.getOperand(), d);
    int64_t interior =
        pad.getInteriorPadding().empty() ? 0 : pad.getInteriorPadding()[d];
    Value grown = m.mul(m.max(m.sub(in, m.constant(1)), m.constant(0)),
                        m.constant(interior));
    return m.add(m.add(in, grown), m.constant(pad.getEdgePaddingLow()[d] +
                                              pad.getEdgePaddingHigh()[d]));
  }
  if (auto concat = llvm::dyn_cast<ConcatenateOp>(op)) {
    if (d != concat.getDimensionAttr().getInt())
      return m.dimOf(concat.getInputs().front(), d);
    Value sum = m.constant(0);
    for (Value input : concat.getInputs())
      sum = m.add(sum, m.dimOf(input, d));
    return sum;
  }
  if (auto gather = llvm::dyn_cast<GatherOp>(op)) {
    int64_t axis = gather.getAxisAttr().getInt();
    int64_t indexRank =
        llvm::cast<RankedTensorType>(gather.getIndices().getType()).getRank();
    if (d < axis)
      return m.dimOf(gather.getOperand(), d);
    if (d < axis + indexRank)
      return m.dimOf(gather.getIndices(), d - axis);
    return m.dimOf(gather.getOperand(), d - indexRank + 1);
  }
  if (auto dot = llvm::dyn_cast<DotGeneralOp>(op)) {
    auto lb = dot.getLhsBatchDimensions();
    if (d < static_cast<int64_t>(lb.size()))
      return m.dimOf(dot.getLhs(), lb[d]);
    int64_t k = lb.size();
    for (auto [side, batch, contracting] :
         {std::make_tuple(dot.getLhs(), lb, dot.getLhsContractingDimensions()),
          std::make_tuple(dot.getRhs(), dot.getRhsBatchDimensions(),
                          dot.getRhsContractingDimensions())}) {
      int64_t rank = llvm::cast<RankedTensorType>(side.getType()).getRank();
      for (int64_t i = 0; i < rank; ++i)
        if (!llvm::is_contained(batch, i) &&
            !llvm::is_contained(contracting, i))
          if (k++ == d)
            return m.dimOf(side, i);
    }
  }
  return nullptr;
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

//===- ShapeCheckFunction.cpp - run-time shape checks as code --*- C++ -*-===//
//
// Straight-line code: every check is evaluated and the first failure's code
// kept with a select, so the function has no branches for the optimiser to
// keep. Because later checks run even after one failed, every operation
// must be safe on any value: divisions use a divisor forced positive, and
// arithmetic that overflows marks its check failed instead of wrapping
// into a value that might pass.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/ShapeCheckFunction.h"

#include "codegen/Common/Passes.h"
#include "ir/dhlo/IR/ShapeCheckAttr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include <map>

using namespace mlir;

namespace anyshape::codegen {
namespace {

/// Overflow-checked int64 arithmetic; `overflowed` collects every overflow
/// since the last reset.
class CheckedArithmetic {
public:
  CheckedArithmetic(OpBuilder &b, Location loc) : b_(b), loc_(loc) { reset(); }

  void reset() { overflowed = constant(0, 1); }
  Value constant(int64_t value, unsigned width = 64) {
    return b_.create<arith::ConstantIntOp>(loc_, value, width);
  }
  Value add(Value x, Value y) {
    Value sum = b_.create<arith::AddIOp>(loc_, x, y);
    // Overflow iff the operands share a sign that the sum does not.
    Value bothFlipped =
        b_.create<arith::AndIOp>(loc_, b_.create<arith::XOrIOp>(loc_, x, sum),
                                 b_.create<arith::XOrIOp>(loc_, y, sum));
    flagIf(compare(arith::CmpIPredicate::slt, bothFlipped, constant(0)));
    return sum;
  }
  Value mul(Value x, Value y) {
    auto product = b_.create<arith::MulSIExtendedOp>(loc_, x, y);
    // Overflow iff the high word is not the low word's sign extension.
    Value sign =
        b_.create<arith::ShRSIOp>(loc_, product.getLow(), constant(63));
    flagIf(compare(arith::CmpIPredicate::ne, product.getHigh(), sign));
    return product.getLow();
  }
  Value compare(arith::CmpIPredicate predicate, Value x, Value y) {
    return b_.create<arith::CmpIOp>(loc_, predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return b_.create<arith::SelectOp>(loc_, condition, x, y);
  }
  Value either(Value x, Value y) { return b_.create<arith::OrIOp>(loc_, x, y); }
  Value both(Value x, Value y) { return b_.create<arith::AndIOp>(loc_, x, y); }
  /// x made safe to divide by: values <= 0 become 1.
  Value positiveDivisor(Value x) {
    return select(compare(arith::CmpIPredicate::sle, x, constant(0)),
                  constant(1), x);
  }

  /// `e` with every symbol's value from `symbols`; a quotient atom is
  /// computed from its dividend, which is never negative (SymExpr.h), so
  /// truncating division is its floor; a max or a min from its operands.
  Value evaluate(const SymExpr &e,
                 const std::map<std::string, Value> &symbols) {
    Value sum;
    for (const auto &[monomial, coefficient] : e.terms()) {
      Value term = constant(coefficient);
      for (const std::string &name : monomial)
        term = mul(term, symbolValue(name, symbols));
      sum = sum ? add(sum, term) : term;
    }
    return sum ? sum : constant(0);
  }
  Value symbolValue(const std::string &name,
                    const std::map<std::string, Value> &symbols) {
    if (auto it = symbols.find(name); it != symbols.end())
      return it->second;
    if (std::optional<SymExpr::Extremum> extreme = SymExpr::extremumOf(name)) {
      Value a = evaluate(extreme->a, symbols),
            b = evaluate(extreme->b, symbols);
      return b_.create<arith::SelectOp>(loc_,
                                        compare(extreme->larger
                                                    ? arith::CmpIPredicate::sge
                                                    : arith::CmpIPredicate::sle,
                                                a, b),
                                        a, b);
    }
    std::optional<SymExpr::Quotient> quotient = SymExpr::quotientOf(name);
    if (!quotient) { // validation defines each symbol before reading it
      flagIf(constant(1, 1));
      return constant(0);
    }
    return b_.create<arith::DivSIOp>(loc_,
                                     evaluate(quotient->dividend, symbols),
                                     constant(quotient->divisor));
  }

  Value overflowed;

private:
  void flagIf(Value condition) { overflowed = either(overflowed, condition); }

  OpBuilder &b_;
  Location loc_;
};

} // namespace

Value breaksCondition(ShapeCheck::Kind kind, Value a, Value b,
                      OpBuilder &builder, Location loc) {
  using Kind = ShapeCheck::Kind;
  using P = arith::CmpIPredicate;
  CheckedArithmetic c(builder, loc);
  Value zero = c.constant(0);
  switch (kind) {
  case Kind::Equal:
    return c.compare(P::ne, a, b);
  case Kind::OneOrEqual:
    return c.both(c.compare(P::ne, a, c.constant(1)), c.compare(P::ne, a, b));
  case Kind::LessEqual:
    return c.compare(P::sgt, a, b);
  case Kind::Divides: {
    // a > 0 and a divides b; the remainder never divides by zero.
    Value remainder =
        builder.create<arith::RemSIOp>(loc, b, c.positiveDivisor(a));
    return c.either(c.compare(P::sle, a, zero),
                    c.compare(P::ne, remainder, zero));
  }
  case Kind::NonEmptyUnlessUnused:
    return c.both(c.compare(P::eq, a, zero), c.compare(P::ne, b, zero));
  default:
    return nullptr;
  }
}

namespace {

/// Emits `check`; returns its failure condition (i1), having defined its
/// symbol in `symbols` if it defines one.
Value emitCheck(const ShapeCheck &check, ValueRange inputs,
                std::map<std::string, Value> &symbols, CheckedArithmetic &c,
                OpBuilder &builder, Location loc) {
  using Kind = ShapeCheck::Kind;
  using P = arith::CmpIPredicate;
  auto inputDim = [&] {
    Value dim =
        builder.create<memref::DimOp>(loc, inputs[check.input], check.dim);
    return builder.create<arith::IndexCastOp>(loc, builder.getI64Type(), dim)
        .getResult();
  };
  auto value = [&](const SymExpr &e) { return c.evaluate(e, symbols); };
  Value zero = c.constant(0);
  switch (check.kind) {
  case Kind::BindInputDim:
    symbols[check.symbol] = inputDim();
    return c.constant(0, 1);
  case Kind::InputDimEquals:
    return c.compare(P::ne, inputDim(), value(check.a));
  case Kind::Equal:
  case Kind::OneOrEqual:
  case Kind::LessEqual:
  case Kind::Divides:
  case Kind::NonEmptyUnlessUnused: {
    Value a = value(check.a);
    return breaksCondition(check.kind, a, value(check.b), builder, loc);
  }
  case Kind::ElementLimit: {
    Value count = c.constant(1);
    for (const SymExpr &d : check.dims) {
      Value size = value(d);
      count = c.select(c.compare(P::eq, size, zero), count, c.mul(count, size));
    }
    return c.compare(P::sgt, count, c.constant(check.limit));
  }
  case Kind::DefineQuotient:
    symbols[check.symbol] = builder.create<arith::DivSIOp>(
        loc, value(check.a), c.positiveDivisor(value(check.b)));
    return c.constant(0, 1);
  case Kind::DefinePadded: {
    Value d = value(check.a), edges = c.constant(check.edges);
    Value grown =
        c.add(d, c.mul(c.constant(check.interior), c.add(d, c.constant(-1))));
    Value padded =
        c.select(c.compare(P::eq, d, zero), edges, c.add(grown, edges));
    symbols[check.symbol] = padded;
    return c.compare(P::slt, padded, zero);
  }
  }
  return c.constant(0, 1);
}

/// Each input as a memref of its element type with every dim dynamic.
SmallVector<Type> dynamicInputTypes(func::FuncOp main) {
  SmallVector<Type> types;
  for (Type type : main.getArgumentTypes()) {
    auto shaped = cast<ShapedType>(type);
    SmallVector<int64_t> dims(shaped.getRank(), ShapedType::kDynamic);
    types.push_back(MemRefType::get(dims, shaped.getElementType()));
  }
  return types;
}

} // namespace

#define GEN_PASS_DEF_SHAPECHECKFUNCTION
#include "codegen/Common/Passes.h.inc"

namespace {

struct ShapeCheckFunctionPass
    : impl::ShapeCheckFunctionBase<ShapeCheckFunctionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Attribute attr = module->getAttr(dhlo::kShapeChecksAttr);
    if (!attr)
      return; // not imported from a graph (a hand-written lit module)
    if (!module.lookupSymbol<func::FuncOp>("main")) {
      module.emitError("has ") << dhlo::kShapeChecksAttr << " but no @main";
      return signalPassFailure();
    }
    FailureOr<std::vector<ShapeCheck>> checks =
        dhlo::shapeChecksFromAttr(attr, module.getLoc());
    if (failed(checks))
      return signalPassFailure();
    addShapeCheckFunction(module, *checks);
    module->removeAttr(dhlo::kShapeChecksAttr);
  }
};

} // namespace

void addShapeCheckFunction(ModuleOp module,
                           const std::vector<ShapeCheck> &checks) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  OpBuilder builder(module.getContext());
  Location loc = main.getLoc();
  builder.setInsertionPointToEnd(module.getBody());
  auto func = builder.create<func::FuncOp>(
      loc, kShapeCheckFunction,
      builder.getFunctionType(dynamicInputTypes(main), {builder.getI64Type()}));
  func->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);

  CheckedArithmetic c(builder, loc);
  std::map<std::string, Value> symbols;
  Value code = c.constant(0);
  for (size_t k = 0; k < checks.size(); ++k) {
    const ShapeCheck &check = checks[k];
    c.reset();
    Value failed = c.either(
        emitCheck(check, body->getArguments(), symbols, c, builder, loc),
        c.overflowed);
    Value first = c.both(
        failed, c.compare(arith::CmpIPredicate::eq, code, c.constant(0)));
    code = c.select(first, c.constant(static_cast<int64_t>(k) + 1), code);
  }
  builder.create<func::ReturnOp>(loc, code);
}

} // namespace anyshape::codegen

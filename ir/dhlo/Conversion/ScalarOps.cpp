//===- ScalarOps.cpp - scalar semantics of elementwise ops ------*- C++ -*-===//
//
// The value semantics of docs/ops.md for one element, as arith/math ops:
// f16/bf16 compute in f32 and round once; integer division by zero is -1
// and INT_MIN / -1 wraps; integer powers with negative exponents are 0
// except for bases 1 and -1; float-to-int conversion truncates, saturates
// and maps NaN to 0; comparisons of bool are unsigned. The reference
// evaluator (ir/reference/EvalElementwise.cpp) is the oracle these are
// tested against.
//
//===----------------------------------------------------------------------===//
#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace anyshape::dhlo {
namespace {

bool isHalf(Type t) { return t.isF16() || t.isBF16(); }

Value constantLike(OpBuilder &b, Location loc, Type type, int64_t value) {
  if (auto f = llvm::dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(
        loc, b.getFloatAttr(f, static_cast<double>(value)));
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(type, value));
}

Value floatUnary(OpBuilder &b, Location loc, StringRef op, Value x) {
  if (op == "abs")
    return b.create<math::AbsFOp>(loc, x);
  if (op == "neg")
    return b.create<arith::NegFOp>(loc, x);
  if (op == "exp")
    return b.create<math::ExpOp>(loc, x);
  if (op == "log")
    return b.create<math::LogOp>(loc, x);
  if (op == "tanh")
    return b.create<math::TanhOp>(loc, x);
  if (op == "logistic") {
    Value one = constantLike(b, loc, x.getType(), 1);
    Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
    return b.create<arith::DivFOp>(loc, one,
                                   b.create<arith::AddFOp>(loc, one, e));
  }
  if (op == "sqrt")
    return b.create<math::SqrtOp>(loc, x);
  if (op == "rsqrt")
    return b.create<math::RsqrtOp>(loc, x);
  if (op == "erf")
    return b.create<math::ErfOp>(loc, x);
  if (op == "sin")
    return b.create<math::SinOp>(loc, x);
  if (op == "cos")
    return b.create<math::CosOp>(loc, x);
  if (op == "floor")
    return b.create<math::FloorOp>(loc, x);
  if (op == "ceil")
    return b.create<math::CeilOp>(loc, x);
  return nullptr;
}

Value intUnary(OpBuilder &b, Location loc, StringRef op, Value x) {
  Type t = x.getType();
  // abs as a select, not math.absi, which the GPU's lowering to NVVM has
  // no pattern for (LLVM still forms its abs intrinsic); MIN wraps to MIN.
  if (op == "abs") {
    Value zero = constantLike(b, loc, t, 0);
    return b.create<arith::SelectOp>(
        loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x, zero),
        b.create<arith::SubIOp>(loc, zero, x), x);
  }
  if (op == "neg")
    return b.create<arith::SubIOp>(loc, constantLike(b, loc, t, 0), x);
  if (op == "not") // all ones: logical not for i1, bitwise for integers
    return b.create<arith::XOrIOp>(loc, x, constantLike(b, loc, t, -1));
  return nullptr;
}

Value floatBinary(OpBuilder &b, Location loc, StringRef op, Value x, Value y) {
  if (op == "add")
    return b.create<arith::AddFOp>(loc, x, y);
  if (op == "sub")
    return b.create<arith::SubFOp>(loc, x, y);
  if (op == "mul")
    return b.create<arith::MulFOp>(loc, x, y);
  if (op == "div")
    return b.create<arith::DivFOp>(loc, x, y);
  if (op == "pow")
    return b.create<math::PowFOp>(loc, x, y);
  if (op == "max")
    return b.create<arith::MaximumFOp>(loc, x, y); // propagates NaN
  if (op == "min")
    return b.create<arith::MinimumFOp>(loc, x, y);
  return nullptr;
}

Value intDiv(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  Value zero = constantLike(b, loc, t, 0),
        minusOne = constantLike(b, loc, t, -1);
  Value byZero =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, y, zero);
  Value byMinusOne =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, y, minusOne);
  Value safe = b.create<arith::SelectOp>(
      loc, b.create<arith::OrIOp>(loc, byZero, byMinusOne),
      constantLike(b, loc, t, 1), y);
  Value quotient = b.create<arith::DivSIOp>(loc, x, safe);
  Value negated = b.create<arith::SubIOp>(loc, zero, x); // wraps at INT_MIN
  Value r = b.create<arith::SelectOp>(loc, byMinusOne, negated, quotient);
  return b.create<arith::SelectOp>(loc, byZero, minusOne, r);
}

Value intPow(OpBuilder &b, Location loc, Value x, Value e) {
  Type t = x.getType();
  Value zero = constantLike(b, loc, t, 0), one = constantLike(b, loc, t, 1);
  Value minusOne = constantLike(b, loc, t, -1);
  Value negative =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, e, zero);
  Value clamped = b.create<arith::SelectOp>(loc, negative, zero, e);
  Value power = b.create<math::IPowIOp>(loc, x, clamped);
  // Negative exponents: 1 for base 1, +-1 for base -1, else 0.
  Value odd =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                              b.create<arith::AndIOp>(loc, e, one), zero);
  Value ofMinusOne = b.create<arith::SelectOp>(loc, odd, minusOne, one);
  Value isOne = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x, one);
  Value isMinusOne =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x, minusOne);
  Value negResult = b.create<arith::SelectOp>(
      loc, isOne, one,
      b.create<arith::SelectOp>(loc, isMinusOne, ofMinusOne, zero));
  return b.create<arith::SelectOp>(loc, negative, negResult, power);
}

Value intBinary(OpBuilder &b, Location loc, StringRef op, Value x, Value y) {
  if (op == "add")
    return b.create<arith::AddIOp>(loc, x, y);
  if (op == "sub")
    return b.create<arith::SubIOp>(loc, x, y);
  if (op == "mul")
    return b.create<arith::MulIOp>(loc, x, y);
  if (op == "div")
    return intDiv(b, loc, x, y);
  if (op == "pow")
    return intPow(b, loc, x, y);
  if (op == "max")
    return b.create<arith::MaxSIOp>(loc, x, y);
  if (op == "min")
    return b.create<arith::MinSIOp>(loc, x, y);
  if (op == "and")
    return b.create<arith::AndIOp>(loc, x, y);
  if (op == "or")
    return b.create<arith::OrIOp>(loc, x, y);
  return nullptr;
}

Value compare(OpBuilder &b, Location loc, StringRef direction, Value x,
              Value y) {
  static const StringRef names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  int i = std::find(std::begin(names), std::end(names), direction) - names;
  if (llvm::isa<FloatType>(x.getType())) {
    // Ordered predicates are false on NaN; NE is unordered (true on NaN).
    static const arith::CmpFPredicate preds[] = {
        arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE,
        arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
        arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
    return b.create<arith::CmpFOp>(loc, preds[i], x, y);
  }
  bool isBool = x.getType().isInteger(1);
  static const arith::CmpIPredicate signedPreds[] = {
      arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
      arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
      arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge};
  static const arith::CmpIPredicate unsignedPreds[] = {
      arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
      arith::CmpIPredicate::ult, arith::CmpIPredicate::ule,
      arith::CmpIPredicate::ugt, arith::CmpIPredicate::uge};
  return b.create<arith::CmpIOp>(
      loc, isBool ? unsignedPreds[i] : signedPreds[i], x, y);
}

} // namespace

Value emitConvert(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fromFloat = llvm::dyn_cast<FloatType>(from);
  auto toFloat = llvm::dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() == toFloat.getWidth()) // f16 <-> bf16
      return b.create<arith::TruncFOp>(
          loc, to, b.create<arith::ExtFOp>(loc, b.getF32Type(), v));
    if (fromFloat.getWidth() < toFloat.getWidth())
      return b.create<arith::ExtFOp>(loc, to, v);
    // f64 to f16/bf16 through f32: the direct truncation is a compiler-rt
    // call (__truncdfbf2) the JIT does not link. Rounding twice can differ
    // from rounding once by one half-precision ulp, within its tolerance.
    if (fromFloat.getWidth() == 64 && isHalf(to))
      v = b.create<arith::TruncFOp>(loc, b.getF32Type(), v);
    return b.create<arith::TruncFOp>(loc, to, v);
  }
  if (to.isInteger(1)) {
    if (fromFloat) // NaN != 0 is true, as in C
      return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, v,
                                     constantLike(b, loc, from, 0));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v,
                                   constantLike(b, loc, from, 0));
  }
  if (from.isInteger(1))
    return toFloat ? Value(b.create<arith::UIToFPOp>(loc, to, v))
                   : Value(b.create<arith::ExtUIOp>(loc, to, v));
  if (toFloat)
    return b.create<arith::SIToFPOp>(loc, to, v);
  unsigned fromWidth = from.getIntOrFloatBitWidth(),
           toWidth = to.getIntOrFloatBitWidth();
  if (!fromFloat)
    return fromWidth < toWidth ? Value(b.create<arith::ExtSIOp>(loc, to, v))
                               : Value(b.create<arith::TruncIOp>(loc, to, v));
  // Float to integer: NaN -> 0, saturate at the integer range, truncate.
  if (isHalf(from))
    v = b.create<arith::ExtFOp>(loc, b.getF32Type(), v), from = v.getType();
  double limit = std::ldexp(1.0, toWidth - 1);
  Value lo = b.create<arith::ConstantOp>(loc, b.getFloatAttr(from, -limit));
  Value hi = b.create<arith::ConstantOp>(loc, b.getFloatAttr(from, limit));
  Value isNan = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, v, v);
  Value tooLow = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLE, v, lo);
  Value tooHigh =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGE, v, hi);
  Value outside = b.create<arith::OrIOp>(
      loc, isNan, b.create<arith::OrIOp>(loc, tooLow, tooHigh));
  Value safe =
      b.create<arith::SelectOp>(loc, outside, constantLike(b, loc, from, 0), v);
  Value r = b.create<arith::FPToSIOp>(loc, to, safe);
  int64_t maxValue =
      toWidth == 64 ? INT64_MAX : (int64_t(1) << (toWidth - 1)) - 1;
  int64_t minValue = toWidth == 64 ? INT64_MIN : -(int64_t(1) << (toWidth - 1));
  r = b.create<arith::SelectOp>(loc, tooHigh,
                                constantLike(b, loc, to, maxValue), r);
  return b.create<arith::SelectOp>(loc, tooLow,
                                   constantLike(b, loc, to, minValue), r);
}

Value emitScalarOp(OpBuilder &b, Location loc, StringRef opName,
                   ValueRange args, Type resultType, DictionaryAttr attrs) {
  StringRef op = opName;
  op.consume_front("dhlo.");
  if (op == "convert")
    return emitConvert(b, loc, args[0], resultType);
  if (op == "select")
    return b.create<arith::SelectOp>(loc, args[0], args[1], args[2]);
  Type operandType = args[0].getType();
  if (llvm::isa<FloatType>(operandType)) {
    // f16/bf16: compute in f32, round once.
    SmallVector<Value> wide;
    for (Value arg : args)
      wide.push_back(isHalf(operandType) ? Value(b.create<arith::ExtFOp>(
                                               loc, b.getF32Type(), arg))
                                         : arg);
    Value r;
    if (op == "compare")
      return compare(b, loc, attrs.getAs<StringAttr>("direction").getValue(),
                     wide[0], wide[1]);
    r = wide.size() == 1 ? floatUnary(b, loc, op, wide[0])
                         : floatBinary(b, loc, op, wide[0], wide[1]);
    if (r && isHalf(operandType))
      r = b.create<arith::TruncFOp>(loc, operandType, r);
    return r;
  }
  if (op == "compare")
    return compare(b, loc, attrs.getAs<StringAttr>("direction").getValue(),
                   args[0], args[1]);
  return args.size() == 1 ? intUnary(b, loc, op, args[0])
                          : intBinary(b, loc, op, args[0], args[1]);
}

} // namespace anyshape::dhlo

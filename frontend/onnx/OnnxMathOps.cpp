// Elementwise ops the op set spells differently: activations (Softplus,
// LeakyRelu, HardSigmoid, HardSwish, Swish, Elu, Selu, Gelu, Mish, PRelu,
// ...), the variadic Sum, Mean, Max and Min, Mod, Sign, IsInf, Shrink, Sin
// and Cos (the other trigonometric functions: OnnxTrigOps.cpp), the
// rounding functions (Round's halves to even), Xor and the bitwise ops.
// Each is a short composition of the op set's elementwise ops, so it fuses
// like any other and needs nothing of its own in the compiler. Where the
// textbook formula overflows (Softplus of a large x), the composition is
// the stable one.
#include "frontend/onnx/OnnxNode.h"
#include "ir/graph/DType.h"

#include <cmath>

namespace anyshape::onnx {
namespace {

using client::Comparison;

/// A float-only op on an integer or bool input is the model's mistake;
/// saying so beats a verifier message about the composition.
StatusOr<Value> floatInput(Node &n, size_t k) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(k));
  if (!isFloatDType(n.b.dtype(x)))
    return n.error("needs a floating-point input");
  return x;
}

Value constantLike(Node &n, Value x, double v) {
  return n.b.scalar(v, n.b.dtype(x));
}

/// `v` in every element of x's shape (select takes no scalar branch).
Value filledLike(Node &n, Value x, double v) {
  return n.b.broadcastInDim(constantLike(n, x, v), n.dims(x), {});
}

/// An activation `f(n, x)` of one float input.
Translate activation(std::function<Value(Node &, Value)> f) {
  return [f](Node &n) -> Status {
    ANYSHAPE_ASSIGN_OR_RETURN(Value x, floatInput(n, 0));
    return n.define(f(n, x));
  };
}

Translate unaryFloat(Value (client::GraphBuilder::*op)(Value)) {
  return activation([op](Node &n, Value x) { return (n.b.*op)(x); });
}

/// max(x, 0) + log(1 + exp(-|x|)): log(1 + exp(x)) without overflow.
Value softplus(Node &n, Value x) {
  Value tail =
      n.b.log(n.b.add(constantLike(n, x, 1.0), n.b.exp(n.b.neg(n.b.abs(x)))));
  return n.b.add(n.b.max(x, constantLike(n, x, 0.0)), tail);
}

/// clamp(alpha * x + beta, 0, 1).
Value hardSigmoid(Node &n, Value x, double alpha, double beta) {
  Value y =
      n.b.add(n.b.mul(x, constantLike(n, x, alpha)), constantLike(n, x, beta));
  return n.b.min(n.b.max(y, constantLike(n, x, 0.0)), constantLike(n, x, 1.0));
}

/// `whereNegative` where x < 0, else x.
Value belowZero(Node &n, Value x, Value whereNegative) {
  Value negative = n.b.compare(x, constantLike(n, x, 0.0), Comparison::Lt);
  return n.b.select(negative, whereNegative, x);
}

/// Sum, Mean, Max, Min: every input, broadcast numpy-style, folded left to
/// right.
Translate variadic(const char *op, bool mean) {
  return [op, mean](Node &n) -> Status {
    if (n.inputs.empty())
      return n.error("has no inputs");
    ANYSHAPE_ASSIGN_OR_RETURN(Value acc, n.input(0));
    for (size_t k = 1; k < n.inputs.size(); ++k) {
      ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(k));
      acc = n.b.binary(op, acc, x);
    }
    if (mean) {
      if (!isFloatDType(n.b.dtype(acc)))
        return n.error("Mean needs floating-point inputs");
      acc = n.b.div(acc,
                    constantLike(n, acc, static_cast<double>(n.inputs.size())));
    }
    return n.define(acc);
  };
}

/// Mod: with fmod = 1 the remainder has the dividend's sign (C fmod);
/// with fmod = 0, integers only, the divisor's (Python's %).
Status mod(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value y, n.input(1));
  bool isFloat = isFloatDType(n.b.dtype(x));
  bool fmod = n.attrInt("fmod", 0) != 0;
  if (isFloat && !fmod)
    return n.error("floating-point inputs need fmod = 1");
  Value quotient = n.b.div(x, y);
  if (isFloat) { // truncated toward zero
    Value negative =
        n.b.compare(quotient, constantLike(n, x, 0.0), Comparison::Lt);
    quotient = n.b.select(negative, n.b.ceil(quotient), n.b.floor(quotient));
  }
  Value r = n.b.sub(x, n.b.mul(quotient, y)); // integer div truncates
  if (!fmod) { // a nonzero remainder takes the divisor's sign
    Value zero = constantLike(n, r, 0.0);
    Value differ =
        n.b.compare(n.b.compare(r, zero, Comparison::Lt),
                    n.b.compare(y, zero, Comparison::Lt), Comparison::Ne);
    Value fix = n.b.logicalAnd(differ, n.b.compare(r, zero, Comparison::Ne));
    r = n.b.select(fix, n.b.add(r, y), r);
  }
  return n.define(r);
}

Status sign(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  Value zero = constantLike(n, x, 0.0);
  Value positive = n.b.compare(x, zero, Comparison::Gt);
  Value negative = n.b.compare(x, zero, Comparison::Lt);
  // NaN compares false both ways, so it stays NaN (x itself).
  Value y = n.b.select(negative, filledLike(n, x, -1.0),
                       n.b.select(n.b.compare(x, zero, Comparison::Eq),
                                  filledLike(n, x, 0.0), x));
  return n.define(n.b.select(positive, filledLike(n, x, 1.0), y));
}

Status gelu(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, floatInput(n, 0));
  std::string approximate = n.attrString("approximate", "none");
  if (approximate == "none")
    return n.define(n.b.gelu(x));
  if (approximate != "tanh")
    return n.error("approximate '" + approximate + "' is not 'none' or 'tanh'");
  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
  Value cube = n.b.mul(n.b.mul(x, x), x);
  Value inner = n.b.mul(n.b.add(x, n.b.mul(cube, constantLike(n, x, 0.044715))),
                        constantLike(n, x, std::sqrt(2.0 / M_PI)));
  Value half = n.b.mul(x, constantLike(n, x, 0.5));
  return n.define(
      n.b.mul(half, n.b.add(constantLike(n, x, 1.0), n.b.tanh(inner))));
}

/// IsInf: x is +inf (detect_positive) or -inf (detect_negative).
Status isInf(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, floatInput(n, 0));
  Value found =
      n.b.broadcastInDim(n.b.scalar(0.0, v1::DTYPE_BOOL), n.dims(x), {});
  if (n.attrInt("detect_positive", 1))
    found = n.b.logicalOr(
        found, n.b.compare(x, constantLike(n, x, INFINITY), Comparison::Eq));
  if (n.attrInt("detect_negative", 1))
    found = n.b.logicalOr(
        found, n.b.compare(x, constantLike(n, x, -INFINITY), Comparison::Eq));
  return n.define(found);
}

/// Round: to the nearest integer, halves to the even one (as
/// std::nearbyint in the default mode): floor(x), plus one where the
/// fraction is above a half, or a half and floor(x) is odd.
Status round(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, floatInput(n, 0));
  Value low = n.b.floor(x);
  Value fraction = n.b.sub(x, low);
  Value half = constantLike(n, x, 0.5);
  Value halfLow = n.b.mul(low, half);
  Value odd = n.b.compare(n.b.floor(halfLow), halfLow, Comparison::Ne);
  Value up = n.b.logicalOr(
      n.b.compare(fraction, half, Comparison::Gt),
      n.b.logicalAnd(n.b.compare(fraction, half, Comparison::Eq), odd));
  return n.define(n.b.select(up, n.b.add(low, filledLike(n, x, 1.0)), low));
}

/// Xor of bools, and BitwiseXor of integers: (a | b) & ~(a & b).
Status exclusiveOr(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value a, n.input(0));
  ANYSHAPE_ASSIGN_OR_RETURN(Value b, n.input(1));
  return n.define(n.b.logicalAnd(n.b.logicalOr(a, b),
                                 n.b.logicalNot(n.b.logicalAnd(a, b))));
}

/// Bitwise ops (opset 18) on integers: the op set's and, or, not, which are
/// bitwise on integers.
Translate bitwise(const char *op) {
  return [op](Node &n) -> Status {
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      ANYSHAPE_ASSIGN_OR_RETURN(Value v, n.input(k));
      if (!isIntegerDType(n.b.dtype(v)))
        return n.error("needs integer inputs");
    }
    if (std::string(op) == "xor")
      return exclusiveOr(n);
    ANYSHAPE_ASSIGN_OR_RETURN(Value a, n.input(0));
    if (std::string(op) == "not")
      return n.define(n.b.logicalNot(a));
    ANYSHAPE_ASSIGN_OR_RETURN(Value b, n.input(1));
    return n.define(n.b.binary(op, a, b));
  };
}

/// Shrink: x + bias below -lambd, x - bias above lambd, 0 between.
Status shrink(Node &n) {
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  if (n.b.dtype(x) == v1::DTYPE_BOOL)
    return n.error("needs a numeric input");
  double lambd = n.attrFloat("lambd", 0.5f), bias = n.attrFloat("bias", 0.0f);
  Value below = n.b.compare(x, constantLike(n, x, -lambd), Comparison::Lt);
  Value above = n.b.compare(x, constantLike(n, x, lambd), Comparison::Gt);
  return n.define(
      n.b.select(below, n.b.add(x, filledLike(n, x, bias)),
                 n.b.select(above, n.b.sub(x, filledLike(n, x, bias)),
                            filledLike(n, x, 0.0))));
}

Status dropout(Node &n) { // inference: the input, and a mask of all true
  ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
  if (n.proto.input_size() > 2 && !n.proto.input(2).empty())
    return n.error("the training_mode input is not supported (inference "
                   "only: export the model in eval mode)");
  ANYSHAPE_RETURN_IF_ERROR(n.define(x));
  if (n.proto.output_size() > 1 && !n.proto.output(1).empty())
    ANYSHAPE_RETURN_IF_ERROR(n.define(
        n.b.broadcastInDim(n.b.scalar(1.0, v1::DTYPE_BOOL), n.dims(x), {}), 1));
  return Status::ok();
}

} // namespace

void addMathRules(std::map<std::string, OpRule> &rules) {
  using GB = client::GraphBuilder;
  rules["Sin"] = {{}, unaryFloat(&GB::sin)};
  rules["Cos"] = {{}, unaryFloat(&GB::cos)};
  rules["Floor"] = {{}, unaryFloat(&GB::floor)};
  rules["Ceil"] = {{}, unaryFloat(&GB::ceil)};
  rules["Softplus"] = {{}, activation(softplus)};
  rules["Softsign"] = {{}, activation([](Node &n, Value x) {
                         return n.b.div(
                             x, n.b.add(constantLike(n, x, 1.0), n.b.abs(x)));
                       })};
  rules["Mish"] = {{}, activation([](Node &n, Value x) {
                     return n.b.mul(x, n.b.tanh(softplus(n, x)));
                   })};
  rules["LeakyRelu"] = {
      {"alpha"}, activation([](Node &n, Value x) {
        return belowZero(
            n, x, n.b.mul(x, constantLike(n, x, n.attrFloat("alpha", 0.01f))));
      })};
  rules["Elu"] = {
      {"alpha"}, activation([](Node &n, Value x) {
        Value em1 = n.b.sub(n.b.exp(x), constantLike(n, x, 1.0));
        return belowZero(
            n, x, n.b.mul(em1, constantLike(n, x, n.attrFloat("alpha", 1.0f))));
      })};
  rules["Selu"] = {
      {"alpha", "gamma"}, activation([](Node &n, Value x) {
        double alpha = n.attrFloat("alpha", 1.67326319217681884765625f);
        double gamma = n.attrFloat("gamma", 1.05070102214813232421875f);
        Value em1 = n.b.sub(n.b.exp(x), constantLike(n, x, 1.0));
        Value y = belowZero(n, x, n.b.mul(em1, constantLike(n, x, alpha)));
        return n.b.mul(y, constantLike(n, x, gamma));
      })};
  rules["Celu"] = {{"alpha"}, activation([](Node &n, Value x) {
                     double alpha = n.attrFloat("alpha", 1.0f);
                     Value scaled = n.b.div(x, constantLike(n, x, alpha));
                     Value em1 =
                         n.b.sub(n.b.exp(scaled), constantLike(n, x, 1.0));
                     Value low =
                         n.b.min(constantLike(n, x, 0.0),
                                 n.b.mul(em1, constantLike(n, x, alpha)));
                     return n.b.add(n.b.max(x, constantLike(n, x, 0.0)), low);
                   })};
  rules["ThresholdedRelu"] = {
      {"alpha"}, activation([](Node &n, Value x) {
        Value above = n.b.compare(
            x, constantLike(n, x, n.attrFloat("alpha", 1.0f)), Comparison::Gt);
        return n.b.select(above, x, filledLike(n, x, 0.0));
      })};
  rules["HardSigmoid"] = {{"alpha", "beta"}, activation([](Node &n, Value x) {
                            return hardSigmoid(n, x, n.attrFloat("alpha", 0.2f),
                                               n.attrFloat("beta", 0.5f));
                          })};
  rules["Swish"] = {{"alpha"}, activation([](Node &n, Value x) { // opset 24
                      Value scaled = n.b.mul(
                          x, constantLike(n, x, n.attrFloat("alpha", 1.0f)));
                      return n.b.mul(x, n.b.logistic(scaled));
                    })};
  rules["HardSwish"] = {{}, activation([](Node &n, Value x) {
                          return n.b.mul(x, hardSigmoid(n, x, 1.0 / 6, 0.5));
                        })};
  rules["PRelu"] = {{}, [](Node &n) -> Status {
                      ANYSHAPE_ASSIGN_OR_RETURN(Value x, floatInput(n, 0));
                      ANYSHAPE_ASSIGN_OR_RETURN(Value slope, n.input(1));
                      Value scaled = n.b.mul(x, slope);
                      ANYSHAPE_ASSIGN_OR_RETURN(
                          Value y, broadcastTo(n, scaled, n.dims(x)));
                      return n.define(belowZero(n, x, y));
                    }};
  rules["Gelu"] = {{"approximate"}, gelu};
  rules["Sum"] = {{}, variadic("add", false)};
  rules["Mean"] = {{}, variadic("add", true)};
  rules["Max"] = {{}, variadic("max", false)};
  rules["Min"] = {{}, variadic("min", false)};
  rules["Mod"] = {{"fmod"}, mod};
  rules["Sign"] = {{}, sign};
  rules["Dropout"] = {{"seed"}, dropout};
  rules["IsInf"] = {{"detect_negative", "detect_positive"}, isInf};
  rules["Round"] = {{}, round};
  rules["Xor"] = {{}, exclusiveOr};
  rules["BitwiseAnd"] = {{}, bitwise("and")};
  rules["BitwiseOr"] = {{}, bitwise("or")};
  rules["BitwiseXor"] = {{}, bitwise("xor")};
  rules["BitwiseNot"] = {{}, bitwise("not")};
  rules["Shrink"] = {{"bias", "lambd"}, shrink};
}

} // namespace anyshape::onnx

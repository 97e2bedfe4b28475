// Tan, the inverse trigonometric functions and the hyperbolic ones and
// their inverses, composed of the op set's elementwise ops (sin, cos, exp,
// log, sqrt, select), so they fuse like any other and need nothing of
// their own in the compiler or on either backend. The textbook formulas
// lose every digit somewhere (asinh(x) = log(x + sqrt(x^2 + 1)) is 0 for
// x = 1e-8; (e^x - e^-x) / 2 overflows at 89 where sinh does not), so each
// takes the form that keeps float's precision over the whole domain:
// log1p by Kahan's correction, a range-reduced polynomial for atan
// (Cephes' atanf), and the exponent halved before it can overflow. Half
// precision computes in f32 and rounds once. Outside a function's domain
// the result is NaN, as ONNX Runtime's.
#include "frontend/onnx/OnnxNode.h"
#include "ir/graph/DType.h"

#include <cmath>

namespace anyshape::onnx {
namespace {

using client::Comparison;

constexpr double kPi = 3.14159265358979323846;
constexpr double kLn2 = 0.69314718055994530942;

/// Elementwise math on f32 values: the small helpers every composition
/// below reads with.
struct F32 {
  client::GraphBuilder &b;

  Value c(double v) const { return b.scalar(v, v1::DTYPE_F32); }
  Value add(Value x, Value y) const { return b.add(x, y); }
  Value sub(Value x, Value y) const { return b.sub(x, y); }
  Value mul(Value x, Value y) const { return b.mul(x, y); }
  Value div(Value x, Value y) const { return b.div(x, y); }
  Value less(Value x, Value y) const { return b.compare(x, y, Comparison::Lt); }
  Value greater(Value x, Value y) const {
    return b.compare(x, y, Comparison::Gt);
  }
  Value where(Value condition, Value x, Value y) const {
    return b.select(condition, x, y);
  }
  /// `v` in every element of like's shape (select takes no scalar branch).
  Value filled(double v, Value like) const {
    return b.broadcastInDim(c(v), dimsOf(b, like), {});
  }
  /// -y where x < 0, else y: an odd function from its value at |x| (NaN
  /// passes through; at -0 it is y's value at +0).
  Value withSignOf(Value x, Value y) const {
    return where(less(x, c(0)), b.neg(y), y);
  }
  /// log(1 + u), exact for small u: Kahan's (w = 1 + u) log(w) * u / (w -
  /// 1), which cancels the rounding of w; u itself where w rounds to 1.
  Value log1p(Value u) const {
    Value w = add(c(1), u);
    Value wMinus1 = sub(w, c(1));
    Value corrected = div(mul(b.log(w), u), wMinus1);
    return where(b.compare(wMinus1, c(0), Comparison::Eq), u, corrected);
  }
  /// atan(x) by Cephes' atanf: |x| reduced to [0, tan(pi/8)] by
  /// atan(a) = pi/2 + atan(-1/a) above tan(3pi/8) and pi/4 + atan((a-1) /
  /// (a+1)) above tan(pi/8), then z + z^3 P(z^2) (error about 1e-7).
  Value atan(Value x) const {
    Value a = b.abs(x);
    Value big = greater(a, c(2.414213562373095));
    Value middle = greater(a, c(0.4142135623730950));
    Value z = where(big, div(c(-1), a),
                    where(middle, div(sub(a, c(1)), add(a, c(1))), a));
    Value offset = where(big, filled(kPi / 2, x),
                         where(middle, filled(kPi / 4, x), filled(0, x)));
    Value z2 = mul(z, z);
    Value p = c(8.05374449538e-2);
    for (double k : {-1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1})
      p = add(mul(p, z2), c(k));
    return withSignOf(x, add(offset, add(z, mul(mul(z, z2), p))));
  }
  /// e^|x| / 2, which overflows only where sinh and cosh do.
  Value halfExp(Value x) const { return b.exp(sub(b.abs(x), c(kLn2))); }
};

Value tan(const F32 &f, Value x) { return f.div(f.b.sin(x), f.b.cos(x)); }

/// x + x^3/3! + x^5/5! + x^7/7! below |x| = 0.5 (relative error < 1e-8),
/// where t - 1/(4t) for t = e^|x| / 2 would cancel; that above.
Value sinh(const F32 &f, Value x) {
  Value t = f.halfExp(x);
  Value far = f.withSignOf(x, f.sub(t, f.div(f.c(0.25), t)));
  Value x2 = f.mul(x, x);
  Value series = f.c(1.0 / 5040);
  for (double k : {1.0 / 120, 1.0 / 6, 1.0})
    series = f.add(f.mul(series, x2), f.c(k));
  return f.where(f.less(f.b.abs(x), f.c(0.5)), f.mul(x, series), far);
}

Value cosh(const F32 &f, Value x) {
  Value t = f.halfExp(x);
  return f.add(t, f.div(f.c(0.25), t));
}

/// sign(x) log1p(a + a^2 / (1 + sqrt(1 + a^2))) for a = |x|; past 1e18,
/// where a^2 overflows, log(a) + log(2).
Value asinh(const F32 &f, Value x) {
  Value a = f.b.abs(x);
  Value a2 = f.mul(a, a);
  Value near =
      f.log1p(f.add(a, f.div(a2, f.add(f.c(1), f.b.sqrt(f.add(f.c(1), a2))))));
  Value far = f.add(f.b.log(a), f.c(kLn2));
  return f.withSignOf(x, f.where(f.greater(a, f.c(1e18)), far, near));
}

/// log1p(d + sqrt(d (2 + d))) for d = x - 1, exact near 1; NaN below 1.
Value acosh(const F32 &f, Value x) {
  Value d = f.sub(x, f.c(1));
  Value near = f.log1p(f.add(d, f.b.sqrt(f.mul(d, f.add(f.c(2), d)))));
  Value far = f.add(f.b.log(x), f.c(kLn2));
  return f.where(f.greater(x, f.c(1e18)), far, near);
}

/// log1p(2x / (1 - x)) / 2: +-inf at +-1, NaN beyond.
Value atanh(const F32 &f, Value x) {
  Value u = f.div(f.mul(f.c(2), x), f.sub(f.c(1), x));
  return f.mul(f.c(0.5), f.log1p(u));
}

/// atan(x / sqrt((1 - x)(1 + x))): +-pi/2 at +-1, NaN beyond.
Value asin(const F32 &f, Value x) {
  Value rest = f.mul(f.sub(f.c(1), x), f.add(f.c(1), x));
  return f.atan(f.div(x, f.b.sqrt(rest)));
}

/// 2 atan(sqrt((1 - x) / (1 + x))): pi at -1, 0 at 1, NaN beyond.
Value acos(const F32 &f, Value x) {
  Value ratio = f.div(f.sub(f.c(1), x), f.add(f.c(1), x));
  return f.mul(f.c(2), f.atan(f.b.sqrt(ratio)));
}

/// `compose` of a float input, in f32 (f16 and bf16 rounded once at the
/// end).
Translate inF32(Value (*compose)(const F32 &, Value)) {
  return [compose](Node &n) -> Status {
    ANYSHAPE_ASSIGN_OR_RETURN(Value x, n.input(0));
    v1::DType dtype = n.b.dtype(x);
    if (!isFloatDType(dtype))
      return n.error("needs a floating-point input");
    F32 f{n.b};
    Value wide = dtype == v1::DTYPE_F32 ? x : n.b.convert(x, v1::DTYPE_F32);
    Value y = compose(f, wide);
    return n.define(dtype == v1::DTYPE_F32 ? y : n.b.convert(y, dtype));
  };
}

Value atanOf(const F32 &f, Value x) { return f.atan(x); }

} // namespace

void addTrigRules(std::map<std::string, OpRule> &rules) {
  rules["Tan"] = {{}, inF32(tan)};
  rules["Atan"] = {{}, inF32(atanOf)};
  rules["Asin"] = {{}, inF32(asin)};
  rules["Acos"] = {{}, inF32(acos)};
  rules["Sinh"] = {{}, inF32(sinh)};
  rules["Cosh"] = {{}, inF32(cosh)};
  rules["Asinh"] = {{}, inF32(asinh)};
  rules["Acosh"] = {{}, inF32(acosh)};
  rules["Atanh"] = {{}, inF32(atanh)};
}

} // namespace anyshape::onnx

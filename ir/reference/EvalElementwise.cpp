// Reference semantics of unary, binary, select and iota (docs/ops.md).
// Floats compute in double and round once; integers compute in 64 bits and
// wrap to the dtype's width, with the documented results for division by
// zero and negative exponents.
#include "EvalOps.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace anyshape::reference {
namespace {

double unaryFloat(const std::string &op, double x) {
  if (op == "abs")
    return std::fabs(x);
  if (op == "neg")
    return -x;
  if (op == "exp")
    return std::exp(x);
  if (op == "log")
    return std::log(x);
  if (op == "tanh")
    return std::tanh(x);
  if (op == "logistic")
    return 1.0 / (1.0 + std::exp(-x));
  if (op == "sqrt")
    return std::sqrt(x);
  if (op == "rsqrt")
    return 1.0 / std::sqrt(x);
  if (op == "erf")
    return std::erf(x);
  if (op == "sin")
    return std::sin(x);
  if (op == "cos")
    return std::cos(x);
  if (op == "floor")
    return std::floor(x);
  return std::ceil(x); // "ceil": the shape rules admit nothing else here
}

int64_t unaryInt(const std::string &op, int64_t x, DType dtype) {
  uint64_t u = static_cast<uint64_t>(x);
  if (op == "neg")
    return static_cast<int64_t>(0 - u);
  if (op == "abs")
    return x < 0 ? static_cast<int64_t>(0 - u) : x;
  // "not": logical for bool, bitwise for integers.
  return dtype == v1::DTYPE_BOOL ? !x : ~x;
}

} // namespace

double binaryFloat(const std::string &op, double a, double b) {
  if (op == "add")
    return a + b;
  if (op == "sub")
    return a - b;
  if (op == "mul")
    return a * b;
  if (op == "div")
    return a / b;
  if (op == "pow")
    return std::pow(a, b);
  if (std::isnan(a) || std::isnan(b)) // max and min propagate NaN
    return std::numeric_limits<double>::quiet_NaN();
  return op == "max" ? std::max(a, b) : std::min(a, b);
}

int64_t intPow(int64_t base, int64_t exponent) {
  if (exponent < 0) // only |base| == 1 has a nonzero integer result
    return base == 1 ? 1 : base == -1 ? (exponent % 2 ? -1 : 1) : 0;
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exponent); e; e >>= 1) {
    if (e & 1)
      result *= b;
    b *= b;
  }
  return static_cast<int64_t>(result);
}

int64_t binaryInt(const std::string &op, int64_t a, int64_t b) {
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  if (op == "add")
    return static_cast<int64_t>(ua + ub);
  if (op == "sub")
    return static_cast<int64_t>(ua - ub);
  if (op == "mul")
    return static_cast<int64_t>(ua * ub);
  if (op == "div") {
    if (b == 0)
      return -1;
    if (b == -1) // avoids INT64_MIN / -1; wraps like the other ops
      return static_cast<int64_t>(0 - ua);
    return a / b; // truncates toward zero
  }
  if (op == "pow")
    return intPow(a, b);
  if (op == "max")
    return std::max(a, b);
  if (op == "min")
    return std::min(a, b);
  if (op == "and")
    return a & b;
  return a | b; // "or"
}

namespace {

/// IEEE comparisons for doubles (NaN compares unequal to everything),
/// exact ones for int64.
template <typename T>
bool compareValues(v1::CompareDirection direction, T a, T b) {
  switch (direction) {
  case v1::COMPARE_EQ:
    return a == b;
  case v1::COMPARE_NE:
    return a != b;
  case v1::COMPARE_LT:
    return a < b;
  case v1::COMPARE_LE:
    return a <= b;
  case v1::COMPARE_GT:
    return a > b;
  default:
    return a >= b;
  }
}

} // namespace

Literal evalUnary(const v1::Node &node, const Literal &x,
                  const ResultType &type) {
  Literal out = Literal::zeros(type.dtype, type.shape);
  int64_t n = out.numElements();
  const std::string &op = node.op();
  if (op == "convert") {
    // Float sources convert through double, integer sources exactly.
    for (int64_t k = 0; k < n; ++k) {
      if (x.isFloat())
        out.setDouble(k, x.f[k]);
      else
        out.setInt(k, x.i[k]);
    }
    return out;
  }
  for (int64_t k = 0; k < n; ++k) {
    if (x.isFloat())
      out.setDouble(k, unaryFloat(op, x.f[k]));
    else
      out.setInt(k, unaryInt(op, x.i[k], x.dtype));
  }
  return out;
}

Literal evalBinary(const v1::Node &node, const Literal &a, const Literal &b,
                   const ResultType &type) {
  Literal out = Literal::zeros(type.dtype, type.shape);
  int64_t n = out.numElements();
  const std::string &op = node.op();
  if (op == "compare") {
    v1::CompareDirection direction = node.compare().direction();
    for (int64_t k = 0; k < n; ++k)
      out.i[k] = a.isFloat() ? compareValues(direction, a.f[k], b.f[k])
                             : compareValues(direction, a.i[k], b.i[k]);
    return out;
  }
  for (int64_t k = 0; k < n; ++k) {
    if (a.isFloat())
      out.setDouble(k, binaryFloat(op, a.f[k], b.f[k]));
    else
      out.setInt(k, binaryInt(op, a.i[k], b.i[k]));
  }
  return out;
}

Literal evalSelect(const Literal &pred, const Literal &onTrue,
                   const Literal &onFalse, const ResultType &type) {
  Literal out = Literal::zeros(type.dtype, type.shape);
  int64_t n = out.numElements();
  for (int64_t k = 0; k < n; ++k) {
    bool p = pred.i[pred.rank() == 0 ? 0 : k] != 0;
    const Literal &src = p ? onTrue : onFalse;
    if (out.isFloat())
      out.f[k] = src.f[k];
    else
      out.i[k] = src.i[k];
  }
  return out;
}

Literal evalIota(const v1::IotaAttrs &attrs, const ResultType &type) {
  Literal out = Literal::zeros(type.dtype, type.shape);
  int64_t axis = attrs.iota_dimension();
  forEachIndex(type.shape,
               [&](const std::vector<int64_t> &index, int64_t linear) {
                 out.setInt(linear, index[axis]);
               });
  return out;
}

} // namespace anyshape::reference

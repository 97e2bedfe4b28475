// Elementwise comparison with per-dtype tolerances.
#include "Compare.h"

#include <cmath>
#include <limits>

namespace anyshape {

Tolerance toleranceFor(DType dtype) {
  switch (dtype) {
  case v1::DTYPE_F32:
    return {1e-4, 1e-3};
  case v1::DTYPE_F16:
    return {1e-2, 1e-2};
  case v1::DTYPE_BF16:
    return {5e-2, 5e-2};
  default:
    return {0, 0};
  }
}

NumericDiff compareLiterals(const Literal &actual, const Literal &expected) {
  NumericDiff c;
  if (actual.dtype != expected.dtype || actual.shape != expected.shape) {
    c.mismatches = 1;
    c.firstMismatch = "dtype or shape differs";
    return c;
  }
  Tolerance tol = toleranceFor(expected.dtype);
  for (int64_t k = 0; k < expected.numElements(); ++k) {
    double a = actual.getDouble(k), e = expected.getDouble(k);
    bool match;
    if (!actual.isFloat()) {
      match = actual.i[k] == expected.i[k];
    } else if (std::isnan(e) || std::isnan(a)) {
      match = std::isnan(e) && std::isnan(a);
    } else if (std::isinf(e) || std::isinf(a)) {
      match = a == e;
    } else {
      double abs = std::fabs(a - e);
      double rel = abs / std::max(std::fabs(e), 1e-30);
      c.maxAbsError = std::max(c.maxAbsError, abs);
      if (std::fabs(e) > tol.atol)
        c.maxRelError = std::max(c.maxRelError, rel);
      match = abs <= tol.atol + tol.rtol * std::fabs(e);
    }
    // A mismatch the finite branch did not measure (NaN or inf against
    // another value, or integers) still shows in the maxima: a line must
    // never print errors of 0 next to its mismatch.
    if (!match &&
        (!actual.isFloat() || !std::isfinite(a) || !std::isfinite(e))) {
      double abs = actual.isFloat() ? std::numeric_limits<double>::infinity()
                                    : std::fabs(a - e);
      c.maxAbsError = std::max(c.maxAbsError, abs);
      c.maxRelError =
          std::max(c.maxRelError,
                   actual.isFloat() ? abs : abs / std::max(std::fabs(e), 1.0));
    }
    if (!match && c.mismatches++ == 0)
      c.firstMismatch = "element " + std::to_string(k) + ": " +
                        std::to_string(a) + " vs " + std::to_string(e);
  }
  return c;
}

} // namespace anyshape

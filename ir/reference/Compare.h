// Comparing a backend's outputs with the reference evaluator's: the one
// definition of "numerically correct" shared by the CLI (--check) and every
// differential test.
//
// An element matches when |actual - expected| <= atol + rtol * |expected|,
// with tolerances by dtype (docs/pipeline.md): f32 atol 1e-4 rtol 1e-3
// (inline approximations of transcendentals and reassociated sums stay
// well inside), f16 1e-2/1e-2, bf16 5e-2/5e-2; integers and bool exactly.
// NaN matches NaN; infinities must match exactly.
#pragma once

#include "Literal.h"

#include <string>

namespace anyshape {

struct Tolerance {
  double atol = 0, rtol = 0;
};

Tolerance toleranceFor(DType dtype);

struct NumericDiff {
  double maxAbsError = 0;
  double maxRelError = 0;
  int64_t mismatches = 0;
  std::string firstMismatch; // "element 17: 0.5 vs 0.25"; empty if none
  bool ok() const { return mismatches == 0; }
};

/// Compares two literals of the same dtype; a dtype or shape difference is
/// one mismatch described in firstMismatch.
NumericDiff compareLiterals(const Literal &actual, const Literal &expected);

} // namespace anyshape

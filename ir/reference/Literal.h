// Literal: a concrete tensor as the reference evaluator holds it.
//
// Deliberately plain: float dtypes keep their values as doubles (always
// exactly representable in the dtype, because every write rounds), and
// integer and bool dtypes as int64 (always within the dtype's range, because
// every write wraps). Ops compute in double or int64 and round once per op.
#pragma once

#include "ir/graph/DType.h"
#include "ir/graph/Limits.h"
#include "runtime/support/Status.h"

#include <cstdint>
#include <vector>

namespace anyshape {

struct Literal {
  DType dtype = v1::DTYPE_F32;
  std::vector<int64_t> shape;
  std::vector<double> f;  // float dtypes
  std::vector<int64_t> i; // i32, i64, bool

  /// Zero-filled; the caller has checked the element count against limits.
  static Literal zeros(DType dtype, std::vector<int64_t> shape);

  bool isFloat() const { return isFloatDType(dtype); }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t numElements() const;

  /// Element k as a double (ints convert exactly up to 2^53).
  double getDouble(int64_t k) const { return isFloat() ? f[k] : double(i[k]); }
  /// Writes element k from a double with `convert` semantics: floats round
  /// to the dtype, integers truncate and saturate (NaN -> 0), bool is != 0.
  void setDouble(int64_t k, double v);
  /// Writes element k from an integer: integers wrap to the dtype's width,
  /// bool is != 0, floats round.
  void setInt(int64_t k, int64_t v);
};

/// Rounds a double to the nearest value of a float dtype.
double roundToFloatDType(double v, DType dtype);
/// Wraps an integer to i32 (two's complement) or keeps it for i64; bool
/// becomes 0/1.
int64_t wrapToIntDType(int64_t v, DType dtype);

/// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape);

/// Decodes wire bytes; checks dtype, dims and byte size before allocating.
StatusOr<Literal> literalFromTensor(const v1::Tensor &tensor,
                                    const GraphLimits &limits = {});
v1::Tensor literalToTensor(const Literal &literal);

/// Deterministic test data: floats uniform in [-1, 1), integers in [0, 8),
/// bools fair coins.
Literal randomLiteral(DType dtype, const std::vector<int64_t> &shape,
                      uint64_t seed);

} // namespace anyshape

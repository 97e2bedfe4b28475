// Materialising the value of a constant node as raw tensor bytes.
//
// One implementation for everyone who needs a constant's bytes: the
// reference evaluator now, constant folding and the compiler later. Stored
// tensors (tensor_id) come from a TensorLookup the caller provides, e.g.
// the server's tensor store.
#pragma once

#include "anyshape/v1/graph.pb.h"
#include "runtime/support/Status.h"

#include <cstdint>
#include <string>

namespace anyshape {

/// Finds stored tensors by content id.
class TensorLookup {
public:
  virtual ~TensorLookup() = default;
  /// The tensor, or nullptr if no tensor has this id.
  virtual const v1::Tensor *find(const std::string &id) const = 0;
};

/// Splat and seeded constants of more elements than this are never
/// materialised by the compiler: a splat is filled at run time and a seeded
/// uniform is generated when the executable loads (fillSeededUniform).
/// Embedded in the object code, a constant costs several copies of its
/// bytes in compile memory (a 64 MiB bool splat took 2.7 GB) and its size
/// again in the cache; small ones stay constants, which fold.
inline constexpr int64_t kLargestEmbeddedGeneratedConstant = 4096;

/// A splat or seeded uniform of more than kLargestEmbeddedGeneratedConstant
/// elements (false for a shape whose size overflows).
bool isGeneratedConstant(const v1::ConstantAttrs &attrs);

/// The bytes of the constant that a compiled object embeds: all of a data
/// or stored-tensor constant; a splat or seeded uniform only up to
/// kLargestEmbeddedGeneratedConstant elements, 0 above. What
/// GraphLimits::maxEmbeddedConstantBytes bounds.
StatusOr<int64_t> embeddedConstantBytes(const v1::ConstantAttrs &attrs);

/// SplitMix64 of (seed + index * golden ratio), top 53 bits as [0, 1):
/// the generator behind SeededUniform (see graph.proto).
double seededUnit(uint64_t seed, uint64_t index);

/// Writes elements [0, count) of a SeededUniform constant of `dtype` to
/// `out`: the one implementation, for the evaluator, the importer and the
/// executables that generate their large constants when they load.
void fillSeededUniform(uint64_t seed, double low, double high, v1::DType dtype,
                       int64_t count, char *out);
/// The same constant of shape [rows, cols], written transposed: element
/// (r, c) -- index r * cols + c of the generator -- lands at position
/// c * rows + r of `out`. For weights stored in the layout their GEMM
/// prefers (codegen/CPU anyshape-transpose-wide-weights).
void fillSeededUniformTransposed(uint64_t seed, double low, double high,
                                 v1::DType dtype, int64_t rows, int64_t cols,
                                 char *out);

/// `value` narrowed to float, rounding to odd when inexact, so that
/// narrowing the result further to f16 or bf16 rounds `value` itself to
/// nearest (a plain cast can first land on a tie: 2049 + 2^-24 becomes 2049,
/// then f16 2048 instead of 2050).
float floatRoundedToOdd(double value);

/// Encodes `value` as one element of `dtype` at `out` (little-endian):
/// floats round to nearest, integers truncate toward zero and saturate (NaN
/// becomes 0), bool is value != 0.
void encodeElement(double value, v1::DType dtype, char *out);

/// The constant's value as a tensor. The caller has validated the node
/// (see validateGraph), so the shape's byte size is known to fit.
StatusOr<v1::Tensor> materializeConstant(const v1::ConstantAttrs &attrs,
                                         const TensorLookup *tensors);

} // namespace anyshape

// Resource limits applied to every graph and every concrete shape.
//
// Validation checks them before anything is allocated, so a hostile or
// mistaken graph gets a clear error instead of exhausting memory. The server
// exposes them as flags; the defaults suit a single-node inference service.
#pragma once

#include <cstdint>

namespace anyshape {

struct GraphLimits {
  int64_t maxRank = 8;
  int64_t maxNodes = 100000;
  int64_t maxInputs = 10000;
  /// Elements of any one tensor: the static part of its shape, and its
  /// concrete shape when the evaluator or an executable runs.
  int64_t maxElementsPerTensor = int64_t(1) << 32;
  /// Sum over constants of their materialised size in bytes: the memory
  /// an executable's constants take when it runs.
  int64_t maxConstantBytes = int64_t(4) << 30;
  /// Sum over constants of the bytes a compile embeds in the object code
  /// (embeddedConstantBytes in ConstantData.h: data and stored tensors;
  /// large splats and seeded uniforms are generated, not embedded). A
  /// compile holds several copies of these bytes at once; this bound keeps
  /// the peak inside a compile worker's default memory limit (see
  /// docs/service.md for the measured peak per embedded byte).
  int64_t maxEmbeddedConstantBytes = int64_t(1) << 30;
  int64_t maxNameLength = 1024;
  /// A node's operands (a concatenate's inputs are the most a real graph
  /// has).
  int64_t maxOperandsPerNode = 10000;
  /// A dim expression on the wire: its terms, and the symbols of one term
  /// (repeats count: seq*seq has 2). Checked before any arithmetic, so an
  /// expression costs time linear in its size; expressions the shape rules
  /// derive are bounded by SymExpr's own kMaxTerms and kMaxDegree.
  int64_t maxDimExprTerms = 64;
  int64_t maxDimExprDegree = 16;
};

} // namespace anyshape

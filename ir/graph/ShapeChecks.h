// The run-time shape checks of a graph: every condition on concrete sizes
// that symbolic validation could not decide, in the order a program can
// evaluate them.
//
// Validation (Validate.h) records them while it infers the graph's types,
// and the compiler turns the list into generated code that runs in the
// executable's entry before any kernel (codegen/Common/ShapeCheckFunction.h),
// so a new shape costs a few integer operations and no walk over the graph. The
// concrete shape walk (Bindings.h) decides the same conditions from the
// same rules; the tests hold the two to the same answers.
//
// Symbols are the graph's named symbols and validation's fresh ones ("?3"):
// each is defined by an earlier check (an input dim it is bound to, or a
// size the rules compute, such as a strided slice's extent) before any
// check reads it.
#pragma once

#include "SymExpr.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace anyshape {

struct ShapeCheck {
  enum class Kind {
    /// Defines `symbol` as input `input`'s dim `dim`. Never fails.
    BindInputDim,
    /// Input `input`'s dim `dim` equals `a` (its declared size, expression
    /// or a symbol an earlier dim bound).
    InputDimEquals,
    /// a == b.
    Equal,
    /// a == 1 or a == b (a broadcast operand dim stretching to b).
    OneOrEqual,
    /// a <= b.
    LessEqual,
    /// a != 0 and a divides b (reshape inferring a dim).
    Divides,
    /// a != 0 or b == 0 (gathering b indices from an axis of size a).
    NonEmptyUnlessUnused,
    /// The product of the nonzero `dims` fits int64 and the element limit.
    ElementLimit,
    /// Defines `symbol` as a / b (after a Divides check on the same pair).
    DefineQuotient,
    /// Defines `symbol` as a padded dim: edges if a == 0, else
    /// a + interior * (a - 1) + edges; fails if that is negative.
    DefinePadded,
  };

  explicit ShapeCheck(Kind kind) : kind(kind) {}

  Kind kind;
  SymExpr a, b;
  std::vector<SymExpr> dims; // ElementLimit
  std::string symbol;        // Bind*/Define*
  int input = 0, dim = 0;    // BindInputDim, InputDimEquals
  int64_t interior = 0;      // DefinePadded
  int64_t edges = 0;         // DefinePadded
  int64_t limit = 0;         // ElementLimit
  int node = -1;             // the node whose rule it is; -1: an input's
  /// What fails, for the error, after the node: "operand dims 0 (n and
  /// m) must be equal" (InputDimEquals: the dim, "input 'x' dim 1";
  /// ElementLimit: empty, the dims are written on failure).
  std::string what;

  /// Every symbol the check reads (not the one it defines).
  std::vector<std::string> symbolsRead() const;
};

/// Whether a check of `kind` is a condition on sizes (Equal, OneOrEqual,
/// LessEqual, Divides, NonEmptyUnlessUnused: it reads `a` and `b`),
/// rather than one that binds or defines a symbol or bounds elements.
bool isCondition(ShapeCheck::Kind kind);

/// Why no sizes can ever satisfy `check` (every symbol stands for a size,
/// an integer >= 0), or nullopt when some might. Sound, not complete: it
/// proves impossibility from a sign or a divisibility argument on the
/// polynomials (seq + 1 <= seq; 2*seq == 5), and a check it cannot decide
/// stays a run-time check. Validation rejects a graph with such a check,
/// since every call would fail.
std::optional<std::string> neverHolds(const ShapeCheck &check);

/// `check` with every data-dependent size it reads (a kernel's count,
/// ShapeContext::dataDependent) replaced by its bound in `bounds`, so that
/// it can run before any kernel. Sound where a larger size only makes the
/// condition stricter: an element limit, the left side of a <= b, the b
/// of a != 0 or b == 0 (a gather of the count's indices). Nullopt for any
/// other check that reads one (its condition needs the count itself), or
/// for a count inside a quotient.
std::optional<ShapeCheck>
boundDataDependentSizes(const ShapeCheck &check,
                        const std::map<std::string, SymExpr> &bounds);

} // namespace anyshape

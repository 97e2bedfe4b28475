// SymExpr: a tensor dimension as an integer polynomial over named symbols.
//
// A static dim is a constant polynomial; "batch*seq" and "seq+1" are others.
// Floor division by a constant (a convolution's output size) makes an atom:
// a symbol whose name is its own definition, "((time + 1) floordiv 2)". The
// name is canonical (floorDiv below), so the same quotient of the same
// dims is the same symbol, and every reader that treats symbols as opaque
// proves equal what is equal without knowing about quotients; those that
// compute sizes read the definition back with quotientOf. A max or a min
// of sizes that depends on them (a sliding window's length) is such an
// atom too, "max(0, past - 4095)", read back with extremumOf.
// Shape rules are written once against SymExpr and serve both the symbolic
// world (validation, the builder: symbols stay symbols) and the concrete one
// (the reference evaluator: every symbol already substituted by its size, so
// every SymExpr it sees is a constant). Arithmetic is overflow-checked and
// bounded: an operation that would overflow int64, or build an expression
// past kMaxTerms terms or kMaxDegree symbols in a term, returns nullopt
// (before doing more than kMaxTermProducts steps), and callers turn that
// into an error naming the node. So no input can make shape arithmetic slow:
// a product of a few wide sums would otherwise grow exponentially.
//
// Invariant: no stored term has a zero coefficient. The constant term is
// kept apart from the others, so that a constant (every dim in the concrete
// world) is a plain number: no allocation to make, copy or free.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace anyshape {

class SymExpr {
public:
  /// A product of symbols, sorted; repeats are powers. Empty = constant.
  using Monomial = std::vector<std::string>;

  /// The bounds of every expression arithmetic builds (see the top).
  static constexpr size_t kMaxTerms = 256;
  static constexpr size_t kMaxDegree = 64;
  static constexpr size_t kMaxTermProducts = 4096;
  /// How a nullopt from add/sub/mul reads in an error: "X " + kBeyondBounds.
  static constexpr const char *kBeyondBounds =
      "overflows int64 or passes the expression bounds (256 terms, 64 "
      "symbols a term)";

  SymExpr() = default; // the constant 0
  static SymExpr constant(int64_t value);
  static SymExpr symbol(const std::string &name);

  bool isConstant() const;
  /// True when the value is >= 0 for all sizes (every symbol stands for a
  /// size, which is >= 0) as far as can be proved: no coefficient is
  /// negative, or none is once each max or min atom is split into its
  /// operands (a few deep; SymExpr.cpp).
  bool isNonNegative() const;
  std::optional<int64_t> constantValue() const;
  /// The symbol if this is exactly one symbol with coefficient 1.
  std::optional<std::string> singleSymbol() const;
  /// Every term, the constant one keyed by the empty monomial (a copy: for
  /// the symbolic world's readers, not for hot paths).
  std::map<Monomial, int64_t> terms() const;

  static std::optional<SymExpr> add(const SymExpr &a, const SymExpr &b);
  static std::optional<SymExpr> sub(const SymExpr &a, const SymExpr &b);
  static std::optional<SymExpr> mul(const SymExpr &a, const SymExpr &b);
  /// this / divisor when the division is exact term by term (divisor a
  /// single nonzero term); nullopt otherwise.
  std::optional<SymExpr> divideExact(const SymExpr &divisor) const;

  /// floor(a / divisor) for divisor >= 1 (nullopt for a smaller divisor
  /// or on overflow). Canonical: the whole multiples of the divisor come
  /// out of the floor and common factors cancel, so what stays inside a
  /// quotient atom has every coefficient in [0, divisor) and is never
  /// negative; a quotient of a quotient is one quotient; a constant or
  /// exact quotient is no atom at all.
  static std::optional<SymExpr> floorDiv(const SymExpr &a, int64_t divisor);
  /// a - divisor * floorDiv(a, divisor): in [0, divisor) for any a.
  static std::optional<SymExpr> mod(const SymExpr &a, int64_t divisor);

  /// max(a, b), or min(a, b) where not `larger`: the operand itself where
  /// the sign of their difference holds for all sizes ("past + 1" over
  /// "past"), a number where both are; otherwise an atom like a quotient,
  /// named by its definition, "max(0, past - 4095)" (the operands in the
  /// order of their text, so the name is canonical). An atom stands for a
  /// size, so it is made only where the result is never negative (max: an
  /// operand that never is; min: both); nullopt otherwise or on overflow.
  static std::optional<SymExpr> extremum(const SymExpr &a, const SymExpr &b,
                                         bool larger);

  /// What a quotient atom's name defines (below the class).
  struct Quotient;
  /// The definition of `atom` if it names a quotient; nullopt for every
  /// other symbol.
  static std::optional<Quotient> quotientOf(const std::string &atom);
  /// What an extremum atom's name defines (below the class).
  struct Extremum;
  /// The definition of `atom` if it names a max or a min; nullopt for every
  /// other symbol.
  static std::optional<Extremum> extremumOf(const std::string &atom);

  /// Substitutes every symbol with its value; nullopt when a symbol is
  /// missing from `values` (reported through `missing`) or on overflow.
  std::optional<int64_t> evaluate(const std::map<std::string, int64_t> &values,
                                  std::string *missing = nullptr) const;

  /// Replaces each symbol in `values` by its size, inside quotients too
  /// (a quotient of sizes becomes its value); nullopt on overflow.
  std::optional<SymExpr>
  substitute(const std::map<std::string, int64_t> &values) const;

  /// All symbols appearing in any term, atoms as themselves.
  std::vector<std::string> symbols() const;
  /// The symbols the value depends on: as symbols(), with each atom (a
  /// quotient, a max or a min) replaced by the symbols of its operands.
  std::vector<std::string> leafSymbols() const;

  /// Equal expressions hash equally.
  size_t hash() const;

  bool operator==(const SymExpr &other) const {
    return constant_ == other.constant_ && terms_ == other.terms_;
  }
  bool operator!=(const SymExpr &other) const { return !(*this == other); }

  /// "768", "seq", "batch*seq", "2*seq + 1".
  std::string toString() const;

private:
  /// From all terms, the constant one keyed by the empty monomial.
  static SymExpr fromTerms(std::map<Monomial, int64_t> terms);

  int64_t constant_ = 0;
  std::map<Monomial, int64_t> terms_; // non-constant terms only
};

struct SymExpr::Quotient {
  SymExpr dividend; // every coefficient in [0, divisor): never negative
  int64_t divisor;  // >= 2
};

struct SymExpr::Extremum {
  SymExpr a, b;
  bool larger; // max; min where false
};

} // namespace anyshape

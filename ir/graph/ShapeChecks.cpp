// The symbols a run-time shape check reads, and the proof that a check can
// never hold (ShapeChecks.h).
#include "ShapeChecks.h"

#include <algorithm>
#include <numeric>

namespace anyshape {

std::vector<std::string> ShapeCheck::symbolsRead() const {
  std::vector<std::string> names = a.leafSymbols();
  for (std::string &name : b.leafSymbols())
    names.push_back(std::move(name));
  for (const SymExpr &d : dims)
    for (std::string &name : d.leafSymbols())
      names.push_back(std::move(name));
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

namespace {

/// Facts about a polynomial d over sizes (integers >= 0) that hold for every
/// assignment: a sign, from the constant term and the signs of the others;
/// a residue, from the gcd of the non-constant coefficients.
struct Bounds {
  bool alwaysPositive = false; // d >= 1
  bool alwaysNegative = false; // d <= -1
  bool neverZero = false;
  std::string why;
};

Bounds boundsOf(const SymExpr &d) {
  Bounds bounds;
  int64_t constant = 0;
  bool allNonNegative = true, allNonPositive = true;
  int64_t g = 0;
  for (const auto &[monomial, coefficient] : d.terms()) {
    if (monomial.empty()) {
      constant = coefficient;
      continue;
    }
    allNonNegative &= coefficient > 0;
    allNonPositive &= coefficient < 0;
    // |coefficient| is safe: gcd of INT64_MIN is computed as unsigned.
    g = static_cast<int64_t>(
        std::gcd(static_cast<uint64_t>(g),
                 coefficient < 0 ? 0 - static_cast<uint64_t>(coefficient)
                                 : static_cast<uint64_t>(coefficient)));
  }
  std::string value = d.isConstant() ? "is always " : "is at ";
  if (constant > 0 && allNonNegative) {
    bounds.alwaysPositive = bounds.neverZero = true;
    bounds.why =
        value + (d.isConstant() ? "" : "least ") + std::to_string(constant);
  } else if (constant < 0 && allNonPositive) {
    bounds.alwaysNegative = bounds.neverZero = true;
    bounds.why =
        value + (d.isConstant() ? "" : "most ") + std::to_string(constant);
  } else if (g > 1 && constant % g != 0) {
    bounds.neverZero = true;
    bounds.why = "is " + std::to_string(((constant % g) + g) % g) + " modulo " +
                 std::to_string(g);
  }
  return bounds;
}

/// Why a == b can never hold, if it cannot.
std::optional<std::string> neverEqual(const SymExpr &a, const SymExpr &b) {
  auto d = SymExpr::sub(a, b);
  if (!d)
    return std::nullopt;
  Bounds bounds = boundsOf(*d);
  if (!bounds.neverZero)
    return std::nullopt;
  return a.toString() + " - (" + b.toString() + ") is " + d->toString() +
         ", which " + bounds.why + " for all sizes, never 0";
}

} // namespace

bool isCondition(ShapeCheck::Kind kind) {
  using Kind = ShapeCheck::Kind;
  return kind == Kind::Equal || kind == Kind::OneOrEqual ||
         kind == Kind::LessEqual || kind == Kind::Divides ||
         kind == Kind::NonEmptyUnlessUnused;
}

std::optional<std::string> neverHolds(const ShapeCheck &check) {
  using Kind = ShapeCheck::Kind;
  switch (check.kind) {
  case Kind::Equal:
    return neverEqual(check.a, check.b);
  case Kind::OneOrEqual: {
    auto notOne = neverEqual(check.a, SymExpr::constant(1));
    auto notEqual = neverEqual(check.a, check.b);
    if (notOne && notEqual)
      return *notOne + "; " + *notEqual;
    return std::nullopt;
  }
  case Kind::LessEqual: {
    auto d = SymExpr::sub(check.b, check.a);
    if (!d)
      return std::nullopt;
    Bounds bounds = boundsOf(*d);
    if (!bounds.alwaysNegative)
      return std::nullopt;
    return check.b.toString() + " - (" + check.a.toString() + ") is " +
           d->toString() + ", which " + bounds.why + " for all sizes";
  }
  case Kind::Divides: {
    if (check.a.constantValue() == 0)
      return std::string("the divisor is 0");
    // A constant divisor k divides b only if b's constant term is 0 modulo
    // gcd(k, b's other coefficients).
    auto k = check.a.constantValue();
    if (!k)
      return std::nullopt;
    SymExpr scaled = check.b;
    int64_t constant = 0;
    uint64_t g =
        *k < 0 ? 0 - static_cast<uint64_t>(*k) : static_cast<uint64_t>(*k);
    for (const auto &[monomial, coefficient] : scaled.terms()) {
      if (monomial.empty())
        constant = coefficient;
      else
        g = std::gcd(g, coefficient < 0 ? 0 - static_cast<uint64_t>(coefficient)
                                        : static_cast<uint64_t>(coefficient));
    }
    int64_t gs = static_cast<int64_t>(g);
    if (gs > 1 && constant % gs != 0)
      return check.b.toString() + " is " +
             std::to_string(((constant % gs) + gs) % gs) + " modulo " +
             std::to_string(gs) + " for all sizes, never a multiple of " +
             check.a.toString();
    return std::nullopt;
  }
  case Kind::NonEmptyUnlessUnused:
    if (check.a.constantValue() == 0 && boundsOf(check.b).neverZero)
      return "the axis is empty and " + check.b.toString() + " " +
             boundsOf(check.b).why + " for all sizes";
    return std::nullopt;
  default:
    // Binds and definitions never fail on their own; input dims take any
    // size; the element limit holds for small enough sizes.
    return std::nullopt;
  }
}

namespace {

/// An upper bound of `d` over every size its data-dependent symbols may
/// take: each replaced by its bound in a term with a positive
/// coefficient, by 0 in one with a negative coefficient (sizes are never
/// negative). Nullopt on overflow or for a count inside a quotient.
std::optional<SymExpr>
upperBound(const SymExpr &d, const std::map<std::string, SymExpr> &bounds) {
  std::optional<SymExpr> sum = SymExpr::constant(0);
  for (const auto &[monomial, coefficient] : d.terms()) {
    std::optional<SymExpr> term = SymExpr::constant(coefficient);
    bool dataDependent = false;
    for (const std::string &symbol : monomial) {
      auto bound = bounds.find(symbol);
      for (const std::string &leaf : SymExpr::symbol(symbol).leafSymbols())
        if (bound == bounds.end() && bounds.count(leaf))
          return std::nullopt; // a count inside a quotient
      dataDependent |= bound != bounds.end();
      if (term)
        term = SymExpr::mul(*term, bound != bounds.end()
                                       ? bound->second
                                       : SymExpr::symbol(symbol));
    }
    if (dataDependent && coefficient < 0)
      continue;
    if (!term || !(sum = SymExpr::add(*sum, *term)))
      return std::nullopt;
  }
  return sum;
}

} // namespace

std::optional<ShapeCheck>
boundDataDependentSizes(const ShapeCheck &check,
                        const std::map<std::string, SymExpr> &bounds) {
  std::vector<std::string> read = check.symbolsRead();
  if (std::none_of(read.begin(), read.end(), [&](const std::string &symbol) {
        return bounds.count(symbol) != 0;
      }))
    return check;
  auto readsCount = [&](const SymExpr &e) {
    for (const std::string &symbol : e.leafSymbols())
      if (bounds.count(symbol))
        return true;
    return false;
  };
  // Only a side of the condition that a larger size makes stricter takes
  // the bound.
  ShapeCheck bounded = check;
  std::vector<SymExpr *> growing;
  switch (check.kind) {
  case ShapeCheck::Kind::ElementLimit:
    for (SymExpr &dim : bounded.dims)
      growing.push_back(&dim);
    break;
  case ShapeCheck::Kind::LessEqual:            // a <= b
  case ShapeCheck::Kind::NonEmptyUnlessUnused: // a != 0 or b == 0
    if (readsCount(check.kind == ShapeCheck::Kind::LessEqual ? check.b
                                                             : check.a))
      return std::nullopt;
    growing.push_back(check.kind == ShapeCheck::Kind::LessEqual ? &bounded.a
                                                                : &bounded.b);
    break;
  default:
    return std::nullopt;
  }
  for (SymExpr *side : growing) {
    std::optional<SymExpr> bound = upperBound(*side, bounds);
    if (!bound)
      return std::nullopt;
    *side = std::move(*bound);
  }
  return bounded;
}

} // namespace anyshape

// Overflow-checked polynomial arithmetic for symbolic dims. Constants take
// a fast path everywhere: the concrete world (run-time shape checks) only
// ever combines constants.
#include "SymExpr.h"

#include <algorithm>
#include <functional>

namespace anyshape {

SymExpr SymExpr::constant(int64_t value) {
  SymExpr e;
  e.constant_ = value;
  return e;
}

SymExpr SymExpr::symbol(const std::string &name) {
  SymExpr e;
  e.terms_[{name}] = 1;
  return e;
}

SymExpr SymExpr::fromTerms(std::map<Monomial, int64_t> terms) {
  SymExpr e;
  auto constantTerm = terms.find({});
  if (constantTerm != terms.end()) {
    e.constant_ = constantTerm->second;
    terms.erase(constantTerm);
  }
  e.terms_ = std::move(terms);
  return e;
}

std::map<SymExpr::Monomial, int64_t> SymExpr::terms() const {
  std::map<Monomial, int64_t> all = terms_;
  if (constant_ != 0)
    all[{}] = constant_;
  return all;
}

bool SymExpr::isConstant() const { return terms_.empty(); }

size_t SymExpr::hash() const {
  size_t h = std::hash<int64_t>()(constant_);
  auto mix = [&h](size_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  };
  for (const auto &[monomial, coefficient] : terms_) {
    mix(std::hash<int64_t>()(coefficient));
    for (const std::string &name : monomial)
      mix(std::hash<std::string>()(name));
  }
  return h;
}

bool SymExpr::isNonNegative() const {
  return constant_ >= 0 &&
         std::all_of(terms_.begin(), terms_.end(),
                     [](const auto &term) { return term.second > 0; });
}

std::optional<int64_t> SymExpr::constantValue() const {
  if (isConstant())
    return constant_;
  return std::nullopt;
}

std::optional<std::string> SymExpr::singleSymbol() const {
  if (constant_ != 0 || terms_.size() != 1)
    return std::nullopt;
  const auto &[monomial, coefficient] = *terms_.begin();
  if (monomial.size() != 1 || coefficient != 1)
    return std::nullopt;
  return monomial.front();
}

std::optional<SymExpr> SymExpr::add(const SymExpr &a, const SymExpr &b) {
  SymExpr result = a;
  if (__builtin_add_overflow(a.constant_, b.constant_, &result.constant_))
    return std::nullopt;
  for (const auto &[monomial, coefficient] : b.terms_) {
    int64_t &slot = result.terms_[monomial];
    if (__builtin_add_overflow(slot, coefficient, &slot))
      return std::nullopt;
    if (slot == 0)
      result.terms_.erase(monomial);
  }
  if (result.terms_.size() > kMaxTerms)
    return std::nullopt;
  return result;
}

std::optional<SymExpr> SymExpr::sub(const SymExpr &a, const SymExpr &b) {
  auto negB = mul(b, constant(-1));
  if (!negB)
    return std::nullopt;
  return add(a, *negB);
}

std::optional<SymExpr> SymExpr::mul(const SymExpr &a, const SymExpr &b) {
  if (a.isConstant() && b.isConstant()) {
    SymExpr result;
    if (__builtin_mul_overflow(a.constant_, b.constant_, &result.constant_))
      return std::nullopt;
    return result;
  }
  // Bounded before any work: every pair of terms is one step.
  size_t termsA = a.terms_.size() + (a.constant_ != 0);
  size_t termsB = b.terms_.size() + (b.constant_ != 0);
  if (termsA * termsB > kMaxTermProducts)
    return std::nullopt;
  std::map<Monomial, int64_t> product;
  for (const auto &[ma, ca] : a.terms()) {
    for (const auto &[mb, cb] : b.terms()) {
      if (ma.size() + mb.size() > kMaxDegree)
        return std::nullopt;
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      int64_t term;
      if (__builtin_mul_overflow(ca, cb, &term))
        return std::nullopt;
      int64_t &slot = product[m];
      if (__builtin_add_overflow(slot, term, &slot))
        return std::nullopt;
      if (slot == 0)
        product.erase(m);
    }
  }
  if (product.size() > kMaxTerms + 1) // + the constant term
    return std::nullopt;
  return fromTerms(std::move(product));
}

std::optional<SymExpr> SymExpr::divideExact(const SymExpr &divisor) const {
  std::map<Monomial, int64_t> divisorTerms = divisor.terms();
  if (divisorTerms.size() != 1)
    return std::nullopt;
  const auto &[dm, dc] = *divisorTerms.begin();
  std::map<Monomial, int64_t> quotient;
  for (const auto &[monomial, coefficient] : terms()) {
    // INT64_MIN / -1 overflows; checked first, as INT64_MIN % -1 traps too.
    if (dc == -1 && coefficient == INT64_MIN)
      return std::nullopt;
    if (coefficient % dc != 0)
      return std::nullopt;
    // Remove the divisor's symbols (a sorted multiset) from this monomial.
    Monomial rest;
    if (!std::includes(monomial.begin(), monomial.end(), dm.begin(), dm.end()))
      return std::nullopt;
    std::set_difference(monomial.begin(), monomial.end(), dm.begin(), dm.end(),
                        std::back_inserter(rest));
    quotient[rest] = coefficient / dc;
  }
  return fromTerms(std::move(quotient));
}

std::optional<int64_t>
SymExpr::evaluate(const std::map<std::string, int64_t> &values,
                  std::string *missing) const {
  int64_t total = constant_;
  for (const auto &[monomial, coefficient] : terms_) {
    int64_t term = coefficient;
    for (const std::string &name : monomial) {
      auto it = values.find(name);
      if (it == values.end()) {
        if (missing)
          *missing = name;
        return std::nullopt;
      }
      if (__builtin_mul_overflow(term, it->second, &term))
        return std::nullopt;
    }
    if (__builtin_add_overflow(total, term, &total))
      return std::nullopt;
  }
  return total;
}

std::vector<std::string> SymExpr::symbols() const {
  std::vector<std::string> names;
  for (const auto &[monomial, coefficient] : terms_)
    for (const std::string &name : monomial)
      if (std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(name);
  return names;
}

std::string SymExpr::toString() const {
  if (isConstant())
    return std::to_string(constant_);
  std::string out;
  // Highest-degree terms first, the constant last: "2*seq + 1".
  std::map<Monomial, int64_t> all = terms();
  std::vector<std::pair<Monomial, int64_t>> ordered(all.begin(), all.end());
  std::sort(ordered.begin(), ordered.end(), [](const auto &a, const auto &b) {
    if (a.first.size() != b.first.size())
      return a.first.size() > b.first.size();
    return a.first < b.first;
  });
  for (const auto &[monomial, coefficient] : ordered) {
    int64_t c = coefficient;
    if (out.empty()) {
      if (c < 0 && !monomial.empty() && c == -1) {
        out += "-";
        c = 1;
      }
    } else {
      out += c < 0 ? " - " : " + ";
      if (c < 0)
        c = c == INT64_MIN ? c : -c;
    }
    std::string factors;
    for (const std::string &name : monomial)
      factors += (factors.empty() ? "" : "*") + name;
    if (monomial.empty())
      out += std::to_string(c);
    else if (c == 1)
      out += factors;
    else
      out += std::to_string(c) + "*" + factors;
  }
  return out;
}

} // namespace anyshape

// Overflow-checked polynomial arithmetic for symbolic dims. Constants take
// a fast path everywhere: the concrete world (run-time shape checks) only
// ever combines constants.
#include "SymExpr.h"

#include "DimText.h"

#include <algorithm>
#include <functional>
#include <numeric>

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

namespace {

/// How many max/min atoms isNonNegative splits on, one inside another:
/// each split tries at most two expressions, so at most 2^4 are read.
constexpr int kMaxExtremumSplits = 4;

/// No coefficient negative: >= 0 for all sizes, every symbol being one.
bool termsNonNegative(const SymExpr &e) {
  std::map<SymExpr::Monomial, int64_t> all = e.terms();
  return std::all_of(all.begin(), all.end(),
                     [](const auto &term) { return term.second >= 0; });
}

/// e >= 0 for all sizes, as far as splitting on its max and min atoms
/// proves: a term c * max(a, b) is min(c*a, c*b) where c < 0, so e holds
/// only if it holds with the atom replaced by each operand; where c > 0
/// it is at least c*a and c*b, so either replacement holding suffices
/// (min the other way round). Sound, and exact for one atom in a linear
/// term (`past + seq - max(0, past - 5)`: seq + past and seq + 5).
bool provedNonNegative(const SymExpr &e, int splitsLeft) {
  if (termsNonNegative(e))
    return true;
  if (splitsLeft == 0)
    return false;
  for (const auto &[monomial, coefficient] : e.terms()) {
    std::optional<SymExpr::Extremum> extremum =
        monomial.size() == 1 ? SymExpr::extremumOf(monomial.front())
                             : std::nullopt;
    if (!extremum)
      continue;
    SymExpr c = SymExpr::constant(coefficient);
    std::optional<SymExpr> scaled =
        SymExpr::mul(SymExpr::symbol(monomial.front()), c);
    std::optional<SymExpr> rest =
        scaled ? SymExpr::sub(e, *scaled) : std::nullopt;
    auto replacedBy = [&](const SymExpr &operand) {
      std::optional<SymExpr> part = SymExpr::mul(operand, c);
      std::optional<SymExpr> whole =
          rest && part ? SymExpr::add(*rest, *part) : std::nullopt;
      return whole && provedNonNegative(*whole, splitsLeft - 1);
    };
    bool both = extremum->larger == (coefficient < 0);
    return both ? replacedBy(extremum->a) && replacedBy(extremum->b)
                : replacedBy(extremum->a) || replacedBy(extremum->b);
  }
  return false;
}

} // namespace

bool SymExpr::isNonNegative() const {
  // The common case, and every constant, without copying a term.
  if (constant_ >= 0 &&
      std::all_of(terms_.begin(), terms_.end(),
                  [](const auto &term) { return term.second > 0; }))
    return true;
  return !isConstant() && provedNonNegative(*this, kMaxExtremumSplits);
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

namespace {

/// Longest quotient atom name: a power of a quotient inside another doubles
/// the text, so names are bounded rather than trusted to stay short.
constexpr size_t kMaxQuotientName = 4096;
constexpr std::string_view kFloorDiv = " floordiv ";

int64_t floorOfQuotient(int64_t c, int64_t divisor) {
  int64_t q = c / divisor;
  return c % divisor < 0 ? q - 1 : q;
}

} // namespace

std::optional<SymExpr> SymExpr::floorDiv(const SymExpr &a, int64_t divisor) {
  if (divisor < 1)
    return std::nullopt;
  if (divisor == 1)
    return a;
  // a = divisor * whole + rest, each coefficient of rest in [0, divisor):
  // floor(a / divisor) = whole + floor(rest / divisor), rest >= 0.
  std::map<Monomial, int64_t> whole, rest;
  for (const auto &[monomial, coefficient] : a.terms()) {
    int64_t q = floorOfQuotient(coefficient, divisor), multiple;
    if (__builtin_mul_overflow(q, divisor, &multiple))
      return std::nullopt; // only near INT64_MIN
    int64_t r = coefficient - multiple;
    if (q != 0)
      whole[monomial] = q;
    if (r != 0)
      rest[monomial] = r;
  }
  SymExpr wholePart = fromTerms(std::move(whole));
  SymExpr restPart = fromTerms(rest);
  if (restPart.isConstant()) // 0 <= rest < divisor
    return wholePart;
  // Common factors cancel: floor(g*x / (g*d)) = floor(x / d).
  int64_t g = divisor;
  for (const auto &[monomial, coefficient] : rest)
    g = std::gcd(g, coefficient);
  if (g > 1) {
    for (auto &[monomial, coefficient] : rest)
      coefficient /= g;
    restPart = fromTerms(std::move(rest));
    divisor /= g;
    if (divisor == 1)
      return add(wholePart, restPart);
  }
  // A quotient of a quotient is one quotient: for integer x,
  // floor((floor(x / d1) + r) / d2) = floor((x + r*d1) / (d1*d2)).
  if (restPart.terms_.size() == 1 && restPart.terms_.begin()->second == 1 &&
      restPart.terms_.begin()->first.size() == 1)
    if (auto inner = quotientOf(restPart.terms_.begin()->first.front())) {
      int64_t shift, product;
      if (__builtin_mul_overflow(restPart.constant_, inner->divisor, &shift) ||
          __builtin_mul_overflow(inner->divisor, divisor, &product))
        return std::nullopt;
      auto shifted = add(inner->dividend, constant(shift));
      auto quotient = shifted ? floorDiv(*shifted, product) : std::nullopt;
      return quotient ? add(wholePart, *quotient) : std::nullopt;
    }
  // "(seq floordiv 2)", "(2*b*s floordiv 3)", "((seq + 1) floordiv 2)":
  // a product binds before floordiv, a sum needs its parentheses.
  std::string dividend = restPart.toString();
  if (restPart.terms_.size() + (restPart.constant_ != 0) > 1)
    dividend = "(" + dividend + ")";
  std::string name =
      "(" + dividend + std::string(kFloorDiv) + std::to_string(divisor) + ")";
  if (name.size() > kMaxQuotientName)
    return std::nullopt;
  return add(wholePart, symbol(name));
}

std::optional<SymExpr> SymExpr::mod(const SymExpr &a, int64_t divisor) {
  std::optional<SymExpr> quotient = floorDiv(a, divisor);
  std::optional<SymExpr> multiple =
      quotient ? mul(*quotient, constant(divisor)) : std::nullopt;
  return multiple ? sub(a, *multiple) : std::nullopt;
}

std::optional<SymExpr::Quotient> SymExpr::quotientOf(const std::string &atom) {
  if (atom.size() < 2 || atom.front() != '(' || atom.back() != ')')
    return std::nullopt;
  size_t op = atom.rfind(kFloorDiv); // the outer one: its divisor ends it
  if (op == std::string::npos)
    return std::nullopt;
  std::string digits = atom.substr(op + kFloorDiv.size(),
                                   atom.size() - 1 - op - kFloorDiv.size());
  if (digits.empty() || digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(),
                   [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  std::optional<SymExpr> dividend =
      parseSymExprOfAnyNames(std::string_view(atom).substr(1, op - 1));
  int64_t divisor = std::stoll(digits);
  if (!dividend || divisor < 2)
    return std::nullopt;
  return Quotient{std::move(*dividend), divisor};
}

namespace {

constexpr std::string_view kMaxOpen = "max(", kMinOpen = "min(";

/// The position of the comma separating an extremum's operands in `inner`
/// (the text between its parentheses): the one outside any parentheses.
std::optional<size_t> topLevelComma(std::string_view inner) {
  int depth = 0;
  for (size_t k = 0; k < inner.size(); ++k) {
    if (inner[k] == '(')
      ++depth;
    else if (inner[k] == ')')
      --depth;
    else if (inner[k] == ',' && depth == 0)
      return k;
  }
  return std::nullopt;
}

} // namespace

std::optional<SymExpr> SymExpr::extremum(const SymExpr &a, const SymExpr &b,
                                         bool larger) {
  std::optional<SymExpr> aOverB = sub(a, b), bOverA = sub(b, a);
  if (!aOverB || !bOverA)
    return std::nullopt;
  if (aOverB->isNonNegative()) // a >= b for all sizes
    return larger ? a : b;
  if (bOverA->isNonNegative())
    return larger ? b : a;
  bool neverNegative = larger ? a.isNonNegative() || b.isNonNegative()
                              : a.isNonNegative() && b.isNonNegative();
  if (!neverNegative)
    return std::nullopt;
  std::string first = a.toString(), second = b.toString();
  if (second < first)
    std::swap(first, second);
  std::string name =
      std::string(larger ? kMaxOpen : kMinOpen) + first + ", " + second + ")";
  if (name.size() > kMaxQuotientName)
    return std::nullopt;
  return symbol(name);
}

std::optional<SymExpr::Extremum> SymExpr::extremumOf(const std::string &atom) {
  std::string_view text(atom);
  if (text.size() < 8) // "max(a, b)" at its shortest
    return std::nullopt;
  bool larger = text.substr(0, kMaxOpen.size()) == kMaxOpen;
  if ((!larger && text.substr(0, kMinOpen.size()) != kMinOpen) ||
      text.back() != ')')
    return std::nullopt;
  std::string_view inner = text.substr(4, text.size() - 5);
  std::optional<size_t> comma = topLevelComma(inner);
  if (!comma)
    return std::nullopt;
  std::optional<SymExpr> a = parseSymExprOfAnyNames(inner.substr(0, *comma));
  std::optional<SymExpr> b = parseSymExprOfAnyNames(inner.substr(*comma + 1));
  if (!a || !b)
    return std::nullopt;
  return Extremum{std::move(*a), std::move(*b), larger};
}

std::optional<SymExpr>
SymExpr::substitute(const std::map<std::string, int64_t> &values) const {
  std::optional<SymExpr> sum = constant(constant_);
  for (const auto &[monomial, coefficient] : terms_) {
    std::optional<SymExpr> term = constant(coefficient);
    for (const std::string &name : monomial) {
      std::optional<SymExpr> factor = symbol(name);
      if (auto it = values.find(name); it != values.end()) {
        factor = constant(it->second);
      } else if (auto quotient = quotientOf(name)) {
        factor = quotient->dividend.substitute(values);
        if (factor)
          factor = floorDiv(*factor, quotient->divisor);
      } else if (auto extreme = extremumOf(name)) {
        std::optional<SymExpr> a = extreme->a.substitute(values),
                               b = extreme->b.substitute(values);
        factor = a && b ? extremum(*a, *b, extreme->larger) : std::nullopt;
      }
      if (!factor || !term)
        return std::nullopt;
      term = mul(*term, *factor);
    }
    if (!term || !sum)
      return std::nullopt;
    sum = add(*sum, *term);
  }
  return sum;
}

std::optional<int64_t>
SymExpr::evaluate(const std::map<std::string, int64_t> &values,
                  std::string *missing) const {
  int64_t total = constant_;
  for (const auto &[monomial, coefficient] : terms_) {
    int64_t term = coefficient;
    for (const std::string &name : monomial) {
      auto it = values.find(name);
      std::optional<int64_t> value;
      if (it != values.end()) {
        value = it->second;
      } else if (auto quotient = quotientOf(name)) {
        value = quotient->dividend.evaluate(values, missing);
        if (!value)
          return std::nullopt;
        value = floorOfQuotient(*value, quotient->divisor);
      } else if (auto extreme = extremumOf(name)) {
        std::optional<int64_t> a = extreme->a.evaluate(values, missing),
                               b = extreme->b.evaluate(values, missing);
        if (!a || !b)
          return std::nullopt;
        value = extreme->larger ? std::max(*a, *b) : std::min(*a, *b);
      } else {
        if (missing)
          *missing = name;
        return std::nullopt;
      }
      if (__builtin_mul_overflow(term, *value, &term))
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

std::vector<std::string> SymExpr::leafSymbols() const {
  std::vector<std::string> leaves;
  auto addLeaves = [&](const std::vector<std::string> &names) {
    for (const std::string &leaf : names)
      if (std::find(leaves.begin(), leaves.end(), leaf) == leaves.end())
        leaves.push_back(leaf);
  };
  for (const std::string &name : symbols()) {
    if (std::optional<Quotient> quotient = quotientOf(name)) {
      addLeaves(quotient->dividend.leafSymbols());
    } else if (std::optional<Extremum> extreme = extremumOf(name)) {
      addLeaves(extreme->a.leafSymbols());
      addLeaves(extreme->b.leafSymbols());
    } else {
      addLeaves({name});
    }
  }
  return leaves;
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

// A tiny recursive-descent-free parser: split on '+'/'-', then on '*'.
#include "DimText.h"

#include "TensorType.h"

#include <cctype>
#include <string>

namespace anyshape {
namespace {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
    --e;
  return std::string(s.substr(b, e - b));
}

bool isInteger(const std::string &s) {
  if (s.empty() || s.size() > 18)
    return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
}

} // namespace

namespace {
using NameCheck = bool (*)(const std::string &);
StatusOr<v1::DimExpr> parseTerms(std::string_view text, NameCheck validName);
} // namespace

StatusOr<v1::DimExpr> parseDimExpr(std::string_view text) {
  return parseTerms(text, isValidSymbolName);
}

std::optional<SymExpr>
symExprOf(const v1::DimExpr &expr,
          const std::function<std::string(const std::string &)> &rename) {
  std::optional<SymExpr> sum = SymExpr::constant(expr.constant());
  for (const auto &term : expr.terms()) {
    std::optional<SymExpr> product = SymExpr::constant(term.coefficient());
    for (const std::string &name : term.symbols())
      if (product)
        product = SymExpr::mul(*product,
                               SymExpr::symbol(rename ? rename(name) : name));
    if (!product || !sum)
      return std::nullopt;
    sum = SymExpr::add(*sum, *product);
  }
  return sum;
}

std::optional<SymExpr> parseSymExpr(std::string_view text) {
  auto expr = parseTerms(text, [](const std::string &name) {
    return isValidSymbolName(name) ||
           (isFreshSymbolName(name) && isValidSymbolName("x" + name.substr(1)));
  });
  if (!expr)
    return std::nullopt;
  return symExprOf(*expr);
}

namespace {
StatusOr<v1::DimExpr> parseTerms(std::string_view text, NameCheck validName) {
  v1::DimExpr expr;
  std::string s(text);
  if (trim(s).empty())
    return invalidArgument("empty dim expression");
  size_t pos = 0;
  int sign = 1;
  std::string rest = trim(s);
  if (!rest.empty() && rest[0] == '-') {
    sign = -1;
    rest = rest.substr(1);
  }
  while (true) {
    size_t next = rest.find_first_of("+-", pos);
    std::string termText = trim(std::string_view(rest).substr(
        pos, next == std::string::npos ? std::string::npos : next - pos));
    int64_t coefficient = sign;
    std::vector<std::string> symbols;
    size_t start = 0;
    while (true) {
      size_t star = termText.find('*', start);
      std::string factor =
          trim(std::string_view(termText).substr(start, star - start));
      if (isInteger(factor)) {
        if (__builtin_mul_overflow(coefficient, std::stoll(factor),
                                   &coefficient))
          return invalidArgument("dim expression '" + s + "' overflows");
      } else if (validName(factor)) {
        symbols.push_back(factor);
      } else {
        return invalidArgument("bad factor '" + factor +
                               "' in dim expression '" + s + "'");
      }
      if (star == std::string::npos)
        break;
      start = star + 1;
    }
    if (symbols.empty()) {
      int64_t sum;
      if (__builtin_add_overflow(expr.constant(), coefficient, &sum))
        return invalidArgument("dim expression '" + s + "' overflows");
      expr.set_constant(sum);
    } else {
      auto *term = expr.add_terms();
      term->set_coefficient(coefficient);
      for (const std::string &name : symbols)
        term->add_symbols(name);
    }
    if (next == std::string::npos)
      break;
    sign = rest[next] == '-' ? -1 : 1;
    pos = next + 1;
  }
  return expr;
}

} // namespace

StatusOr<v1::Dim> parseDim(std::string_view text) {
  std::string s = trim(text);
  v1::Dim dim;
  if (s == "?") {
    dim.set_dynamic(true);
  } else if (!s.empty() && s[0] == '-' && isInteger(trim(s.substr(1)))) {
    dim.set_size(-std::stoll(trim(s.substr(1)))); // -1, or a negative size
  } else if (isInteger(s)) {
    dim.set_size(std::stoll(s));
  } else if (isValidSymbolName(s)) {
    dim.set_symbol(s);
  } else {
    ANYSHAPE_ASSIGN_OR_RETURN(*dim.mutable_expr(), parseDimExpr(s));
  }
  return dim;
}

std::optional<v1::Dim> toWireDim(const SymExpr &e) {
  v1::Dim dim;
  if (auto v = e.constantValue()) {
    dim.set_size(*v);
    return dim;
  }
  for (const std::string &name : e.symbols())
    if (!isValidSymbolName(name))
      return std::nullopt;
  if (auto name = e.singleSymbol()) {
    dim.set_symbol(*name);
    return dim;
  }
  v1::DimExpr *expr = dim.mutable_expr();
  for (const auto &[monomial, coefficient] : e.terms()) {
    if (monomial.empty()) {
      expr->set_constant(coefficient);
      continue;
    }
    auto *term = expr->add_terms();
    term->set_coefficient(coefficient);
    for (const std::string &name : monomial)
      term->add_symbols(name);
  }
  return dim;
}

} // namespace anyshape

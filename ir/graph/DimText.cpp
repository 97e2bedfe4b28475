// Dims as text and back. One recursive-descent parser reads every spelling
// (wire text, #dhlo.shape entries, atom names); quotients are rebuilt
// through SymExpr::floorDiv and max/min through SymExpr::extremum, so
// whatever the text, the result is canonical.
#include "DimText.h"

#include "TensorType.h"

#include <cctype>
#include <string>

namespace anyshape {
namespace {

using NameCheck = bool (*)(const std::string &);

/// Parentheses nest at most this deep: a quotient of a quotient takes two.
constexpr int kMaxNesting = 32;

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '?' ||
         c == '#' || c == '$' || c == '.';
}

bool isInteger(const std::string &s) {
  if (s.empty() || s.size() > 18)
    return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
}

// expr   := ['-'] term (('+' | '-') term)*
// term   := factor (('*' factor) | ('floordiv' integer) | ('mod' integer))*
// factor := integer | name | '(' expr ')' | ('max' | 'min') '(' expr ','
//           expr ')'
// floordiv and mod bind as '*' does, left to right (as in Python and MLIR's
// affine maps): "2*seq floordiv 4" is (2*seq) floordiv 4.
class DimParser {
public:
  DimParser(std::string_view text, NameCheck validName)
      : text_(text), validName_(validName) {}

  StatusOr<SymExpr> parse() {
    skipSpace();
    if (pos_ == text_.size())
      return invalidArgument("empty dim expression");
    ANYSHAPE_ASSIGN_OR_RETURN(SymExpr e, expr(0));
    skipSpace();
    if (pos_ != text_.size())
      return invalidArgument("unexpected '" + std::string(text_.substr(pos_)) +
                             "' in dim expression '" + std::string(text_) +
                             "'");
    return e;
  }

private:
  StatusOr<SymExpr> expr(int depth) {
    if (depth > kMaxNesting)
      return invalidArgument("dim expression '" + std::string(text_) +
                             "' nests deeper than " +
                             std::to_string(kMaxNesting));
    skipSpace();
    bool negate = consume('-');
    ANYSHAPE_ASSIGN_OR_RETURN(SymExpr sum, term(depth));
    if (negate) {
      ANYSHAPE_ASSIGN_OR_RETURN(
          sum, checked(SymExpr::mul(sum, SymExpr::constant(-1))));
    }
    while (true) {
      skipSpace();
      bool plus = consume('+');
      if (!plus && !consume('-'))
        return sum;
      ANYSHAPE_ASSIGN_OR_RETURN(SymExpr next, term(depth));
      ANYSHAPE_ASSIGN_OR_RETURN(sum, checked(plus ? SymExpr::add(sum, next)
                                                  : SymExpr::sub(sum, next)));
    }
  }

  StatusOr<SymExpr> term(int depth) {
    ANYSHAPE_ASSIGN_OR_RETURN(SymExpr product, factor(depth));
    while (true) {
      skipSpace();
      if (consume('*')) {
        ANYSHAPE_ASSIGN_OR_RETURN(SymExpr next, factor(depth));
        ANYSHAPE_ASSIGN_OR_RETURN(product,
                                  checked(SymExpr::mul(product, next)));
        continue;
      }
      bool floorDiv = keyword("floordiv");
      if (!floorDiv && !keyword("mod"))
        return product;
      skipSpace();
      std::string divisor = word();
      if (!isInteger(divisor) || std::stoll(divisor) < 1)
        return invalidArgument("the divisor '" + divisor +
                               "' in dim expression '" + std::string(text_) +
                               "' is not an integer >= 1");
      int64_t d = std::stoll(divisor);
      ANYSHAPE_ASSIGN_OR_RETURN(product,
                                checked(floorDiv ? SymExpr::floorDiv(product, d)
                                                 : SymExpr::mod(product, d)));
    }
  }

  StatusOr<SymExpr> factor(int depth) {
    skipSpace();
    if (consume('(')) {
      ANYSHAPE_ASSIGN_OR_RETURN(SymExpr inner, expr(depth + 1));
      skipSpace();
      if (!consume(')'))
        return invalidArgument("missing ')' in dim expression '" +
                               std::string(text_) + "'");
      return inner;
    }
    size_t before = pos_;
    std::string token = word();
    skipSpace();
    if ((token == "max" || token == "min") && consume('(')) {
      ANYSHAPE_ASSIGN_OR_RETURN(SymExpr a, expr(depth + 1));
      skipSpace();
      if (!consume(','))
        return invalidArgument("missing ',' in " + token +
                               " in dim expression '" + std::string(text_) +
                               "'");
      ANYSHAPE_ASSIGN_OR_RETURN(SymExpr b, expr(depth + 1));
      skipSpace();
      if (!consume(')'))
        return invalidArgument("missing ')' in dim expression '" +
                               std::string(text_) + "'");
      std::optional<SymExpr> e = SymExpr::extremum(a, b, token == "max");
      if (!e)
        return invalidArgument(token + "(" + a.toString() + ", " +
                               b.toString() + ") in dim expression '" +
                               std::string(text_) +
                               "' may be negative, which no size is");
      return std::move(*e);
    }
    pos_ = before + token.size();
    if (isInteger(token))
      return SymExpr::constant(std::stoll(token));
    if (!token.empty() && !std::isdigit(static_cast<unsigned char>(token[0])) &&
        validName_(token))
      return SymExpr::symbol(token);
    if (token.empty() && pos_ < text_.size())
      token = text_.substr(pos_, 1);
    return invalidArgument("bad factor '" + token + "' in dim expression '" +
                           std::string(text_) + "'");
  }

  StatusOr<SymExpr> checked(std::optional<SymExpr> e) const {
    if (!e)
      return invalidArgument("dim expression '" + std::string(text_) + "' " +
                             SymExpr::kBeyondBounds);
    return std::move(*e);
  }

  void skipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  /// The longest run of name characters from here (maybe empty).
  std::string word() {
    size_t start = pos_;
    while (pos_ < text_.size() && isNameChar(text_[pos_]))
      ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  /// Consumes `name` if it is the next whole word.
  bool keyword(std::string_view name) {
    skipSpace();
    if (text_.substr(pos_, name.size()) != name)
      return false;
    size_t end = pos_ + name.size();
    if (end < text_.size() && isNameChar(text_[end]))
      return false;
    pos_ = end;
    return true;
  }

  std::string_view text_;
  NameCheck validName_;
  size_t pos_ = 0;
};

bool isFreshOrValidName(const std::string &name) {
  return isValidSymbolName(name) ||
         (isFreshSymbolName(name) && isValidSymbolName("x" + name.substr(1)));
}

std::optional<SymExpr>
symExprOf(const v1::DimExpr &expr,
          const std::function<std::string(const std::string &)> &rename,
          int depth) {
  if (depth > kMaxNesting)
    return std::nullopt;
  std::optional<SymExpr> sum = SymExpr::constant(expr.constant());
  for (const auto &term : expr.terms()) {
    std::optional<SymExpr> product = SymExpr::constant(term.coefficient());
    for (const std::string &name : term.symbols())
      if (product)
        product = SymExpr::mul(*product,
                               SymExpr::symbol(rename ? rename(name) : name));
    for (const auto &quotient : term.quotients()) {
      std::optional<SymExpr> dividend =
          symExprOf(quotient.dividend(), rename, depth + 1);
      std::optional<SymExpr> factor =
          dividend ? SymExpr::floorDiv(*dividend, quotient.divisor())
                   : std::nullopt;
      product =
          product && factor ? SymExpr::mul(*product, *factor) : std::nullopt;
    }
    for (const auto &extreme : term.extrema()) {
      std::optional<SymExpr> a = symExprOf(extreme.a(), rename, depth + 1),
                             b = symExprOf(extreme.b(), rename, depth + 1);
      std::optional<SymExpr> factor =
          a && b ? SymExpr::extremum(*a, *b, extreme.larger()) : std::nullopt;
      product =
          product && factor ? SymExpr::mul(*product, *factor) : std::nullopt;
    }
    if (!product || !sum)
      return std::nullopt;
    sum = SymExpr::add(*sum, *product);
  }
  return sum;
}

} // namespace

StatusOr<v1::DimExpr> parseDimExpr(std::string_view text) {
  ANYSHAPE_ASSIGN_OR_RETURN(SymExpr e,
                            DimParser(text, isValidSymbolName).parse());
  std::optional<v1::DimExpr> wire = toWireExpr(e);
  if (!wire) // only names the parser accepted, so only an atom's length
    return invalidArgument("dim expression '" + std::string(text) + "' " +
                           SymExpr::kBeyondBounds);
  return std::move(*wire);
}

std::optional<SymExpr>
symExprOf(const v1::DimExpr &expr,
          const std::function<std::string(const std::string &)> &rename) {
  return symExprOf(expr, rename, 0);
}

std::optional<SymExpr> parseSymExpr(std::string_view text) {
  StatusOr<SymExpr> e = DimParser(text, isFreshOrValidName).parse();
  return e ? std::optional<SymExpr>(std::move(*e)) : std::nullopt;
}

std::optional<SymExpr> parseSymExprOfAnyNames(std::string_view text) {
  StatusOr<SymExpr> e =
      DimParser(text, [](const std::string &) { return true; }).parse();
  return e ? std::optional<SymExpr>(std::move(*e)) : std::nullopt;
}

StatusOr<v1::Dim> parseDim(std::string_view text) {
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1])))
    --e;
  std::string s(text.substr(b, e - b));
  v1::Dim dim;
  if (s == "?") {
    dim.set_dynamic(true);
  } else if (s.size() > 1 && s[0] == '-' && isInteger(s.substr(1))) {
    dim.set_size(-std::stoll(s.substr(1))); // -1, or a negative size
  } else if (isInteger(s)) {
    dim.set_size(std::stoll(s));
  } else if (isValidSymbolName(s)) {
    dim.set_symbol(s);
  } else {
    ANYSHAPE_ASSIGN_OR_RETURN(*dim.mutable_expr(), parseDimExpr(s));
  }
  return dim;
}

std::optional<v1::DimExpr> toWireExpr(const SymExpr &e) {
  v1::DimExpr expr;
  for (const auto &[monomial, coefficient] : e.terms()) {
    if (monomial.empty()) {
      expr.set_constant(coefficient);
      continue;
    }
    auto *term = expr.add_terms();
    term->set_coefficient(coefficient);
    for (const std::string &name : monomial) {
      if (auto quotient = SymExpr::quotientOf(name)) {
        std::optional<v1::DimExpr> dividend = toWireExpr(quotient->dividend);
        if (!dividend)
          return std::nullopt;
        auto *factor = term->add_quotients();
        *factor->mutable_dividend() = std::move(*dividend);
        factor->set_divisor(quotient->divisor);
      } else if (auto extreme = SymExpr::extremumOf(name)) {
        std::optional<v1::DimExpr> a = toWireExpr(extreme->a),
                                   b = toWireExpr(extreme->b);
        if (!a || !b)
          return std::nullopt;
        auto *factor = term->add_extrema();
        factor->set_larger(extreme->larger);
        *factor->mutable_a() = std::move(*a);
        *factor->mutable_b() = std::move(*b);
      } else if (isValidSymbolName(name)) {
        term->add_symbols(name);
      } else {
        return std::nullopt;
      }
    }
  }
  return expr;
}

std::optional<v1::Dim> toWireDim(const SymExpr &e) {
  v1::Dim dim;
  if (auto v = e.constantValue()) {
    dim.set_size(*v);
    return dim;
  }
  if (auto name = e.singleSymbol(); name && isValidSymbolName(*name)) {
    dim.set_symbol(*name);
    return dim;
  }
  std::optional<v1::DimExpr> expr = toWireExpr(e);
  if (!expr)
    return std::nullopt;
  *dim.mutable_expr() = std::move(*expr);
  return dim;
}

} // namespace anyshape

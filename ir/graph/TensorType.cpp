// Reading attribute dims in symbolic or concrete mode, and limit checks.
#include "TensorType.h"

namespace anyshape {

std::optional<SymExpr> SymTensorType::numElements() const {
  SymExpr count = SymExpr::constant(1);
  for (const SymExpr &d : dims) {
    auto next = SymExpr::mul(count, d);
    if (!next)
      return std::nullopt;
    count = std::move(*next);
  }
  return count;
}

std::optional<std::vector<int64_t>> SymTensorType::staticShape() const {
  std::vector<int64_t> shape;
  for (const SymExpr &d : dims) {
    auto v = d.constantValue();
    if (!v)
      return std::nullopt;
    shape.push_back(*v);
  }
  return shape;
}

std::string SymTensorType::toString() const {
  std::string out = dtypeName(dtype) + "[";
  for (size_t i = 0; i < dims.size(); ++i)
    out += (i ? ", " : "") + dims[i].toString();
  return out + "]";
}

bool isValidSymbolName(const std::string &name) {
  if (name.empty() || name.size() > 128)
    return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (!alpha && !(digit && i > 0))
      return false;
  }
  return true;
}

bool isFreshSymbolName(const std::string &name) {
  return name.size() > 1 && name[0] == '?';
}

bool isDataDependentSymbolName(const std::string &name) {
  return name.rfind("?count", 0) == 0; // fresh() never writes letters
}

ShapeContext ShapeContext::symbolic(const GraphLimits &limits,
                                    std::set<std::string> boundSymbols) {
  ShapeContext ctx(limits);
  ctx.boundSymbols_ = std::move(boundSymbols);
  return ctx;
}

ShapeContext ShapeContext::open(const GraphLimits &limits,
                                std::string freshPrefix) {
  ShapeContext ctx(limits);
  ctx.open_ = true;
  ctx.freshPrefix_ = std::move(freshPrefix);
  return ctx;
}

ShapeContext ShapeContext::concrete(const GraphLimits &limits,
                                    std::map<std::string, int64_t> bindings) {
  ShapeContext ctx(limits);
  ctx.concrete_ = true;
  ctx.bindings_ = std::move(bindings);
  return ctx;
}

StatusOr<SymExpr> ShapeContext::readSymbol(const std::string &name) const {
  if (!isValidSymbolName(name))
    return invalidArgument("invalid symbol name '" + name + "'");
  if (concrete_) {
    auto it = bindings_.find(name);
    if (it == bindings_.end())
      return invalidArgument("symbol '" + name + "' is not bound by any input");
    return SymExpr::constant(it->second);
  }
  if (!open_ && !boundSymbols_.count(name))
    return invalidArgument("symbol '" + name + "' is not the dim of any input");
  return SymExpr::symbol(name);
}

StatusOr<SymExpr> ShapeContext::read(const v1::DimExpr &expr) const {
  return read(expr, 0);
}

StatusOr<SymExpr> ShapeContext::read(const v1::DimExpr &expr, int depth) const {
  // Each quotient, max or min nests whole expressions; as deep as the text
  // form allows.
  if (depth > 16)
    return invalidArgument("dim expression quotients nest deeper than 16");
  if (expr.terms_size() > limits_->maxDimExprTerms)
    return resourceExhausted(
        "dim expression has " + std::to_string(expr.terms_size()) +
        " terms; the limit is " + std::to_string(limits_->maxDimExprTerms));
  for (const auto &term : expr.terms()) {
    int factors =
        term.symbols_size() + term.quotients_size() + term.extrema_size();
    if (factors > limits_->maxDimExprDegree)
      return resourceExhausted("dim expression term has " +
                               std::to_string(factors) +
                               " factors; the limit is " +
                               std::to_string(limits_->maxDimExprDegree));
  }
  SymExpr result = SymExpr::constant(expr.constant());
  for (const auto &term : expr.terms()) {
    SymExpr product = SymExpr::constant(term.coefficient());
    for (const std::string &name : term.symbols()) {
      ANYSHAPE_ASSIGN_OR_RETURN(SymExpr factor, readSymbol(name));
      auto next = SymExpr::mul(product, factor);
      if (!next)
        return invalidArgument(std::string("dim expression ") +
                               SymExpr::kBeyondBounds);
      product = std::move(*next);
    }
    for (const auto &quotient : term.quotients()) {
      if (quotient.divisor() < 1)
        return invalidArgument("dim expression divides by " +
                               std::to_string(quotient.divisor()) +
                               "; a floordiv divisor must be >= 1");
      ANYSHAPE_ASSIGN_OR_RETURN(SymExpr dividend,
                                read(quotient.dividend(), depth + 1));
      auto factor = SymExpr::floorDiv(dividend, quotient.divisor());
      auto next = factor ? SymExpr::mul(product, *factor) : std::nullopt;
      if (!next)
        return invalidArgument(std::string("dim expression ") +
                               SymExpr::kBeyondBounds);
      product = std::move(*next);
    }
    for (const auto &extreme : term.extrema()) {
      ANYSHAPE_ASSIGN_OR_RETURN(SymExpr a, read(extreme.a(), depth + 1));
      ANYSHAPE_ASSIGN_OR_RETURN(SymExpr b, read(extreme.b(), depth + 1));
      auto factor = SymExpr::extremum(a, b, extreme.larger());
      if (!factor)
        return invalidArgument(
            std::string(extreme.larger() ? "max(" : "min(") + a.toString() +
            ", " + b.toString() +
            ") in a dim expression may be negative, which no size is");
      auto next = SymExpr::mul(product, *factor);
      if (!next)
        return invalidArgument(std::string("dim expression ") +
                               SymExpr::kBeyondBounds);
      product = std::move(*next);
    }
    auto sum = SymExpr::add(result, product);
    if (!sum)
      return invalidArgument(std::string("dim expression ") +
                             SymExpr::kBeyondBounds);
    result = std::move(*sum);
  }
  return result;
}

StatusOr<std::optional<SymExpr>> ShapeContext::read(const v1::Dim &dim,
                                                    bool allowInferred) const {
  switch (dim.kind_case()) {
  case v1::Dim::kSize:
    if (dim.size() == -1 && allowInferred)
      return std::optional<SymExpr>();
    if (dim.size() < 0)
      return invalidArgument("negative size " + std::to_string(dim.size()));
    return std::optional<SymExpr>(SymExpr::constant(dim.size()));
  case v1::Dim::kSymbol: {
    ANYSHAPE_ASSIGN_OR_RETURN(SymExpr e, readSymbol(dim.symbol()));
    return std::optional<SymExpr>(std::move(e));
  }
  case v1::Dim::kExpr: {
    ANYSHAPE_ASSIGN_OR_RETURN(SymExpr e, read(dim.expr()));
    if (auto v = e.constantValue(); v && *v < 0)
      return invalidArgument("dim expression " + e.toString() + " is negative");
    if (!e.isNonNegative()) {
      ShapeCheck check{ShapeCheck::Kind::LessEqual};
      check.b = e;
      check.what = "dim expression " + e.toString() + " must not be negative";
      require(std::move(check));
    }
    return std::optional<SymExpr>(std::move(e));
  }
  case v1::Dim::kDynamic:
    return invalidArgument("an anonymous dynamic dim is not allowed here");
  case v1::Dim::KIND_NOT_SET:
    break;
  }
  return invalidArgument("dim has no size, symbol or expression");
}

SymExpr ShapeContext::fresh() {
  return SymExpr::symbol(freshPrefix_ + std::to_string(nextFresh_++));
}

StatusOr<SymExpr> ShapeContext::dataDependent(std::optional<SymExpr> bound,
                                              const std::string &name) {
  // Unnamed, validation's are "?count0", "?count1", ...: other contexts'
  // prefixes ("?local", an analysis rule's own) keep theirs apart.
  std::string symbol =
      name.empty()
          ? freshPrefix_ + "count" + std::to_string(dataDependentBounds_.size())
          : name;
  if (!name.empty() && !concrete_) {
    if (!isValidSymbolName(name))
      return invalidArgument("invalid count_symbol '" + name + "'");
    if ((!open_ && boundSymbols_.count(name)) ||
        dataDependentBounds_.count(name))
      return invalidArgument("count_symbol '" + name +
                             "' is bound already (by an input or another "
                             "nonzero)");
    boundSymbols_.insert(name);
  }
  dataDependentBounds_[symbol] =
      bound ? *bound : SymExpr::constant(limits_->maxElementsPerTensor);
  return SymExpr::symbol(symbol);
}

Status ShapeContext::checkLimits(const SymTensorType &type,
                                 bool recordCheck) const {
  if (type.rank() > limits_->maxRank)
    return resourceExhausted("rank " + std::to_string(type.rank()) +
                             " exceeds the limit of " +
                             std::to_string(limits_->maxRank));
  // The static part alone must fit: symbolic dims only make it larger (or
  // zero, which no real workload is built around). Zero dims are skipped
  // rather than trusted, so that no product of a tensor's dims (in any
  // order, as kernels compute them) can overflow.
  int64_t count = 1;
  bool symbolic = false;
  for (const SymExpr &d : type.dims) {
    auto v = d.constantValue();
    symbolic |= !v;
    if (!v || *v == 0)
      continue;
    if (*v < 0)
      return invalidArgument("negative dim " + std::to_string(*v) + " in " +
                             type.toString());
    if (__builtin_mul_overflow(count, *v, &count) ||
        count > limits_->maxElementsPerTensor)
      return resourceExhausted("element count of " + type.toString() +
                               " exceeds the limit of " +
                               std::to_string(limits_->maxElementsPerTensor));
  }
  if (symbolic && recordCheck && checks_)
    requireElementLimit(type.dims);
  return Status::ok();
}

void ShapeContext::requireElementLimit(const std::vector<SymExpr> &dims) const {
  size_t hash = dims.size();
  for (const SymExpr &d : dims)
    hash = hash * 31 + d.hash();
  auto [begin, end] = limitChecks_.equal_range(hash);
  for (auto it = begin; it != end; ++it)
    if ((*checks_)[it->second].dims == dims)
      return;
  limitChecks_.emplace(hash, checks_->size());
  ShapeCheck check{ShapeCheck::Kind::ElementLimit};
  check.dims = dims;
  check.limit = limits_->maxElementsPerTensor;
  require(std::move(check)); // described on failure: most never fail
}

void ShapeContext::require(ShapeCheck check) const {
  if (!checks_)
    return;
  check.node = node_;
  checks_->push_back(std::move(check));
}

StatusOr<SymExpr> ShapeContext::unify(const SymExpr &a, const SymExpr &b,
                                      const std::string &what) const {
  ANYSHAPE_ASSIGN_OR_RETURN(SymExpr unified, unifyDims(a, b));
  if (a != b) {
    ShapeCheck check{ShapeCheck::Kind::Equal};
    check.a = a;
    check.b = b;
    check.what =
        what + " (" + a.toString() + " and " + b.toString() + ") must be equal";
    require(std::move(check));
  }
  return unified;
}

StatusOr<SymExpr> unifyDims(const SymExpr &a, const SymExpr &b) {
  if (a == b)
    return a;
  auto va = a.constantValue(), vb = b.constantValue();
  if (va && vb)
    return invalidArgument("dims " + a.toString() + " and " + b.toString() +
                           " differ");
  return vb ? b : a;
}

} // namespace anyshape

//===- ShapeCheckAttr.cpp - run-time shape checks in the IR ------*- C++
//-*-===//
#include "ir/dhlo/IR/ShapeCheckAttr.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace anyshape::dhlo {
namespace {

using Kind = ShapeCheck::Kind;

constexpr std::pair<Kind, const char *> kKindNames[] = {
    {Kind::BindInputDim, "bind_input_dim"},
    {Kind::InputDimEquals, "input_dim_equals"},
    {Kind::Equal, "equal"},
    {Kind::OneOrEqual, "one_or_equal"},
    {Kind::LessEqual, "less_equal"},
    {Kind::Divides, "divides"},
    {Kind::NonEmptyUnlessUnused, "non_empty_unless_unused"},
    {Kind::ElementLimit, "element_limit"},
    {Kind::DefineQuotient, "define_quotient"},
    {Kind::DefinePadded, "define_padded"},
};

Attribute exprAttr(Builder &b, const SymExpr &expr) {
  SmallVector<Attribute> terms;
  for (const auto &[monomial, coefficient] : expr.terms()) {
    SmallVector<Attribute> term{b.getI64IntegerAttr(coefficient)};
    for (const std::string &symbol : monomial)
      term.push_back(b.getStringAttr(symbol));
    terms.push_back(b.getArrayAttr(term));
  }
  return b.getArrayAttr(terms);
}

/// Rebuilt with SymExpr's own arithmetic, which normalises it (sorted
/// monomials, no zero terms) and bounds it whatever the attribute holds.
std::optional<SymExpr> exprFrom(Attribute attr) {
  auto terms = llvm::dyn_cast_or_null<ArrayAttr>(attr);
  if (!terms)
    return std::nullopt;
  std::optional<SymExpr> sum = SymExpr::constant(0);
  for (Attribute entry : terms) {
    auto term = llvm::dyn_cast<ArrayAttr>(entry);
    auto coefficient =
        term && !term.empty() ? llvm::dyn_cast<IntegerAttr>(term[0]) : nullptr;
    if (!coefficient)
      return std::nullopt;
    std::optional<SymExpr> product = SymExpr::constant(coefficient.getInt());
    for (Attribute symbol : term.getValue().drop_front()) {
      auto name = llvm::dyn_cast<StringAttr>(symbol);
      if (!name || !product)
        return std::nullopt;
      product = SymExpr::mul(*product, SymExpr::symbol(name.str()));
    }
    if (!product || !sum)
      return std::nullopt;
    sum = SymExpr::add(*sum, *product);
  }
  return sum;
}

} // namespace

StringRef shapeCheckKindName(ShapeCheck::Kind kind) {
  for (const auto &[k, name] : kKindNames)
    if (k == kind)
      return name;
  return "";
}

std::optional<ShapeCheck::Kind> shapeCheckKindNamed(StringRef name) {
  for (const auto &[k, known] : kKindNames)
    if (name == known)
      return k;
  return std::nullopt;
}

ArrayAttr shapeChecksAttr(MLIRContext *context,
                          const std::vector<ShapeCheck> &checks) {
  Builder b(context);
  SmallVector<Attribute> entries;
  for (const ShapeCheck &check : checks) {
    SmallVector<NamedAttribute> fields{
        b.getNamedAttr("kind", b.getStringAttr(shapeCheckKindName(check.kind))),
        b.getNamedAttr("a", exprAttr(b, check.a)),
        b.getNamedAttr("b", exprAttr(b, check.b)),
        b.getNamedAttr("symbol", b.getStringAttr(check.symbol)),
        b.getNamedAttr("input", b.getI64IntegerAttr(check.input)),
        b.getNamedAttr("dim", b.getI64IntegerAttr(check.dim)),
        b.getNamedAttr("interior", b.getI64IntegerAttr(check.interior)),
        b.getNamedAttr("edges", b.getI64IntegerAttr(check.edges)),
        b.getNamedAttr("limit", b.getI64IntegerAttr(check.limit))};
    SmallVector<Attribute> dims;
    for (const SymExpr &dim : check.dims)
      dims.push_back(exprAttr(b, dim));
    fields.push_back(b.getNamedAttr("dims", b.getArrayAttr(dims)));
    entries.push_back(b.getDictionaryAttr(fields));
  }
  return b.getArrayAttr(entries);
}

FailureOr<std::vector<ShapeCheck>> shapeChecksFromAttr(Attribute attr,
                                                       Location loc) {
  auto fail = [&](size_t index, const char *what) {
    emitError(loc) << kShapeChecksAttr << " entry " << index << ": " << what;
    return failure();
  };
  auto entries = llvm::dyn_cast_or_null<ArrayAttr>(attr);
  if (!entries) {
    emitError(loc) << kShapeChecksAttr << " is not an array";
    return failure();
  }
  std::vector<ShapeCheck> checks;
  for (size_t index = 0; index < entries.size(); ++index) {
    auto fields = llvm::dyn_cast<DictionaryAttr>(entries[index]);
    if (!fields)
      return fail(index, "is not a dictionary");
    auto kindName = fields.getAs<StringAttr>("kind");
    std::optional<Kind> kind =
        kindName ? shapeCheckKindNamed(kindName.getValue()) : std::nullopt;
    if (!kind)
      return fail(index, "has no known kind");
    ShapeCheck check(*kind);
    std::optional<SymExpr> a = exprFrom(fields.get("a"));
    std::optional<SymExpr> b = exprFrom(fields.get("b"));
    auto symbol = fields.getAs<StringAttr>("symbol");
    auto dims = fields.getAs<ArrayAttr>("dims");
    if (!a || !b || !symbol || !dims)
      return fail(index, "lacks a, b, symbol or dims");
    check.a = *a;
    check.b = *b;
    check.symbol = symbol.str();
    for (Attribute dim : dims) {
      std::optional<SymExpr> expr = exprFrom(dim);
      if (!expr)
        return fail(index, "has a malformed dim");
      check.dims.push_back(*expr);
    }
    for (auto [name, field] :
         {std::pair<const char *, int64_t *>{"interior", &check.interior},
          {"edges", &check.edges},
          {"limit", &check.limit}}) {
      auto value = fields.getAs<IntegerAttr>(name);
      if (!value)
        return fail(index, "lacks an integer field");
      *field = value.getInt();
    }
    auto input = fields.getAs<IntegerAttr>("input");
    auto dim = fields.getAs<IntegerAttr>("dim");
    if (!input || !dim)
      return fail(index, "lacks input or dim");
    check.input = static_cast<int>(input.getInt());
    check.dim = static_cast<int>(dim.getInt());
    checks.push_back(std::move(check));
  }
  return checks;
}

} // namespace anyshape::dhlo

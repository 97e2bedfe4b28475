//===- ShapeConstraintAnalysis.cpp - collect and solve dim facts -*- C++
//-*-===//
//
// Collection walks the ops once; solving iterates to a fixpoint because a
// fact learnt late (a class becoming static, say) can unlock earlier ones
// (a broadcast pair, a product to cancel). Each round only ever merges
// classes or binds values, so the number of rounds is bounded by the
// number of atoms.
//
//===----------------------------------------------------------------------===//
#include "ShapeConstraintAnalysis.h"

#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/graph/ShapeChecks.h"
#include "ir/graph/ShapeInference.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>

using namespace mlir;

namespace anyshape::dhlo {
namespace {

constexpr int kMaxSolveRounds = 1000;

/// Single-atom monomial "c*X" as (c, X).
std::optional<std::pair<int64_t, std::string>>
asScaledAtom(const std::pair<const SymExpr::Monomial, int64_t> &term) {
  if (term.first.size() != 1)
    return std::nullopt;
  return std::make_pair(term.second, term.first.front());
}

/// How well `atom` names a size outside the analysis: user symbols, then
/// quotients of them, then the importer's fresh symbols ("?3") and
/// quotients of those, then the analysis' own atoms ("#3"), which name
/// nothing outside it.
int nameRank(const std::string &atom) {
  if (isValidSymbolName(atom))
    return 0;
  if (!atom.empty() && atom[0] == '?')
    return 2;
  if (SymExpr::quotientOf(atom) || SymExpr::extremumOf(atom)) {
    int worst = 1;
    for (const std::string &leaf : SymExpr::symbol(atom).leafSymbols())
      worst = std::max(worst, nameRank(leaf) == 0 ? 1 : nameRank(leaf));
    return worst;
  }
  return 3;
}

/// Preferred representative: the better name (nameRank), then the
/// lexicographically smaller one, so printed output is stable.
bool preferAsRepresentative(const std::string &a, const std::string &b) {
  if (nameRank(a) != nameRank(b))
    return nameRank(a) < nameRank(b);
  return a < b;
}

} // namespace

ShapeConstraintAnalysis::ShapeConstraintAnalysis(Operation *root) {
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          collectValue(arg);
    for (Value result : op->getResults())
      collectValue(result);
  });
  root->walk([&](Operation *op) { collectConstraints(op); });
  solve();
}

void ShapeConstraintAnalysis::collectValue(Value v) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(v.getType());
  if (!tensor || dims_.count(v))
    return;
  std::vector<Poly> dims;
  auto shape = llvm::dyn_cast_or_null<ShapeAttr>(tensor.getEncoding());
  for (auto [i, size] : llvm::enumerate(tensor.getShape())) {
    if (!ShapedType::isDynamic(size)) {
      dims.push_back(SymExpr::constant(size));
    } else if (auto dim = shape ? shape.getDim(i) : std::nullopt) {
      dims.push_back(*dim);
    } else {
      // A fresh atom ("#0", "#1", ...), unique in the analysis.
      dims.push_back(SymExpr::symbol("#" + std::to_string(nextAtom_++)));
    }
  }
  values_.push_back(v);
  dims_[v] = std::move(dims);
}

void ShapeConstraintAnalysis::equate(const Poly &a, const Poly &b) {
  if (a != b)
    equalities_.emplace_back(a, b);
}

void ShapeConstraintAnalysis::collectConstraints(Operation *op) {
  auto dimsOf = [&](Value v) -> const std::vector<Poly> * {
    auto it = dims_.find(v);
    return it == dims_.end() ? nullptr : &it->second;
  };
  // A fusion's results are the values it yields.
  if (auto fusion = llvm::dyn_cast<FusionOp>(op)) {
    for (auto [result, yielded] :
         llvm::zip(fusion.getResults(), fusion.getYield()->getOperands())) {
      const auto *a = dimsOf(result), *b = dimsOf(yielded);
      if (a && b && a->size() == b->size())
        for (size_t i = 0; i < a->size(); ++i)
          equate((*a)[i], (*b)[i]);
    }
    return;
  }
  if (op->getNumResults() != 1 || !llvm::isa<DhloDialect>(op->getDialect()))
    return;
  const std::vector<Poly> *result = dimsOf(op->getResult(0));
  if (!result)
    return;
  // Every other op's facts come from its wire shape rule
  // (ir/graph/ShapeInference.h, the one owner of the ops' dim rules), run
  // on the operands' dims: the result dims it infers, and each check it
  // leaves to run time, which holds whenever the kernels run (the entry
  // checks them first).
  std::string error;
  FailureOr<v1::Node> node =
      toWireNode(op->getName().stripDialect(), op->getAttrDictionary(), error);
  if (failed(node))
    return; // no wire op (the dialect's own, such as seeded_uniform)
  std::vector<SymTensorType> types;
  for (Value operand : op->getOperands()) {
    const auto *dims = dimsOf(operand);
    auto tensor = llvm::dyn_cast<RankedTensorType>(operand.getType());
    std::optional<v1::DType> dtype =
        tensor ? dtypeOf(tensor.getElementType()) : std::nullopt;
    if (!dims || !dtype)
      return;
    types.push_back({*dtype, *dims});
  }
  std::vector<const SymTensorType *> operandTypes;
  for (const SymTensorType &type : types)
    operandTypes.push_back(&type);
  static const GraphLimits limits;
  // The sizes a rule defines (a reshape's quotient, a strided slice's
  // extent) are atoms of this rule alone.
  ShapeContext rules =
      ShapeContext::open(limits, "#r" + std::to_string(rulesRun_++) + ".");
  std::vector<ShapeCheck> checks;
  rules.recordChecksInto(&checks);
  StatusOr<SymTensorType> inferred = inferNodeType(*node, operandTypes, rules);
  if (!inferred || inferred->dims.size() != result->size())
    return; // the verifier reports it
  for (size_t i = 0; i < result->size(); ++i)
    equate((*result)[i], inferred->dims[i]);
  for (const ShapeCheck &check : checks)
    collectFact(check);
  // A reshape keeps the element count whatever its dims say: one whose -1
  // is a quotient's floor (count floordiv k) leaves only a Divides check,
  // which the run time makes exact, so its rule recorded no equality.
  if (llvm::isa<ReshapeOp>(op) && types.size() == 1)
    if (std::optional<SymExpr> in = types[0].numElements(),
        out = inferred->numElements();
        in && out && *in != *out &&
        llvm::none_of(products_, [&](const auto &known) {
          return known == std::make_pair(*in, *out);
        }))
      products_.emplace_back(*in, *out);
}

void ShapeConstraintAnalysis::collectFact(const ShapeCheck &check) {
  auto isProduct = [](const Poly &p) {
    return llvm::any_of(p.terms(),
                        [](const auto &term) { return term.first.size() > 1; });
  };
  switch (check.kind) {
  case ShapeCheck::Kind::Equal:
    // Element counts (a reshape's) cancel common non-zero factors.
    if (isProduct(check.a) || isProduct(check.b))
      products_.emplace_back(check.a, check.b);
    else
      equate(check.a, check.b);
    return;
  case ShapeCheck::Kind::OneOrEqual:
    broadcasts_.emplace_back(check.a, check.b);
    return;
  case ShapeCheck::Kind::Divides:
    // a != 0: so is every factor of a product.
    if (auto terms = check.a.terms(); terms.size() == 1)
      for (const std::string &atom : terms.begin()->first)
        nonZero_.insert(atom);
    return;
  case ShapeCheck::Kind::DefineQuotient:
    // symbol = a / b, after a Divides check: symbol * b == a.
    if (auto product = SymExpr::mul(SymExpr::symbol(check.symbol), check.b))
      products_.emplace_back(check.a, *product);
    return;
  default:
    // Bounds, element limits and the sizes defined by rounding or padding
    // equate nothing.
    return;
  }
}

std::string ShapeConstraintAnalysis::find(const std::string &atom) const {
  auto it = parent_.find(atom);
  if (it == parent_.end() || it->second == atom)
    return atom;
  std::string root = find(it->second);
  it->second = root;
  return root;
}

bool ShapeConstraintAnalysis::unite(const std::string &a,
                                    const std::string &b) {
  std::string ra = find(a), rb = find(b);
  if (ra == rb)
    return false;
  // A size is never a quotient of itself (h == (h + 1) floordiv 2 holds for
  // h <= 1 only): such a class would name itself through itself.
  for (auto [x, y] : {std::pair{ra, rb}, std::pair{rb, ra}})
    for (const std::string &leaf : SymExpr::symbol(x).leafSymbols())
      if (leaf != x && find(leaf) == y)
        return false;
  // A class defined through the other would become defined through itself.
  for (auto [x, y] : {std::pair{ra, rb}, std::pair{rb, ra}})
    if (auto it = definitions_.find(x); it != definitions_.end())
      for (const std::string &atom : it->second.symbols()) {
        if (find(atom) == y)
          return false;
        for (const std::string &leaf : SymExpr::symbol(atom).leafSymbols())
          if (find(leaf) == y)
            return false;
      }
  if (!preferAsRepresentative(ra, rb))
    std::swap(ra, rb);
  parent_[rb] = ra;
  parent_.emplace(ra, ra);
  if (auto it = classValue_.find(rb); it != classValue_.end()) {
    bindValue(ra, it->second);
    classValue_.erase(it);
  }
  if (nonZero_.erase(rb))
    nonZero_.insert(ra);
  if (auto it = definitions_.find(rb); it != definitions_.end()) {
    definitions_.emplace(ra, it->second);
    definitions_.erase(it);
  }
  return true;
}

bool ShapeConstraintAnalysis::bindValue(const std::string &atom,
                                        int64_t value) {
  std::string root = find(atom);
  auto [it, inserted] = classValue_.emplace(root, value);
  if (!inserted && it->second != value) {
    contradictions_.push_back(root + " is both " + std::to_string(it->second) +
                              " and " + std::to_string(value));
    return false;
  }
  return inserted;
}

SymExpr ShapeConstraintAnalysis::canonical(const Poly &p, int depth) const {
  // Definitions never refer back to their own class (define and unite keep
  // it so); the depth bound is a guard, not a mechanism.
  if (depth > 64)
    return p;
  std::optional<SymExpr> result = SymExpr::constant(0);
  for (const auto &[monomial, coefficient] : p.terms()) {
    std::optional<SymExpr> term = SymExpr::constant(coefficient);
    for (const std::string &atom : monomial) {
      std::string root = find(atom);
      auto it = classValue_.find(root);
      auto def = definitions_.find(root);
      std::optional<SymExpr> factor =
          it != classValue_.end()     ? SymExpr::constant(it->second)
          : def != definitions_.end() ? canonical(def->second, depth + 1)
                                      : canonicalAtom(root, depth);
      if (term)
        term = factor ? SymExpr::mul(*term, *factor) : std::nullopt;
    }
    if (!term || !result)
      return p; // overflow: keep the uncanonical form rather than a wrong one
    result = SymExpr::add(*result, *term);
  }
  return result ? *result : p;
}

std::optional<SymExpr>
ShapeConstraintAnalysis::canonicalAtom(const std::string &atom,
                                       int depth) const {
  // A quotient (a max, a min) of equal dims is the same atom, and one of
  // known dims is a size: rebuilt from its canonical operands.
  if (std::optional<SymExpr::Extremum> extreme = SymExpr::extremumOf(atom))
    return SymExpr::extremum(canonical(extreme->a, depth + 1),
                             canonical(extreme->b, depth + 1), extreme->larger);
  std::optional<SymExpr::Quotient> quotient = SymExpr::quotientOf(atom);
  if (!quotient)
    return SymExpr::symbol(atom);
  return SymExpr::floorDiv(canonical(quotient->dividend, depth + 1),
                           quotient->divisor);
}

bool ShapeConstraintAnalysis::solveEquality(const Poly &a, const Poly &b) {
  Poly ca = canonical(a), cb = canonical(b);
  if (ca == cb)
    return false;
  std::optional<SymExpr> diff = SymExpr::sub(ca, cb);
  if (!diff)
    return false;
  if (auto c = diff->constantValue()) {
    std::string message = a.toString() + " == " + b.toString() +
                          " cannot hold: it reduces to " + ca.toString() +
                          " == " + cb.toString();
    if (!llvm::is_contained(contradictions_, message))
      contradictions_.push_back(message);
    return false;
  }
  // Split the difference into atom terms and a constant.
  std::vector<std::pair<int64_t, std::string>> atoms;
  int64_t constant = 0;
  bool linear = true;
  for (const auto &term : diff->terms()) {
    if (term.first.empty()) {
      constant = term.second;
      continue;
    }
    if (auto scaled = asScaledAtom(term))
      atoms.push_back(*scaled);
    else
      linear = false;
  }
  if (!linear)
    return define(*diff);
  // c*X + k == 0  ->  X = -k / c, which must be a size (an integer >= 0).
  if (atoms.size() == 1) {
    auto [c, x] = atoms[0];
    if (constant % c != 0 || -constant / c < 0) {
      std::string message =
          a.toString() + " == " + b.toString() + " has no solution in sizes";
      if (!llvm::is_contained(contradictions_, message))
        contradictions_.push_back(message);
      return false;
    }
    return bindValue(x, -constant / c);
  }
  // c*X - c*Y == 0  ->  X = Y
  if (atoms.size() == 2 && constant == 0 && atoms[0].first == -atoms[1].first)
    return unite(atoms[0].second, atoms[1].second);
  return define(*diff);
}

bool ShapeConstraintAnalysis::define(const Poly &zero) {
  // zero == 0 with a term c*X, X an atom appearing nowhere else, and c
  // dividing every other term: X := -(zero - c*X) / c. Fresh atoms are
  // defined first, so named symbols stay the vocabulary of the result.
  std::vector<std::pair<int64_t, std::string>> candidates;
  for (const auto &term : zero.terms())
    if (auto scaled = asScaledAtom(term))
      candidates.push_back(*scaled);
  std::sort(candidates.begin(), candidates.end(), [](auto &a, auto &b) {
    return preferAsRepresentative(b.second, a.second);
  });
  for (const auto &[c, x] : candidates) {
    // Elsewhere: in a product, or inside a quotient (h == 2*(h floordiv 2)
    // defines nothing: h would be defined through itself).
    bool appearsElsewhere = false;
    for (const auto &[monomial, coefficient] : zero.terms())
      for (const std::string &atom : monomial)
        if ((monomial.size() > 1 && atom == x) ||
            (atom != x &&
             llvm::is_contained(SymExpr::symbol(atom).leafSymbols(), x)))
          appearsElsewhere = true;
    if (appearsElsewhere)
      continue;
    std::optional<SymExpr> rest = SymExpr::sub(
        zero, *SymExpr::mul(SymExpr::constant(c), SymExpr::symbol(x)));
    std::optional<SymExpr> value =
        rest ? SymExpr::mul(*rest, SymExpr::constant(-1)) : std::nullopt;
    std::optional<SymExpr> quotient =
        value ? value->divideExact(SymExpr::constant(c)) : std::nullopt;
    if (!quotient)
      continue;
    definitions_[find(x)] = *quotient;
    return true;
  }
  return false;
}

bool ShapeConstraintAnalysis::solveProduct(const Poly &a, const Poly &b) {
  Poly ca = canonical(a), cb = canonical(b);
  if (ca == cb)
    return false;
  if (ca.terms().size() != 1 || cb.terms().size() != 1)
    return solveEquality(ca, cb);
  // k1 * A == k2 * B with A, B products of atoms: cancel common factors.
  auto [ma, ka] = *ca.terms().begin();
  auto [mb, kb] = *cb.terms().begin();
  SymExpr::Monomial restA, restB;
  std::set_difference(ma.begin(), ma.end(), mb.begin(), mb.end(),
                      std::back_inserter(restA));
  std::set_difference(mb.begin(), mb.end(), ma.begin(), ma.end(),
                      std::back_inserter(restB));
  // Cancelling is sound only if the common factors cannot be zero.
  SymExpr::Monomial common;
  std::set_intersection(ma.begin(), ma.end(), mb.begin(), mb.end(),
                        std::back_inserter(common));
  for (const std::string &atom : common)
    if (!nonZero_.count(find(atom)))
      return false;
  auto monomial = [](int64_t k, const SymExpr::Monomial &atoms) {
    std::optional<SymExpr> p = SymExpr::constant(k);
    for (const std::string &atom : atoms)
      if (p)
        p = SymExpr::mul(*p, SymExpr::symbol(atom));
    return p;
  };
  auto pa = monomial(ka, restA), pb = monomial(kb, restB);
  return pa && pb && solveEquality(*pa, *pb);
}

void ShapeConstraintAnalysis::solve() {
  for (int round = 0; round < kMaxSolveRounds; ++round) {
    bool changed = false;
    for (const auto &[a, b] : equalities_)
      changed |= solveEquality(a, b);
    for (const auto &[operand, target] : broadcasts_) {
      auto v = canonical(operand).constantValue();
      if (v && *v != 1)
        changed |= solveEquality(operand, target);
    }
    for (const auto &[a, b] : products_)
      changed |= solveProduct(a, b);
    if (!changed)
      break;
  }
  // Static dims are non-zero facts too, for the cancellation above.
  for (const auto &[root, value] : classValue_)
    if (value != 0)
      nonZero_.insert(root);
}

SymExpr ShapeConstraintAnalysis::canonicalDim(Value v, int64_t d) const {
  auto it = dims_.find(v);
  if (it == dims_.end() || d < 0 ||
      d >= static_cast<int64_t>(it->second.size()))
    return SymExpr::symbol("<no dim>");
  return canonical(it->second[d]);
}

SymExpr ShapeConstraintAnalysis::canonicalNumElements(Value v) const {
  auto it = dims_.find(v);
  if (it == dims_.end())
    return SymExpr::symbol("<no dims>");
  std::optional<SymExpr> count = SymExpr::constant(1);
  for (const Poly &d : it->second)
    if (count)
      count = SymExpr::mul(*count, d);
  return count ? canonical(*count) : SymExpr::symbol("<overflow>");
}

bool ShapeConstraintAnalysis::isEqual(Value a, int64_t da, Value b,
                                      int64_t db) const {
  return dims_.count(a) && dims_.count(b) &&
         canonicalDim(a, da) == canonicalDim(b, db);
}

bool ShapeConstraintAnalysis::isSameNumElements(Value a, Value b) const {
  if (!dims_.count(a) || !dims_.count(b))
    return false;
  SymExpr ca = canonicalNumElements(a), cb = canonicalNumElements(b);
  if (ca == cb)
    return true;
  // A reshape between them (in either direction) equates their counts even
  // when no factor could be cancelled.
  for (const auto &[x, y] : products_) {
    SymExpr cx = canonical(x), cy = canonical(y);
    if ((cx == ca && cy == cb) || (cx == cb && cy == ca))
      return true;
  }
  return false;
}

std::optional<int64_t> ShapeConstraintAnalysis::staticValue(Value v,
                                                            int64_t d) const {
  return canonicalDim(v, d).constantValue();
}

bool ShapeConstraintAnalysis::isKnownNonZero(Value v, int64_t d) const {
  SymExpr c = canonicalDim(v, d);
  if (auto value = c.constantValue())
    return *value != 0;
  if (c.terms().size() != 1 || c.terms().begin()->second <= 0)
    return false;
  return llvm::all_of(c.terms().begin()->first, [&](const std::string &atom) {
    return nonZero_.count(find(atom)) > 0;
  });
}

bool ShapeConstraintAnalysis::isKnownNonOne(Value v, int64_t d) const {
  auto value = staticValue(v, d);
  return value && *value != 1;
}

void ShapeConstraintAnalysis::print(llvm::raw_ostream &os) const {
  os << "values:\n";
  int64_t argIndex = 0;
  for (Value v : values_) {
    std::string label;
    if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
      label = "arg" + std::to_string(argIndex++);
    } else {
      Operation *op = v.getDefiningOp();
      label = op->getName().getStringRef().str();
      if (auto name = llvm::dyn_cast<NameLoc>(op->getLoc()))
        label += " '" + name.getName().str() + "'";
    }
    os << "  " << label << ": [";
    for (size_t d = 0; d < dims_.lookup(v).size(); ++d)
      os << (d ? ", " : "") << canonicalDim(v, d).toString();
    os << "]\n";
  }
  // Classes with more than one atom, or a value, by representative.
  std::map<std::string, std::vector<std::string>> members;
  for (const auto &[atom, parentAtom] : parent_)
    members[find(atom)].push_back(atom);
  for (const auto &[root, value] : classValue_)
    if (members[root].empty())
      members[root].push_back(root);
  os << "classes:\n";
  for (const auto &[root, atoms] : members) {
    if (atoms.size() < 2 && !classValue_.count(root))
      continue;
    os << "  " << root << " = {";
    for (size_t i = 0; i < atoms.size(); ++i)
      os << (i ? ", " : "") << atoms[i];
    os << "}";
    if (auto it = classValue_.find(root); it != classValue_.end())
      os << " = " << it->second;
    os << "\n";
  }
  os << "definitions:\n";
  for (const auto &[atom, value] : definitions_)
    os << "  " << atom << " = " << canonical(value).toString() << "\n";
  os << "products:\n";
  for (const auto &[a, b] : products_)
    os << "  " << canonical(a).toString() << " == " << canonical(b).toString()
       << "\n";
  os << "contradictions: " << contradictions_.size() << "\n";
  for (const std::string &c : contradictions_)
    os << "  " << c << "\n";
}

} // namespace anyshape::dhlo

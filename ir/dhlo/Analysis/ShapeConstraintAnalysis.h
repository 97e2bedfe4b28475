//===- ShapeConstraintAnalysis.h - what is known about dims -----*- C++ -*-===//
//
// The one shape analysis of the compiler (DISC's "shape constraint
// collection"). Every dim of every tensor value in a function is a
// polynomial over atoms: the symbols of its #dhlo.shape encoding, or a
// fresh atom ("#3") when the type says nothing. Each op's facts come from
// its wire shape rule (ir/graph/ShapeInference.h, the one owner of every
// op's dim rules) run on its operands' dims: its result dims equal the
// inferred ones, and each check the rule leaves to run time
// (ShapeChecks.h) holds whenever the kernels run, because the entry checks
// them all first. So the facts are
//   - dim equalities, solved by union-find over atoms (elementwise operands
//     and results, transpose, reduce's kept dims, gather, concatenate,
//     dot_general batch and contracting dims, slices...); same-named
//     symbols are one atom from the start;
//   - static values (a class equal to a constant);
//   - product equalities (a reshape's equal element counts, a quotient it
//     infers), which also yield dim equalities by cancelling common
//     factors, and definitions of an atom as a polynomial of others
//     ([batch, seq, 768] -> [?, 768] proves ? = batch*seq);
//   - broadcast pairs, equal once the operand dim is known not to be 1;
//   - non-zero dims (a reshape with -1 divides by its other dims).
// A fusion's results equal what it yields (the one structural rule here).
// Fusion asks it whether two index spaces are provably the same without
// knowing any size: isEqual, isSameNumElements, canonicalDim.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/graph/ShapeChecks.h"
#include "ir/graph/SymExpr.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace anyshape::dhlo {

class ShapeConstraintAnalysis {
public:
  /// Analyses every tensor value defined in `root` (typically a func).
  explicit ShapeConstraintAnalysis(mlir::Operation *root);

  /// Whether `v` is a tensor value the analysis has dims for.
  bool hasDims(mlir::Value v) const { return dims_.count(v) > 0; }
  /// Dim `da` of `a` provably equals dim `db` of `b` for every input.
  bool isEqual(mlir::Value a, int64_t da, mlir::Value b, int64_t db) const;
  /// `a` and `b` provably have the same number of elements.
  bool isSameNumElements(mlir::Value a, mlir::Value b) const;
  /// The dim with every atom replaced by its class representative and
  /// every class with a known value replaced by that value.
  SymExpr canonicalDim(mlir::Value v, int64_t d) const;
  /// The canonical element count of `v`.
  SymExpr canonicalNumElements(mlir::Value v) const;
  std::optional<int64_t> staticValue(mlir::Value v, int64_t d) const;
  bool isKnownNonZero(mlir::Value v, int64_t d) const;
  bool isKnownNonOne(mlir::Value v, int64_t d) const;
  /// Any constraint found contradictory (e.g. a class equal to 3 and 4):
  /// the program fails at run time whatever its inputs.
  const std::vector<std::string> &contradictions() const {
    return contradictions_;
  }

  /// Every value's canonical dims, the equivalence classes and the product
  /// equalities; stable text for FileCheck.
  void print(llvm::raw_ostream &os) const;

private:
  using Poly = SymExpr;

  void collectValue(mlir::Value v);
  void collectConstraints(mlir::Operation *op);
  /// The fact a run-time check of a shape rule states.
  void collectFact(const ShapeCheck &check);
  void equate(const Poly &a, const Poly &b);
  bool solveEquality(const Poly &a, const Poly &b);
  bool solveProduct(const Poly &a, const Poly &b);
  /// From `zero` == 0, defines one atom as a polynomial of the others.
  bool define(const Poly &zero);
  void solve();

  std::string find(const std::string &atom) const;
  bool unite(const std::string &a, const std::string &b);
  bool bindValue(const std::string &atom, int64_t value);
  Poly canonical(const Poly &p, int depth = 0) const;
  /// An atom that is its own class's root and has no value or definition:
  /// itself, or a quotient atom rebuilt from its canonical dividend
  /// (nullopt on overflow).
  std::optional<SymExpr> canonicalAtom(const std::string &atom,
                                       int depth) const;

  // Values in definition order, with one polynomial per dim.
  std::vector<mlir::Value> values_;
  llvm::DenseMap<mlir::Value, std::vector<Poly>> dims_;
  int64_t nextAtom_ = 0;
  int64_t rulesRun_ = 0; // names each rule's own atoms apart

  // Union-find over atoms; values of classes known to be constant.
  mutable std::map<std::string, std::string> parent_;
  std::map<std::string, int64_t> classValue_;
  std::set<std::string> nonZero_; // representatives
  /// Classes known to equal a polynomial over other classes (a reshape's
  /// -1 is batch*seq); canonical() substitutes them.
  std::map<std::string, Poly> definitions_;

  std::vector<std::pair<Poly, Poly>> equalities_;
  std::vector<std::pair<Poly, Poly>> products_;
  /// (operand dim, result dim) of broadcast_in_dim: equal once the operand
  /// dim is known not to be 1.
  std::vector<std::pair<Poly, Poly>> broadcasts_;
  std::vector<std::string> contradictions_;
};

} // namespace anyshape::dhlo

// SymTensorType and ShapeContext: the vocabulary of the shape rules.
//
// A SymTensorType is a dtype plus one SymExpr per dim. A ShapeContext says
// how the symbols written in attributes (reshape targets, broadcast shapes,
// slice bounds) are read: symbolically, where they must be symbols bound by
// some graph input, or concretely, where each is replaced by its size. It
// also hands out fresh symbols ("?0", "?1", ...) for anonymous dims and for
// dims no polynomial can express; '?' never appears in a user symbol, so
// fresh symbols cannot collide with named ones.
#pragma once

#include "DType.h"
#include "Limits.h"
#include "ShapeChecks.h"
#include "SymExpr.h"
#include "runtime/support/Status.h"

#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace anyshape {

struct SymTensorType {
  DType dtype = v1::DTYPE_UNSPECIFIED;
  std::vector<SymExpr> dims;

  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  /// The product of the dims, or nullopt on int64 overflow.
  std::optional<SymExpr> numElements() const;
  /// Concrete sizes; nullopt if any dim is symbolic.
  std::optional<std::vector<int64_t>> staticShape() const;
  /// "f32[batch, seq, 768]".
  std::string toString() const;
  bool operator==(const SymTensorType &o) const {
    return dtype == o.dtype && dims == o.dims;
  }
};

/// True if `name` is a valid user symbol: [A-Za-z_][A-Za-z0-9_]*.
bool isValidSymbolName(const std::string &name);
/// True for the names ShapeContext::fresh hands out ("?3"), data-dependent
/// ones included.
bool isFreshSymbolName(const std::string &name);
/// True for the names ShapeContext::dataDependent hands out in validation
/// ("?count0").
bool isDataDependentSymbolName(const std::string &name);

class ShapeContext {
public:
  /// Symbolic mode: attribute symbols must be among `boundSymbols`.
  static ShapeContext symbolic(const GraphLimits &limits,
                               std::set<std::string> boundSymbols);
  /// Open symbolic mode, for IR whose symbols are already bound elsewhere
  /// (the dhlo dialect): any valid symbol name may appear in attributes.
  /// Fresh symbols are named `freshPrefix` + a number, so that a caller can
  /// tell its own fresh symbols from those already in its types.
  static ShapeContext open(const GraphLimits &limits,
                           std::string freshPrefix = "?");
  /// Concrete mode: attribute symbols are replaced by `bindings`.
  static ShapeContext concrete(const GraphLimits &limits,
                               std::map<std::string, int64_t> bindings);

  const GraphLimits &limits() const { return *limits_; }
  bool isConcrete() const { return concrete_; }

  /// Reads an attribute's dim expression.
  StatusOr<SymExpr> read(const v1::DimExpr &expr) const;
  /// Reads a static size (>= 0), symbol or expression; `allowInferred`
  /// admits size -1, returned as nullopt (reshape's inferred dim). An
  /// anonymous `dynamic` dim is an error here: callers that allow it handle
  /// it before calling.
  StatusOr<std::optional<SymExpr>> read(const v1::Dim &dim,
                                        bool allowInferred = false) const;

  /// Symbolic mode: makes `name` usable in attributes (the builder binds
  /// symbols as it adds parameters).
  void bindSymbol(const std::string &name) { boundSymbols_.insert(name); }

  /// A new symbol, unequal to every other symbol.
  SymExpr fresh();
  /// A new symbol for a size only a kernel's result gives (nonzero's
  /// count), never more than `bound`, an expression of earlier sizes
  /// (nullopt: the element limit). Unequal to every other symbol; no
  /// check before the kernel runs can read it (Validate.h). Named `name`
  /// if given, which later attributes may then read (an error if the name
  /// is bound already); else a fresh name none can.
  StatusOr<SymExpr> dataDependent(std::optional<SymExpr> bound,
                                  const std::string &name = "");
  /// The bound of each data-dependent symbol handed out, by name.
  const std::map<std::string, SymExpr> &dataDependentBounds() const {
    return dataDependentBounds_;
  }
  /// Concrete mode: binds a data-dependent symbol to the size its kernel
  /// gave, for the attributes read after it.
  void bindSize(const std::string &name, int64_t size) {
    bindings_[name] = size;
  }

  /// Errors if the static part of `type`'s element count exceeds the limit,
  /// or its rank does; when recording checks, the count is symbolic and
  /// `recordCheck` is set, records the check of the whole count.
  Status checkLimits(const SymTensorType &type, bool recordCheck = true) const;

  /// Symbolic validation: the conditions the rules cannot decide on
  /// symbols are appended to `sink` (ShapeChecks.h), each with the node
  /// being typed (setCheckNode) and the rule's own words.
  void recordChecksInto(std::vector<ShapeCheck> *sink) { checks_ = sink; }
  void setCheckNode(int node) { node_ = node; }
  /// Records `check` when recording; no-op otherwise (concrete mode
  /// decides every condition itself).
  void require(ShapeCheck check) const;
  /// unifyDims; when the two dims may differ at run time, records that
  /// they must not (`what` names them).
  StatusOr<SymExpr> unify(const SymExpr &a, const SymExpr &b,
                          const std::string &what) const;

private:
  ShapeContext(const GraphLimits &limits) : limits_(&limits) {}

  /// Records an ElementLimit check of `dims` unless one was recorded.
  void requireElementLimit(const std::vector<SymExpr> &dims) const;

  StatusOr<SymExpr> read(const v1::DimExpr &expr, int depth) const;
  /// A symbol in an attribute: its size (concrete mode) or itself.
  StatusOr<SymExpr> readSymbol(const std::string &name) const;

  const GraphLimits *limits_;
  bool concrete_ = false;
  bool open_ = false;
  std::string freshPrefix_ = "?";
  std::set<std::string> boundSymbols_;
  std::map<std::string, int64_t> bindings_;
  int64_t nextFresh_ = 0;
  std::map<std::string, SymExpr> dataDependentBounds_;
  std::vector<ShapeCheck> *checks_ = nullptr;
  int node_ = -1;
  /// ElementLimit checks recorded, by the hash of their dims: values of
  /// one shape are checked once.
  mutable std::unordered_multimap<size_t, size_t> limitChecks_;
};

/// Combines two dims that must be equal at run time: an error if both are
/// static and differ; otherwise the more informative one (static beats
/// symbolic; otherwise `a`).
StatusOr<SymExpr> unifyDims(const SymExpr &a, const SymExpr &b);

} // namespace anyshape
